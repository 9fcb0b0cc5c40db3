import ArgumentParser
import Daemon
import Display
import Schedule
import Sound
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee check`: validates feed files and reports every problem with file and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate feed files; exit 1 if any file is unusable.")

    @Argument(help: "Feed files, folders or calendar addresses (default: the configured feeds and subscriptions).")
    var paths: [String] = []

    @OptionGroup var feedOptions: FeedOptions

    @Flag(name: .long, help: "One JSON object per file or address: path, state (ok or unusable), events, problems (severity, line, message).")
    var json = false

    func run() async throws {
        if try await !check() { throw ExitCode(1) }
    }

    /// What `check` found of one file, folder or address.
    struct Report: Encodable {
        struct Problem: Encodable {
            var severity: String
            var line: Int?
            var message: String
        }

        var path: String
        var state: String
        var events: Int
        var problems: [Problem]
    }

    /// Prints the report; false if any file is unusable.
    private func check() async throws -> Bool {
        let configuration = try feedOptions.configurationFile()
        var options = feedOptions
        if !paths.isEmpty {
            options.feeds = paths
        } else if options.feeds.isEmpty, let state = configuration.stateDirectory {
            // The reminders a carer wrote on the page and the calendars uploaded there are
            // judged like any calendar.
            let written = WrittenCalendar(stateFolder: state).folder + "/" + WrittenCalendar.fileName
            let uploaded = UploadedCalendars(stateFolder: state).folder
            let own = [written].filter { access($0, F_OK) == 0 }
                + (directoryEntries(uploaded) ?? []).filter { isFeedFileName($0.name) }.map { uploaded + "/" + $0.name }
            if !own.isEmpty { options.feeds = [configuration.feeds ?? defaultFeeds] + configuration.subscriptions + own }
        }
        // Read once, for now and the year ahead whose characters are checked.
        let loaded = try await options.openFeeds(
            configuration: configuration, at: nil, reportProblems: false, subscriptionFolder: nil, fetchNow: true,
            ahead: Self.charactersAhead)
        let schedule = loaded.schedule
        var reports: [Report] = []
        let feeds = await schedule.feeds
        // A folder with no calendar in it is a carer's mistake to be told of, not a silent "ok"
        // (the schedule says it of the first when there is no calendar at all).
        for path in loaded.paths where !feeds.contains(where: { $0.path == path }) {
            guard let entries = directoryEntries(path), !entries.contains(where: { isFeedFileName($0.name) }) else { continue }
            let problem = noCalendarsProblem(in: path)
            reports.append(Report(path: path, state: "unusable", events: 0, problems: [Report.Problem(
                severity: problem.severity.rawValue, line: nil, message: problem.message)]))
        }
        for feed in feeds {
            reports.append(Report(
                path: feed.path, state: feed.state == .loaded ? "ok" : "unusable", events: feed.eventCount,
                problems: feed.problems.map { Report.Problem(severity: $0.severity.rawValue, line: $0.line, message: $0.message) }))
        }
        for subscription in await loaded.subscriptions?.statuses() ?? [] where subscription.lastSuccess == nil {
            reports.append(Report(path: subscription.address, state: "unusable", events: 0, problems: [Report.Problem(
                severity: "error", line: nil, message: subscription.error ?? "not fetched")]))
        }
        let start = loaded.instant
        let agenda = await schedule.agenda(
            from: start, to: Instant(secondsSinceEpoch: start.secondsSinceEpoch + Self.charactersAhead), limit: 20_000)
        let missing = charactersNoFontHas(agenda, style: DisplayOptions.style(configuration))
        var warnings = missing.warnings + recordingsThatCannotPlay(agenda, configuration: configuration)
        // A calendar all in the past reads well and shows nothing: worth a word.
        if agenda.stop == nil {
            let shown = Set(agenda.entries.map(\.message.source))
            for feed in feeds where feed.state == .loaded && feed.eventCount > 0 && !shown.contains(feed.path) {
                warnings.append((feed.path, "nothing in it shows in the coming year (its events are over)"))
            }
        }
        for (source, message) in warnings {
            if let index = reports.firstIndex(where: { $0.path == source }) {
                reports[index].problems.append(Report.Problem(severity: "warning", line: nil, message: message))
            }
        }
        for index in reports.indices {
            if let unreadable = unreadableByTheService(reports[index].path) {
                reports[index].state = "unusable"
                reports[index].problems.append(Report.Problem(severity: "error", line: nil, message: unreadable))
            }
        }
        if json {
            for report in reports { print(try jsonLine(report)) }
        } else {
            for report in reports { tell(report) }
            if let note = missing.note { say(note) }
        }
        return reports.allSatisfy { $0.state == "ok" }
    }

    /// A report as lines for a person: each problem where it is, then the verdict.
    private func tell(_ report: Report) {
        for problem in report.problems {
            say("\(report.path)" + (problem.line.map { ":\($0)" } ?? "") + ": \(problem.severity): \(problem.message)")
        }
        if report.state == "ok" {
            let warnings = report.problems.isEmpty ? "" : " with \(report.problems.count) warning(s)"
            say("\(report.path): ok, \(report.events) event(s)\(warnings)")
        } else {
            say("\(report.path): unusable")
        }
    }

    /// The recordings the coming year's audio alarms (`agenda`) attach that the box cannot play
    /// (missing, damaged, too long, not beside the calendar, not at their address), once each,
    /// with their calendar.
    private func recordingsThatCannotPlay(_ agenda: Agenda, configuration: ConfigurationFile) -> [(String, String)] {
        var tried: Set<[AnyHashable]> = []
        var found: [(String, String)] = []
        for entry in agenda.entries where entry.change != .end {
            guard let sounding = entry.message.sounding, sounding.attachment != nil || sounding.embedded != nil,
                  tried.insert([entry.message.source, sounding.attachment, sounding.embedded]).inserted,
                  let problem = AttachedRecording.problem(
                      of: sounding, calendar: entry.message.source,
                      certificateAuthorities: configuration.subscriptionCertificateAuthorities)
            else { continue }
            found.append((entry.message.source, "\(problem); the reminder is spoken instead"))
        }
        return found
    }

    /// The characters in the coming year's messages (`agenda`) that the framebuffer has no font
    /// for (it leaves them out): each once, with the first message it is in, by the file it came
    /// from; or a note that there is no font to check against.
    private func charactersNoFontHas(
        _ agenda: Agenda, style: FramebufferStyle
    ) -> (warnings: [(source: String, message: String)], note: String?) {
        guard let fonts = try? FontStack(paths: style.fontPaths, pixelSize: 32) else {
            return ([], "no framebuffer font to check the messages' characters against (\(style.fontPaths.first ?? "none"))")
        }
        var seen: Set<String> = []
        var warnings: [(source: String, message: String)] = []
        for entry in agenda.entries where entry.change != .end && seen.insert(entry.message.text).inserted {
            _ = fonts.layout(entry.message.text)
            for character in fonts.takeMissing() {
                warnings.append((entry.message.source, "\(FontStack.noFontHas(character)) in \"\(entry.message.text)\"; "
                    + "the framebuffer leaves it out"))
            }
        }
        return (warnings, nil)
    }

    /// Run as root, why the service's user (`marquee`, when it exists) could not read `path`
    /// (root reads everything, so a 0600 file passed although the service never could); nil
    /// when it could, or when not run as root.
    private func unreadableByTheService(_ path: String) -> String? {
        guard geteuid() == 0, path.hasPrefix("/"), getpwnam(Self.serviceUser) != nil else { return nil }
        return whyUnreadable(path, byUser: Self.serviceUser).map {
            "the service's user \(Self.serviceUser) \($0); `sudo chmod a+r` it, or give it to the group \(Self.serviceUser)"
        }
    }

    /// The user the installed service runs as (`User=` in marquee.service).
    static let serviceUser = "marquee"

    /// How far ahead the messages' characters are checked, in seconds: a year and a day.
    static let charactersAhead: Int64 = 366 * 86_400
}
