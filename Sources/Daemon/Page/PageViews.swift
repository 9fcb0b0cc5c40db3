import Ledger
import Support

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the page's "Now" shows, as the state says it, in the carer's words: sent to the
/// browser whole (server-sent events) whenever it changes.
struct PageNow: Codable, Sendable, Equatable {
    /// The state's change count: the browser asks nothing when it did not move.
    var changes: Int
    /// The number of the picture of the glass (a new one when the screen looks different).
    var picture: Int
    var orientation: String?
    var showing: [String]
    /// Paused, muted, the dark screen, the television: each in a sentence.
    var states: [String]
    /// What is wrong, each with what to do.
    var problems: [String]

    init(report: StatusReport, problems: [String], changes: Int, picture: Int, words: PageWords) {
        self.changes = changes
        self.picture = picture
        orientation = report.orientation
        showing = report.showing
        var states: [String] = []
        if report.paused { states.append(words.paused) }
        if report.sound?.muted == true { states.append(words.muted) }
        if let screen = report.screen {
            switch screen.state {
            case .on: break
            case .dark: states.append("\(words.darkUntil) \(ScreenStatus.clock(screen.darkUntil)).")
            case .lit: states.append("\(words.litFor) \(screen.litBecause ?? "").")
            }
        }
        if let television = report.television { states.append("\(words.television): \(television.summary).") }
        self.states = states
        self.problems = problems
    }
}

/// What the box's page shows: marquee's version, how long it has run, the state folder's disk,
/// each running part with its last error, and the problems.
struct BoxView: Sendable {
    var version: String
    var uptimeSeconds: Int
    /// Free and total bytes of the state folder's file system (nil: not known).
    var disk: (free: UInt64, total: UInt64)?
    var parts: [PartStatus]
    var problems: [String]

    init(report: StatusReport, version: String, disk: (free: UInt64, total: UInt64)?, problems: [String]) {
        self.version = version
        uptimeSeconds = report.uptimeSeconds
        self.disk = disk
        parts = report.parts
        self.problems = problems
    }

    /// The free and total bytes of the file system `folder` is on.
    static func disk(of folder: String) -> (free: UInt64, total: UInt64)? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        return (UInt64(info.f_bavail) * UInt64(info.f_frsize), UInt64(info.f_blocks) * UInt64(info.f_frsize))
    }
}

/// The page's HTML: every text from a calendar, a carer or the box is escaped; the only script
/// and style are the page's own files (the Content-Security-Policy allows nothing else).
enum PageViews {
    /// `text` safe inside an element or a quoted attribute.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func document(_ words: PageWords, title: String, signedIn: Bool, body: String) -> String {
        let navigation = signedIn ? """
            <nav><a href="/">\(escaped(words.now))</a> <a href="/reminders">\(escaped(words.reminders))</a>
            <a href="/write">\(escaped(words.write))</a> <a href="/calendars">\(escaped(words.calendars))</a>
            <a href="/settings">\(escaped(words.settings))</a>
            <a href="/box">\(escaped(words.theBox))</a>
            <form method="post" action="/logout" class="inline"><button>\(escaped(words.signOut))</button></form></nav>
            """ : ""
        return """
            <!doctype html>
            <html lang="\(words.language)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(title)) · marquee</title>
            <link rel="stylesheet" href="/page.css"><script src="/page.js" defer></script></head>
            <body>\(navigation)<main>\(body)</main></body></html>
            """
    }

    static func signIn(_ words: PageWords, problem: String?) -> String {
        document(words, title: words.signIn, signedIn: false, body: """
            <h1>marquee</h1>
            \(problem.map { "<p class=\"problem\" role=\"alert\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="/login">
            <label for="password">\(escaped(words.password))</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
            <button>\(escaped(words.signIn))</button></form>
            """)
    }

    /// A button that posts `action` with the session's change token.
    private static func action(_ action: String, _ label: String, changeToken: String) -> String {
        """
        <form method="post" action="/act"><input type="hidden" name="token" value="\(escaped(changeToken))">\
        <input type="hidden" name="action" value="\(action)"><button>\(escaped(label))</button></form>
        """
    }

    static func now(_ words: PageWords, _ now: PageNow, changeToken: String, notice: String?) -> String {
        let showing = (now.showing.isEmpty ? [words.nothingShown] : now.showing).map { "<li>\(escaped($0))</li>" }.joined()
        let problems = now.problems.isEmpty ? "<li class=\"well\">\(escaped(words.everythingWell))</li>"
            : now.problems.map { "<li class=\"problem\">\(escaped($0))</li>" }.joined()
        let actions = [
            ("ack", words.acknowledge), ("wake", words.wake), ("mute", words.mute), ("unmute", words.unmute),
            ("pause", words.pause), ("resume", words.resume), ("clear", words.clear),
        ].map { action($0.0, $0.1, changeToken: changeToken) }.joined()
        return document(words, title: words.now, signedIn: true, body: """
            \(notice.map { "<p class=\"notice\" role=\"status\">\(escaped($0))</p>" } ?? "")
            <img id="glass" src="/picture.png?n=\(now.picture)" alt="\(escaped(words.picture))" width="640" height="360">
            <p id="orientation">\(escaped(now.orientation ?? ""))</p>
            <h2>\(escaped(words.onTheScreen))</h2><ul id="showing" data-nothing="\(escaped(words.nothingShown))">\(showing)</ul>
            <ul id="states">\(now.states.map { "<li>\(escaped($0))</li>" }.joined())</ul>
            <h2>\(escaped(words.problems))</h2>
            <ul id="problems" data-well="\(escaped(words.everythingWell))">\(problems)</ul>
            <div class="actions">\(actions)</div>
            <h2>\(escaped(words.sayNow))</h2>
            <form method="post" action="/act"><input type="hidden" name="token" value="\(escaped(changeToken))">
            <input type="hidden" name="action" value="show">
            <label for="text">\(escaped(words.text))</label><input id="text" name="text" maxlength="500" required>
            <label for="minutes">\(escaped(words.minutes))</label>
            <input id="minutes" name="minutes" type="number" min="1" max="1440" value="30">
            <label class="check"><input type="checkbox" name="speak" value="on"> \(escaped(words.heard))</label>
            <button>\(escaped(words.send))</button></form>
            <script type="application/json" id="now">\(escapedJSON(now))</script>
            """)
    }

    static func reminders(_ words: PageWords, today: [SoundStatus.Reminder], earlier: [SoundStatus.Reminder],
                          problem: String?) -> String {
        func table(_ rows: [SoundStatus.Reminder]) -> String {
            guard !rows.isEmpty else { return "<p>\(escaped(words.noReminders))</p>" }
            return "<table><thead><tr><th>\(escaped(words.due))</th><th>\(escaped(words.what))</th><th>\(escaped(words.became))</th></tr></thead><tbody>"
                + rows.map { row in
                    let when = row.trigger.dropFirst(5).prefix(11).replacing("T", with: " ")
                    var became = words.outcome(row.outcome)
                    if let by = row.acknowledgedBy { became += " (\(words.by) \(by), \(ScreenStatus.clock(row.at)))" }
                    if let why = row.why { became += ": \(why)" }
                    return "<tr class=\"\(escaped(row.outcome.replacing(" ", with: "-")))\"><td>\(escaped(String(when)))</td>"
                        + "<td>\(escaped(row.text))</td><td>\(escaped(became))</td></tr>"
                }.joined() + "</tbody></table>"
        }
        return document(words, title: words.reminders, signedIn: true, body: """
            <h1>\(escaped(words.reminders))</h1>
            \(problem.map { "<p class=\"problem\" role=\"alert\">\(escaped($0))</p>" } ?? "")
            <h2>\(escaped(words.today))</h2>\(table(today))
            <h2>\(escaped(words.lastWeek))</h2>\(table(earlier))
            """)
    }

    /// The carer's written reminders, each with its way of coming back, a change and a removal;
    /// then the form, for a new one or the one being changed (`form`: what was typed, shown
    /// again with `problem` when it was refused; `holdsVoice`: with the voice just recorded).
    static func write(_ words: PageWords, _ reminders: [WrittenReminder], editing: WrittenReminder?,
                      form: WrittenCalendar.Form?, today: String, holdsVoice: Bool, changeToken: String, problem: String?,
                      notice: String?) -> String {
        let token = "<input type=\"hidden\" name=\"token\" value=\"\(escaped(changeToken))\">"
        let list = reminders.isEmpty ? "<p>\(escaped(words.noneWritten))</p>" : "<ul id=\"written\">" + reminders.map { reminder in
            var when = words.repetitions[reminder.repetition.rawValue] ?? reminder.repetition.rawValue
            if reminder.repetition == .weekly {
                when += ": " + reminder.weekdays.compactMap { WrittenCalendar.weekdays.firstIndex(of: $0).map { words.weekdayNames[$0] } }
                    .joined(separator: ", ")
            }
            when += ", \(reminder.day)" + (reminder.time.map { " \($0)" } ?? "")
            var marks: [String] = []
            if reminder.recording != nil { marks.append(words.hasVoice) } else if reminder.heard { marks.append(words.heardAloud) }
            if reminder.urgent { marks.append(words.urgent) }
            return "<li><b>\(escaped(reminder.text))</b><br>\(escaped(when))"
                + marks.map { "<br><small>\(escaped($0))</small>" }.joined()
                + "<div class=\"row\"><a class=\"button\" href=\"/write?edit=\(escaped(reminder.id))\">\(escaped(words.change))</a>"
                + "<form method=\"post\" action=\"/write\">\(token)<input type=\"hidden\" name=\"id\" value=\"\(escaped(reminder.id))\">"
                + "<input type=\"hidden\" name=\"remove\" value=\"on\"><button class=\"quiet\">\(escaped(words.removeIt))</button></form></div></li>"
        }.joined() + "</ul>"
        let typed = form ?? editing.map { reminder in
            WrittenCalendar.Form(text: reminder.text, day: reminder.day, time: reminder.time ?? "", repetition: reminder.repetition.rawValue,
                                 weekdays: reminder.weekdays, minutes: reminder.minutes, heard: reminder.heard, urgent: reminder.urgent)
        } ?? WrittenCalendar.Form(text: "", day: today, time: "", repetition: "once", weekdays: [], minutes: 30, heard: true, urgent: false)
        let repetitions = WrittenReminder.Repetition.allCases.map { repetition in
            "<option value=\"\(repetition.rawValue)\"\(typed.repetition == repetition.rawValue ? " selected" : "")>"
                + "\(escaped(words.repetitions[repetition.rawValue] ?? repetition.rawValue))</option>"
        }.joined()
        let days = zip(WrittenCalendar.weekdays, words.weekdayNames).map { code, name in
            "<label class=\"check\"><input type=\"checkbox\" name=\"\(code)\" value=\"on\"\(typed.weekdays.contains(code) ? " checked" : "")> \(escaped(name))</label>"
        }.joined()
        func box(_ name: String, _ label: String, _ on: Bool) -> String {
            "<label class=\"check\"><input type=\"checkbox\" name=\"\(name)\" value=\"on\"\(on ? " checked" : "")> \(escaped(label))</label>"
        }
        let keeps = editing?.recording != nil
        let voice = """
            <fieldset id="voice" data-token="\(escaped(changeToken))" data-working="\(escaped(words.recordingWorking))" \
            data-recorded="\(escaped(words.recorded))" data-norecorder="\(escaped(words.noRecorder))">
            <legend>\(escaped(words.voice))</legend>
            <input type="hidden" id="voicefield" name="voice" value="\(holdsVoice ? "new" : keeps ? "keep" : "")">
            \(keeps ? "<p id=\"hasvoice\">\(escaped(words.hasVoice))</p>" : "")
            <button type="button" id="record" hidden>\(escaped(words.record))</button>
            <button type="button" id="stop" hidden>\(escaped(words.stopRecording))</button>
            <label for="voicefile">\(escaped(words.pickRecording))</label>
            <input id="voicefile" type="file" accept="audio/*" capture>
            <p id="voicestate" role="status"></p>
            \(keeps ? box("dropvoice", words.dropVoice, false) : "")
            </fieldset>
            """
        return document(words, title: words.write, signedIn: true, body: """
            <h1>\(escaped(words.writeHeading))</h1>
            \(notice.map { "<p class=\"notice\" role=\"status\">\(escaped($0))</p>" } ?? "")
            \(list)
            <h2 id="form">\(escaped(editing == nil ? words.newReminder : words.changeReminder))</h2>
            \(problem.map { "<p class=\"problem\" role=\"alert\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="/write" id="writeform">\(token)
            \(editing.map { "<input type=\"hidden\" name=\"id\" value=\"\(escaped($0.id))\">" } ?? "")
            <label for="text">\(escaped(words.whatItSays))</label>
            <input id="text" name="text" maxlength="255" required value="\(escaped(typed.text))">
            <small>\(escaped(words.wordsHint))</small>
            <label for="day">\(escaped(words.day))</label><input id="day" name="day" type="date" required value="\(escaped(typed.day))">
            <label for="time">\(escaped(words.time))</label><input id="time" name="time" type="time" value="\(escaped(typed.time))">
            <label for="repetition">\(escaped(words.repeats))</label><select id="repetition" name="repetition">\(repetitions)</select>
            <div class="days">\(days)</div>
            <label for="minutes">\(escaped(words.showsFor))</label>
            <input id="minutes" name="minutes" type="number" min="1" max="1440" value="\(typed.minutes ?? 30)">
            \(box("heard", words.heardAloud, typed.heard))\(box("urgent", words.urgent, typed.urgent))
            \(voice)
            <button id="save">\(escaped(words.save))</button></form>
            """)
    }

    /// Each calendar the box reads (a file or folder, and each subscription, its address's
    /// secrets hidden as the status hides them) with its state, its events, when it was last
    /// read, and its problems as `marquee check` words them (file and line).
    static func calendars(_ words: PageWords, feeds: [StatusReport.Feed], subscriptions: [SubscriptionStatus],
                          uploaded: UploadedCalendars?, changeToken: String, notice: String?, problem: String? = nil) -> String {
        let token = "<input type=\"hidden\" name=\"token\" value=\"\(escaped(changeToken))\">"
        func problems(_ lines: [String]) -> String {
            lines.isEmpty ? "" : "<ul>" + lines.map { "<li class=\"problem\">\(escaped($0))</li>" }.joined() + "</ul>"
        }
        // A subscription's calendar is read as a feed named by its address: listed once, with
        // the subscriptions, its reading's problems beside its fetching's.
        let fetched = Dictionary(feeds.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let shownAddresses = Set(subscriptions.map(\.address))
        let files = feeds.filter { !shownAddresses.contains($0.path) }.map { feed in
            let state = feed.state == "loaded" ? words.calendarRead
                : feed.lastGoodKept ? words.calendarKeptEarlier : words.calendarUnusable
            // The box's own calendars by what they are, not by their place in the state folder.
            let name = SaidNow.isSaidNow(feed.path) ? words.saidNowCalendar
                : feed.path.hasSuffix("/written/" + WrittenCalendar.fileName) ? words.writtenCalendar : feed.path
            let fileName = String(feed.path.split(separator: "/").last ?? "")
            let remove = uploaded?.holds(feed.path) == true ? "<form method=\"post\" action=\"/calendars/remove\">\(token)"
                + "<input type=\"hidden\" name=\"name\" value=\"\(escaped(fileName))\"><button class=\"quiet\">"
                + "\(escaped(words.removeIt))</button></form>" : ""
            return "<li><b>\(escaped(name))</b><br>\(escaped(state)), \(feed.events) \(escaped(feed.events == 1 ? words.event : words.events))"
                + problems(feed.problems) + remove + "</li>"
        }.joined()
        let addresses = subscriptions.map { subscription in
            var said = subscription.lastSuccess.map { "\(words.lastRead) \(ScreenStatus.clock($0))" } ?? words.neverRead
            if let events = subscription.events { said += ", \(events) \(events == 1 ? words.event : words.events)" }
            let remove = "<form method=\"post\" action=\"/calendars/unsubscribe\">\(token)<input type=\"hidden\" "
                + "name=\"address\" value=\"\(escaped(subscription.address))\"><button class=\"quiet\">\(escaped(words.removeIt))</button></form>"
            return "<li><b>\(escaped(subscription.address))</b><br>\(escaped(said))"
                + problems((subscription.error.map { [$0] } ?? []) + (fetched[subscription.address]?.problems ?? [])) + remove + "</li>"
        }.joined()
        return document(words, title: words.calendars, signedIn: true, body: """
            <h1>\(escaped(words.calendars))</h1>
            \(notice.map { "<p class=\"notice\" role=\"status\">\(escaped($0))</p>" } ?? "")
            \(problem.map { "<p class=\"problem\" role=\"alert\">\(escaped($0))</p>" } ?? "")
            \(uploaded == nil ? "" : """
            <form id="upload" data-token="\(escaped(changeToken))" data-working="\(escaped(words.uploading))">
            <label for="calendarfile">\(escaped(words.uploadLabel))</label>
            <input id="calendarfile" type="file" accept=".ics,text/calendar" required>
            <button id="send">\(escaped(words.upload))</button><p id="uploadstate" role="status"></p></form>
            """)
            <h2>\(escaped(words.files))</h2><ul id="feeds" class="list">\(files.isEmpty ? "<li>\(escaped(words.noCalendars))</li>" : files)</ul>
            <h2>\(escaped(words.subscriptions))</h2>
            <ul id="subscriptions" class="list">\(addresses.isEmpty ? "<li>\(escaped(words.noSubscriptions))</li>" : addresses)</ul>
            <form method="post" action="/calendars/subscribe" id="subscribeform">\(token)
            <label for="address">\(escaped(words.subscriptionLabel))</label>
            <input id="address" name="address" type="url" inputmode="url" autocomplete="off" autocapitalize="off" spellcheck="false" required>
            <button id="subscribe">\(escaped(words.subscribe))</button></form>
            """)
    }

    /// The settings the page changes, in the form's order.
    static let settingKeys = [
        "language", "timezone", "morning", "afternoon", "evening", "night", "screen_off", "speak", "volume_day", "volume_night",
        "cec", "cec_standby", "reclaim_input",
    ]
    /// The settings chosen from a list (the first choice, empty, is the default).
    static let settingChoices: [String: [String]] = [
        "speak": ["", "alarms", "audio-only", "off"], "cec": ["", "auto", "off"], "cec_standby": ["", "true", "false"],
        "reclaim_input": ["", "true", "false"],
    ]

    /// The settings form: each setting as the configuration has it (empty: the default), with
    /// what it does and the default; then "play a test reminder" to hear the volume.
    static func settings(_ words: PageWords, file: String, values: [String: String], changeToken: String, problem: String?,
                         notice: String?) -> String {
        let token = "<input type=\"hidden\" name=\"token\" value=\"\(escaped(changeToken))\">"
        let fields = settingKeys.map { key in
            let (label, hint) = words.settingWords[key] ?? (key, "")
            let restart = ConfigurationKey.named(key)?.needsRestart == true ? ". " + words.takesARestart : ""
            let value = values[key] ?? ""
            let field: String
            if var choices = settingChoices[key] {
                // A value the file has that the list does not (a device for `cec`) stays a choice.
                if !choices.contains(value) { choices.append(value) }
                field = "<select id=\"\(key)\" name=\"\(key)\">" + choices.map { choice in
                    "<option value=\"\(escaped(choice))\"\(choice == value ? " selected" : "")>"
                        + "\(escaped(choice.isEmpty ? words.byDefault : words.choiceWords[choice] ?? choice))</option>"
                }.joined() + "</select>"
            } else {
                let kind = key.hasPrefix("volume") ? " type=\"number\" min=\"0\" max=\"100\"" : ""
                field = "<input id=\"\(key)\" name=\"\(key)\"\(kind) value=\"\(escaped(value))\" placeholder=\"\(escaped(hint))\">"
            }
            return "<label for=\"\(key)\">\(escaped(label))</label>" + field + "<small>\(escaped(hint + restart))</small>"
        }.joined()
        return document(words, title: words.settings, signedIn: true, body: """
            <h1>\(escaped(words.settings))</h1>
            \(notice.map { "<p class=\"notice\" role=\"status\">\(escaped($0))</p>" } ?? "")
            \(problem.map { "<p class=\"problem\" role=\"alert\">\(escaped($0))</p>" } ?? "")
            <p>\(escaped(words.settingsNote.replacing("{file}", with: file)))</p>
            <form method="post" action="/settings" id="settingsform">\(token)\(fields)
            <button id="keepsettings">\(escaped(words.keepSettings))</button></form>
            <form method="post" action="/act">\(token)<input type="hidden" name="action" value="test">
            <button id="testreminder">\(escaped(words.testReminderButton))</button></form>
            """)
    }

    static func box(_ words: PageWords, _ box: BoxView) -> String {
        let days = box.uptimeSeconds / 86_400, hours = box.uptimeSeconds % 86_400 / 3_600, minutes = box.uptimeSeconds % 3_600 / 60
        let uptime = days > 0 ? "\(days) \(words.days), \(hours) \(words.hours)" : "\(hours) \(words.hours), \(minutes) \(words.minutesShort)"
        func gigabytes(_ bytes: UInt64) -> String { String(Double(bytes / 100_000_000) / 10) + " GB" }
        let disk = box.disk.map { "\(gigabytes($0.free)) \(words.freeOf) \(gigabytes($0.total))" } ?? "?"
        let parts = box.parts.map { part in
            let state = part.state == .running ? words.partRunning : part.state == .failed ? words.partFailed : words.partStopped
            return "<li class=\"\(part.state.rawValue)\">\(escaped(part.name)): <b>\(escaped(state))</b>"
                + (part.lastError.map { " (\(escaped($0)))" } ?? "") + "</li>"
        }.joined()
        let problems = box.problems.isEmpty ? "<li class=\"well\">\(escaped(words.everythingWell))</li>"
            : box.problems.map { "<li class=\"problem\">\(escaped($0))</li>" }.joined()
        return document(words, title: words.theBox, signedIn: true, body: """
            <h1>\(escaped(words.theBox))</h1>
            <dl><dt>\(escaped(words.version))</dt><dd id="version">marquee \(escaped(box.version))</dd>
            <dt>\(escaped(words.runningFor))</dt><dd id="uptime">\(escaped(uptime))</dd>
            <dt>\(escaped(words.disk))</dt><dd id="disk">\(escaped(disk))</dd></dl>
            <h2>\(escaped(words.problems))</h2><ul id="problems">\(problems)</ul>
            <h2>\(escaped(words.parts))</h2><ul id="parts">\(parts)</ul>
            """)
    }

    /// JSON for inside a `<script type="application/json">` (a `</script>` in a message's text
    /// cannot end it).
    static func escapedJSON(_ now: PageNow) -> String {
        json(now).replacing("<", with: "\\u003c")
    }

    static func json(_ now: PageNow) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? String(decoding: encoder.encode(now), as: UTF8.self)) ?? "{}"
    }
}
