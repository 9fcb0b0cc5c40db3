import Ledger
import Schedule
import Sound
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The box's own calendar: the reminders a carer writes on the page, kept in the state folder
/// (`written.sqlite`, what the page lists and edits) and published as `written/written.ics`,
/// which the display reads through libical as one of its feeds (the folder is watched: a
/// change shows at once). A recorded voice is a file beside it, played as an `ATTACH` is.
package struct WrittenCalendar: Sendable {
    /// `<state_dir>/written`: the feed folder.
    package let folder: String
    /// `<state_dir>/written.sqlite`.
    let database: String

    package static let fileName = "written.ics"
    /// The largest recording the page takes (a minute of the page's 16 kHz WAV is 1.9 MB).
    static let largestRecording = 10 << 20
    static let weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    package init(stateFolder: String) {
        folder = stateFolder + "/written"
        database = stateFolder + "/" + WrittenReminders.fileName
    }

    /// What a carer typed in the form, before it is judged.
    struct Form: Sendable {
        var text: String
        var day: String
        /// Empty: the whole day.
        var time: String
        var repetition: String
        var weekdays: [String]
        var minutes: Int?
        var heard: Bool
        var urgent: Bool
    }

    /// `form` as a written reminder `id`, or why it cannot be one (in words a carer reads).
    static func reminder(_ form: Form, id: String, recording: String?, at now: Instant) -> Result<WrittenReminder, CarerRefusal> {
        guard !form.text.trimmingCharacters(in: " \t\r\n").isEmpty else { return .failure(CarerRefusal("the reminder has no words")) }
        let text: String
        switch SaidNow.checkedText(form.text) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let words): text = words
        }
        let time = form.time.trimmingCharacters(in: " ")
        guard case .local(let wall)? = TimeArgument(form.day + (time.isEmpty ? "" : " " + time)),
              time.isEmpty || time.count == 5 else {
            return .failure(CarerRefusal("“\(form.day) \(time)” is not a day (YYYY-MM-DD) and a time (HH:MM)"))
        }
        guard let repetition = WrittenReminder.Repetition(rawValue: form.repetition) else {
            return .failure(CarerRefusal("“\(form.repetition)” is not a way to repeat"))
        }
        let weekdays = Self.weekdays.filter(form.weekdays.contains)
        guard repetition != .weekly || !weekdays.isEmpty else {
            return .failure(CarerRefusal("a weekly reminder needs at least one day of the week"))
        }
        let minutes = form.minutes ?? 30
        guard (1...1440).contains(minutes) else { return .failure(CarerRefusal("it shows from 1 to 1440 minutes")) }
        return .success(WrittenReminder(
            id: id, text: text, day: wall.date.rfc3339, time: time.isEmpty ? nil : time, repetition: repetition,
            weekdays: repetition == .weekly ? weekdays : [], minutes: minutes, heard: form.heard || recording != nil,
            urgent: form.urgent, recording: recording, changedAt: now.secondsSinceEpoch))
    }

    /// The calendar of `reminders`: a timed one at its local time on the display's clock (a
    /// floating time: a DST change moves it with the clock on the wall), a whole-day one as a
    /// DATE; heard ones with `X-MARQUEE-SPEAK`, or an audio alarm playing the recording.
    static func calendar(_ reminders: [WrittenReminder], stamp: Instant) -> String {
        CalendarText.calendar(product: "written on the page", events: reminders.compactMap { reminder in
            guard case .local(let start)? = TimeArgument(reminder.day + (reminder.time.map { " " + $0 } ?? "")) else { return nil }
            var lines = ["BEGIN:VEVENT", "UID:\(reminder.id)@marquee-page", "DTSTAMP:" + CalendarText.utc(stamp)]
            if reminder.time == nil {
                lines += ["DTSTART;VALUE=DATE:" + CalendarText.date(start.date), "DURATION:P1D"]
            } else {
                lines += ["DTSTART:" + CalendarText.local(start), "DURATION:PT\(reminder.minutes)M"]
            }
            switch reminder.repetition {
            case .once: break
            case .daily: lines.append("RRULE:FREQ=DAILY")
            case .weekdays: lines.append("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
            case .weekly: lines.append("RRULE:FREQ=WEEKLY;BYDAY=" + reminder.weekdays.joined(separator: ","))
            case .yearly: lines.append("RRULE:FREQ=YEARLY")
            }
            lines.append("SUMMARY:" + CalendarText.escaped(reminder.text))
            if reminder.urgent { lines.append("PRIORITY:1") }
            if let recording = reminder.recording {
                lines += ["BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:PT0S", "ATTACH:" + recording, "END:VALARM"]
            } else if reminder.heard {
                lines.append("X-MARQUEE-SPEAK:YES")
            }
            return lines + ["END:VEVENT"]
        })
    }

    /// The reminders as kept (nil and why: the database cannot be read).
    func reminders() -> Result<[WrittenReminder], LedgerError> {
        Result { () throws(LedgerError) in try WrittenReminders(path: database).all() }
    }

    /// Keeps `reminder` (with its new recording's samples, when one was recorded) and publishes
    /// the calendar; why not, if it could not be.
    func keep(_ reminder: WrittenReminder, recorded: [UInt8]?, at now: Instant) -> String? {
        _ = mkdir(folder, 0o750)
        if let recorded, let name = reminder.recording,
           let problem = writeFileAtomically(recorded, to: folder + "/" + name) {
            return "cannot keep the recording: \(problem)"
        }
        return change(at: now) { book throws(LedgerError) in try book.keep(reminder) }
    }

    /// Forgets reminder `id` and its recording, and publishes the calendar.
    func remove(_ id: String, at now: Instant) -> String? {
        change(at: now) { book throws(LedgerError) in try book.remove(id) }
    }

    /// Makes `change` and publishes what is kept then: one reading of the reminders serves the
    /// calendar and the recordings' clean-up.
    private func change(at now: Instant, _ change: (WrittenReminders) throws(LedgerError) -> Void) -> String? {
        let kept: [WrittenReminder]
        do throws(LedgerError) {
            let book = try WrittenReminders(path: database)
            try change(book)
            kept = try book.all()
        } catch {
            return "\(error)"
        }
        removeRecordings(except: kept)
        return publish(kept, at: now)
    }

    /// Writes the calendar of what is kept, whole (an atomic rename), or removes it when
    /// nothing is written; why not, if it could not be.
    func publish(at now: Instant) -> String? {
        switch reminders() {
        case .failure(let problem): return "\(problem)"
        case .success(let kept): return publish(kept, at: now)
        }
    }

    private func publish(_ kept: [WrittenReminder], at now: Instant) -> String? {
        let path = folder + "/" + Self.fileName
        guard !kept.isEmpty else {
            return unlink(path) == 0 || errno == ENOENT ? nil : "cannot remove \(path): \(String(cString: strerror(errno)))"
        }
        return writeFileAtomically(Array(Self.calendar(kept, stamp: now).utf8), to: path).map { "cannot write the calendar: \($0)" }
    }

    /// A recording the page received, judged as the box plays it (libsndfile; at most
    /// `largestRecording` bytes and `Recording.mostSeconds`): its length in seconds, or why not.
    static func judged(recording bytes: [UInt8]) -> Result<Double, CarerRefusal> {
        guard bytes.count <= largestRecording else {
            return .failure(CarerRefusal("the recording is too large (at most \(largestRecording >> 20) MB)"))
        }
        do {
            return .success(try Recording.load(bytes, describedAs: "sent").seconds)
        } catch {
            return .failure(CarerRefusal(error.description))
        }
    }

    /// A new recording's file for reminder `id` (a name of its own each time: what plays is
    /// never an older recording kept under the same name).
    static func recordingName(of id: String) -> String { "voice-\(id)-\(PageSessions.randomToken().prefix(8)).wav" }

    /// Removes the recordings none of `kept` plays.
    private func removeRecordings(except kept: [WrittenReminder]) {
        let wanted = Set(kept.compactMap(\.recording))
        for entry in directoryEntries(folder) ?? [] where entry.name.hasPrefix("voice-") && !wanted.contains(entry.name) {
            unlink(folder + "/" + entry.name)
        }
    }
}
