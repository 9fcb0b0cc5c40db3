import Ledger
import Schedule
import Sound
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The reminder desk: what each due reminder gets, decided in one place from the settings,
/// the ledger's rows and the instant (the loop gives it the messages and the time), so every
/// rule is a row of the table in docs/design.md, tested on a manual clock. It returns effects
/// — rows to record, messages to light the screen for, the television to wake, sounds to play,
/// lines for the journal — which the loop carries out in that order: a reminder's fate is kept
/// before it is played, the screen and the television are on before the chime.
///
/// A reminder sounds at its trigger, or later while its message still shows, at most
/// `latestHeard` after it (then called late, and why: the box was off, or the calendar reached
/// it late); later than that it is missed. It sounds once per trigger whatever happens to the
/// feed, the clock or the process (the ledger keeps what was decided), then again as its
/// calendar's REPEAT says (at least `shortestRepeat` apart), or `repeatUntilAcknowledged`
/// times, until someone acknowledges it, its event ends or is taken out of the calendar. In
/// the quiet night only urgent reminders sound; the others when the night ends if they still
/// show, else they are missed, and said. Muted, or not asked for by `speak`, a reminder is
/// shown only: the screen is still lit and the television woken for it.
struct ReminderPlan {
    typealias Key = LedgerEntry.Key

    /// A reminder to play now.
    struct Due: Sendable, Equatable {
        var key: Key
        var text: String
        /// The carer's recording to play instead of the words, if it has one.
        var recording: Recording.Source?
        /// Which sounding it is (1: the first) of how many at most.
        var number: Int
        var of: Int
        var atNight: Bool
    }

    /// What one look decided, in the order the loop carries it out.
    struct Decisions: Sendable, Equatable {
        /// Ledger rows new or changed: kept first.
        var record: [LedgerEntry] = []
        /// The messages whose reminder is due now: the screen is lit for them.
        var light: [Message] = []
        var play: [Due] = []
        var journal: [String] = []

        /// Whether the television is woken (before anything plays): for whatever lights the screen.
        var wakeTelevision: Bool { !light.isEmpty }

        /// The journal's notices for what was decided: each fate other than sounding, missed or
        /// not acknowledged (`journal` says those, as warnings), and each sound to be played.
        var notices: [String] {
            record.filter { $0.fate != .sounding && $0.fate != .missed && $0.fate != .notAcknowledged }.map { entry in
                "reminder \"\(entry.text)\": \(entry.fate.rawValue)" + (entry.why.map { " (\($0))" } ?? "")
            } + play.map { due in "reminder heard: \"\(due.text)\"" + (due.of > 1 ? " (\(due.number) of \(due.of))" : "") }
        }
    }

    /// Heard later than this after its trigger, a reminder is called late.
    static let lateLimit: Int64 = 60
    /// Later than this it is missed, not played: a reminder to take pills heard hours late could
    /// be taken as a second dose (it still shows on the band while its event lasts).
    static let latestHeard: Int64 = 3_600
    /// How far apart repeats sound when the calendar gave no DURATION.
    static let repeatSeconds: Int64 = 300
    /// The shortest time between repeats (`DURATION:PT1S` would fill the voice's queue).
    static let shortestRepeat: Int64 = 60
    /// Triggers older than this are not decided any more (an event longer than this is not
    /// missed again), and settled rows older than this are left to the ledger alone.
    static let rememberedSeconds: Int64 = 8 * 86_400
    /// How many reminders the status lists.
    static let listed = 10

    var settings: SoundSettings
    /// Where the recordings at addresses are fetched to ahead of their time (nil: nowhere).
    let fetchedRecordings: String?
    var muted = false
    /// When this run of the box began: a trigger before it found the box off.
    let runStarted: Int64
    /// Every reminder decided in the last `rememberedSeconds`, or still waiting for something.
    private(set) var entries: [Key: LedgerEntry]
    /// The recordings of the reminders sounding (not in the ledger: a recording may be
    /// megabytes), found again from their message after a restart.
    private var recordings: [Key: Recording.Source?] = [:]

    init(settings: SoundSettings, entries: [LedgerEntry] = [], runStarted: Instant = Instant(secondsSinceEpoch: 0),
         fetchedRecordings: String? = nil) {
        self.settings = settings
        self.entries = Dictionary(entries.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        self.runStarted = runStarted.secondsSinceEpoch
        self.fetchedRecordings = fetchedRecordings
    }

    /// Looks at the messages active now and at what waits (repeats, the morning): what is due.
    mutating func look(at messages: [Message], now: Instant, isNight: Bool) -> Decisions {
        var decisions = Decisions()
        let seconds = now.secondsSinceEpoch
        var showing: [Key: (message: Message, sounding: Sounding)] = [:]
        var events: [String: (message: Message, sounding: Sounding)] = [:]
        for message in messages {
            guard let sounding = message.sounding, sounding.trigger.instant <= now else { continue }
            let key = Self.key(message, sounding)
            guard seconds - key.trigger <= Self.rememberedSeconds else { continue }
            if showing[key] == nil { showing[key] = (message, sounding) }
            events[key.event] = events[key.event] ?? (message, sounding)
        }
        for (key, shown) in showing.sorted(by: { $0.key < $1.key }) where entries[key] == nil {
            decide(key, shown.message, shown.sounding, now: seconds, isNight: isNight, into: &decisions)
        }
        for key in entries.keys.sorted() where entries[key]?.fate == .quietAtNight {
            guard var entry = entries[key] else { continue }
            if let shown = showing[key] {
                guard !isNight else { continue }
                if muted {
                    entry.fate = .muted
                    entry.why = "muted by a carer before the night ended"
                    change(entry, at: seconds, into: &decisions)
                } else {
                    entry.why = "kept quiet in the night, heard when it ended"
                    sound(entry, shown.message, shown.sounding, from: seconds, isNight: isNight, into: &decisions)
                }
            } else {
                entry.fate = .missed
                entry.why = "its event ended in the quiet night, before it could be heard"
                change(entry, at: seconds, into: &decisions)
                decisions.journal.append("reminder \"\(entry.text)\" was not heard: \(entry.why ?? "")")
            }
        }
        repeatsDue(events: events, now: seconds, isNight: isNight, into: &decisions)
        for (key, entry) in entries where entry.fate.isSettled && key.trigger < seconds - Self.rememberedSeconds
            && entry.changedAt < seconds - Self.rememberedSeconds
        {
            entries[key] = nil
            recordings[key] = nil
        }
        return decisions
    }

    /// A trigger seen for the first time.
    private mutating func decide(_ key: Key, _ message: Message, _ sounding: Sounding, now: Int64, isNight: Bool,
                                 into decisions: inout Decisions) {
        let late = now - key.trigger
        var entry = LedgerEntry(key: key, text: message.text, triggerOffset: sounding.trigger.utcOffset, fate: .missed,
                                urgent: message.isUrgent, decidedAt: now)
        let current = late <= Self.latestHeard
        if current, late > Self.lateLimit { entry.why = "heard \(minutes(late)) late: " + whyLate(key, offset: entry.triggerOffset) }
        if !settings.hears(sounding) {
            entry.fate = .shownOnly
            entry.why = settings.speak == .off ? "speak = \"off\": reminders are shown, not heard"
                : "speak = \"\(settings.speak.rawValue)\" hears only alarms with a sound"
        } else if !current {
            entry.why = "it was due \(minutes(late)) earlier: " + whyLate(key, offset: entry.triggerOffset)
                + "; it is not played this late"
            decisions.journal.append("reminder \"\(message.text)\" of \(sounding.trigger.rfc3339) was missed: \(entry.why ?? "")")
        } else if muted {
            entry.fate = .muted
            entry.why = "muted by a carer"
        } else if isNight, !message.isUrgent {
            entry.fate = .quietAtNight
            entry.why = "not urgent, in the quiet night: heard when the night ends, if it still shows"
        } else {
            sound(entry, message, sounding, from: key.trigger, isNight: isNight, into: &decisions)
            return
        }
        if current, entry.fate != .quietAtNight {
            decisions.light.append(message)
        }
        change(entry, at: now, into: &decisions)
    }

    /// Why a reminder reached the box after its time.
    private func whyLate(_ key: Key, offset: Int) -> String {
        guard key.trigger < runStarted else { return "its calendar reached the box after its time" }
        return "the box was off at its time (marquee started at "
            + ZonedTime(instant: Instant(secondsSinceEpoch: runStarted), utcOffset: offset).wallClock.clock() + ")"
    }

    /// Sounds `entry` for the first time now; its repeats count from `start` (the trigger, or the
    /// morning for one the night kept quiet), or from now when it is heard late.
    private mutating func sound(_ entry: LedgerEntry, _ message: Message, _ sounding: Sounding, from start: Int64,
                                isNight: Bool, into decisions: inout Decisions) {
        var entry = entry
        let now = max(start, entry.decidedAt)
        let (repeats, interval) = sounding.repeats > 0
            ? (sounding.repeats, max(sounding.repeatSeconds, Self.shortestRepeat))
            : (settings.repeatUntilAcknowledged, Self.repeatSeconds)
        let (recording, unplayable) = AttachedRecording.resolve(sounding, calendar: message.source, fetched: fetchedRecordings)
        if let unplayable { decisions.journal.append("reminder \"\(message.text)\": \(unplayable); it is spoken") }
        recordings[entry.key] = recording
        entry.fate = .sounding
        entry.soundings = 1
        entry.total = repeats + 1
        entry.interval = interval
        // Heard late, its repeats count from now.
        entry.next = (now - start > Self.lateLimit ? now : start) + interval
        decisions.light.append(message)
        decisions.play.append(Due(key: entry.key, text: entry.text, recording: recording, number: 1, of: entry.total,
                                  atNight: isNight))
        change(entry, at: now, into: &decisions)
    }

    /// Repeats whose time came; reminders that sounded all theirs without an acknowledgement
    /// (one interval after the last), or whose event no longer shows, are not acknowledged.
    private mutating func repeatsDue(
        events: [String: (message: Message, sounding: Sounding)], now: Int64, isNight: Bool, into decisions: inout Decisions
    ) {
        for key in entries.keys.sorted() {
            guard var entry = entries[key], entry.fate == .sounding, let next = entry.next, now >= next else { continue }
            entry.next = nil
            guard let shown = events[key.event] else {
                entry.fate = .notAcknowledged
                entry.why = "its event ended or was taken out of the calendar before anyone acknowledged it"
                change(entry, at: now, into: &decisions)
                continue
            }
            if entry.soundings >= entry.total {
                entry.fate = .notAcknowledged
                entry.why = "sounded \(times(entry.soundings)) and nobody acknowledged it"
                decisions.journal.append("reminder \"\(entry.text)\" \(entry.why ?? "")")
            } else if muted {
                entry.fate = .muted
                entry.why = "muted by a carer after it sounded \(times(entry.soundings))"
            } else if isNight, !entry.urgent {
                entry.fate = .quietAtNight
                entry.why = "the quiet night began after it sounded \(times(entry.soundings)): heard again when it ends"
            } else {
                // Several repeats passed at once (the clock set forward): one sounding, the rest skipped.
                var due = next
                while due + entry.interval <= now, entry.soundings < entry.total - 1 {
                    due += entry.interval
                    entry.soundings += 1
                }
                entry.soundings += 1
                entry.next = due + entry.interval
                if recordings[key] == nil {
                    recordings[key] = AttachedRecording.resolve(shown.sounding, calendar: shown.message.source,
                                                                fetched: fetchedRecordings).source
                }
                decisions.light.append(shown.message)
                decisions.play.append(Due(key: key, text: entry.text, recording: recordings[key] ?? nil,
                                          number: entry.soundings, of: entry.total, atNight: isNight))
            }
            change(entry, at: now, into: &decisions)
        }
    }

    /// The next instant a repeat sounds or a reminder's time to be acknowledged ends.
    var nextDue: Instant? {
        entries.values.compactMap { $0.fate == .sounding ? $0.next : nil }.min().map(Instant.init(secondsSinceEpoch:))
    }

    /// The reminders sounding now, acknowledged by `whom`: their repeats stop. The rows to record.
    mutating func acknowledge(at now: Instant, by whom: String) -> [LedgerEntry] {
        var changed: [LedgerEntry] = []
        for key in entries.keys.sorted() {
            guard var entry = entries[key], entry.fate == .sounding, entry.next != nil else { continue }
            entry.fate = .acknowledged
            entry.next = nil
            entry.acknowledgedBy = whom
            entry.changedAt = now.secondsSinceEpoch
            entries[key] = entry
            changed.append(entry)
        }
        return changed
    }

    /// The journal's line for an acknowledgement by `whom` of the `changed` rows.
    static func acknowledgedLine(by whom: String, changed: [LedgerEntry]) -> String {
        changed.isEmpty ? "acknowledged by \(whom), but no reminder was sounding"
            : "acknowledged by \(whom): " + changed.map { "\"\($0.text)\"" }.joined(separator: ", ")
    }

    /// Before a reminder someone acknowledged, on the band.
    static let acknowledgedMark = "✓ "

    /// `messages` as the band shows them: a reminder someone acknowledged is marked ✓ (the
    /// person sees that it was heard; the mark stands still, nothing flashes).
    func marked(_ messages: [Message]) -> [Message] {
        let acknowledged = Set(entries.values.filter { $0.fate == .acknowledged }.map { [$0.text, String($0.key.trigger)] })
        guard !acknowledged.isEmpty else { return messages }
        return messages.map { message in
            guard let trigger = message.sounding?.trigger.instant.secondsSinceEpoch,
                  acknowledged.contains([message.text, String(trigger)])
            else { return message }
            var marked = message
            marked.text = Self.acknowledgedMark + message.text
            return marked
        }
    }

    /// The status's account of the reminders as of local day `day` (days since 1970 at
    /// `utcOffset`): how they are heard, the last ones and their fates, today's and yesterday's.
    func soundStatus(updating earlier: SoundStatus?, day: Int64, utcOffset: Int) -> SoundStatus {
        func shown(_ entry: LedgerEntry) -> SoundStatus.Reminder { SoundStatus.Reminder(entry, utcOffset: utcOffset) }
        var sound = earlier ?? SoundStatus(speak: "", device: "", muted: false, reminders: [])
        sound.speak = settings.speak.rawValue
        sound.device = settings.device
        sound.muted = muted
        sound.reminders = recent.map(shown)
        sound.lastMissed = lastMissed.map(shown)
        sound.lastAcknowledged = lastAcknowledged.map(shown)
        sound.today = SoundStatus.Day(ReminderTally(entries.values, day: day))
        sound.yesterday = SoundStatus.Day(ReminderTally(entries.values, day: day - 1))
        return sound
    }

    /// Whether some reminder waits for an acknowledgement.
    var isWaiting: Bool { entries.values.contains { $0.fate == .sounding && $0.next != nil } }

    /// The reminders whose fate changed last, the latest first: what the status lists.
    var recent: [LedgerEntry] {
        Array(entries.values.sorted { ($0.changedAt, $0.key) > ($1.changedAt, $1.key) }.prefix(Self.listed))
    }

    /// The last reminder missed or that nobody acknowledged, and the last one acknowledged:
    /// what a carer's phone is told.
    var lastMissed: LedgerEntry? { latest { $0 == .missed || $0 == .notAcknowledged } }
    var lastAcknowledged: LedgerEntry? { latest { $0 == .acknowledged } }

    private func latest(_ fate: (LedgerEntry.Fate) -> Bool) -> LedgerEntry? {
        entries.values.filter { fate($0.fate) }.max { ($0.changedAt, $0.key) < ($1.changedAt, $1.key) }
    }

    private mutating func change(_ entry: LedgerEntry, at now: Int64, into decisions: inout Decisions) {
        var entry = entry
        entry.changedAt = now
        entries[entry.key] = entry
        decisions.record.append(entry)
    }

    static func key(_ message: Message, _ sounding: Sounding) -> Key {
        Key(event: message.uid.isEmpty ? message.text : message.uid, trigger: sounding.trigger.instant.secondsSinceEpoch,
            origin: sounding.origin.rawValue)
    }

    private func minutes(_ seconds: Int64) -> String {
        seconds < 120 ? "\(seconds) s" : seconds < 7_200 ? "\(seconds / 60) min" : "\(seconds / 3_600) h \(seconds % 3_600 / 60) min"
    }

    private func times(_ count: Int) -> String {
        count == 1 ? "once" : count == 2 ? "twice" : "\(count) times"
    }
}

/// Where the recording an audio alarm attaches is: what the box plays and `check` tries.
package enum AttachedRecording {
    /// The recording an alarm attaches: written into the calendar (`ENCODING=BASE64`); at an
    /// `https` (or `http`) address, as fetched ahead of its time into `fetched`; or a file in
    /// the calendar's own folder, named (`dentist.ogg`, `voices/dentist.ogg`), or by a
    /// `file://` address or an absolute path of which only the file's name counts (Thunderbird
    /// writes the path on the carer's computer; the file is copied next to the calendar).
    /// Apple's named sounds (`Chord`) are the chime: no recording, nothing to say. Anything
    /// else is not played, and why.
    package static func resolve(
        _ sounding: Sounding, calendar: String, fetched: String?
    ) -> (source: Recording.Source?, unplayable: String?) {
        if let embedded = sounding.embedded {
            return (.bytes(embedded.bytes, describedAs: "written into \(calendar)"), nil)
        }
        guard let attachment = sounding.attachment else { return (nil, nil) }
        if isAddress(attachment) {
            guard let fetched else { return (nil, "the sound at an address (ATTACH \(attachment)) is not fetched") }
            return (.file(fetchedPath(attachment, in: fetched)), nil)
        }
        let folder = splitPath(calendar).folder
        var name = attachment
        if attachment.lowercased().hasPrefix("file://") {
            name = splitPath(URL(string: attachment)?.path(percentEncoded: false) ?? "").name
        } else if attachment.contains(":") {
            return (nil, "ATTACH \(attachment) is neither a file nor an https address")
        } else if attachment.hasPrefix("/") {
            name = splitPath(attachment).name
        } else if !attachment.contains(".") {
            return (nil, nil)
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            return (nil, "ATTACH \(attachment) is not a file in the calendar's folder \(folder)")
        }
        return (.file(folder + "/" + name, within: folder), nil)
    }

    /// Whether an ATTACH is a recording to fetch from a web server.
    package static func isAddress(_ attachment: String) -> Bool {
        let lowered = attachment.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Where the recording at `address` is kept once fetched: named by the address.
    static func fetchedPath(_ address: String, in folder: String) -> String {
        folder + "/" + String(stableHash(address), radix: 16) + ".sound"
    }
}
