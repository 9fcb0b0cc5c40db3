import ArgumentParser
import Daemon
import Display
import Schedule

/// `marquee check`: validates feed files and reports every problem with file and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate feed files; exit 1 if any file is unusable.")

    @Argument(help: "Feed files, folders or calendar addresses (default: the configured feeds and subscriptions).")
    var paths: [String] = []

    @OptionGroup var feedOptions: FeedOptions

    func run() async throws {
        if try await !check() { throw ExitCode(1) }
    }

    /// Prints the report; false if any file is unusable.
    private func check() async throws -> Bool {
        let configuration = try feedOptions.configurationFile()
        var options = feedOptions
        if !paths.isEmpty { options.feeds = paths }
        // Read once, for now and the year ahead whose characters are checked.
        let loaded = try await options.openFeeds(
            configuration: configuration, at: nil, reportProblems: false, subscriptionFolder: nil, fetchNow: true,
            ahead: Self.charactersAhead / 1_000_000_000)
        let start = loaded.instant
        let schedule = loaded.schedule
        var usable = true
        // A folder with no calendar in it is a carer's mistake to be told of, not a silent "ok".
        for path in loaded.paths {
            guard let entries = directoryEntries(path) else { continue }
            let names = entries.map(\.name).filter { !$0.hasPrefix(".") }
            guard !names.contains(where: isFeedFileName) else { continue }
            usable = false
            let near = names.filter { name in [".ical", ".ifb", ".icalendar", ".vcs"].contains { name.lowercased().hasSuffix($0) } }
            say("\(path): error: no calendar files (*.ics) in it"
                + (near.isEmpty ? "" : "; \(near.prefix(3).joined(separator: ", ")) would be read if named *.ics"))
        }
        for feed in await schedule.feeds {
            for problem in feed.problems { say("\(problem)") }
            switch feed.state {
            case .loaded:
                let warnings = feed.problems.isEmpty ? "" : " with \(feed.problems.count) warning(s)"
                say("\(feed.path): ok, \(feed.eventCount) event(s)\(warnings)")
            case .failed:
                usable = false
                say("\(feed.path): unusable")
            }
        }
        for subscription in await loaded.subscriptions?.statuses() ?? [] where subscription.lastSuccess == nil {
            usable = false
            say("\(subscription.address): error: \(subscription.error ?? "not fetched")")
            say("\(subscription.address): unusable")
        }
        await tellCharactersNoFontHas(schedule, from: start, style: DisplayOptions.style(configuration))
        return usable
    }

    /// Warns of characters in the coming year's messages that the framebuffer has no font for
    /// (it leaves them out): each once, with the first message and file it is in.
    private func tellCharactersNoFontHas(_ schedule: Schedule, from start: Instant, style: FramebufferStyle) async {
        guard let fonts = try? FontStack(paths: style.fontPaths, pixelSize: 32) else {
            say("no framebuffer font to check the messages' characters against (\(style.fontPaths.first ?? "none"))")
            return
        }
        let agenda = await schedule.agenda(from: start, to: Instant(nanoseconds: start.nanoseconds + Self.charactersAhead),
                                           limit: 20_000)
        var seen: Set<String> = []
        for entry in agenda.entries where entry.change != .end && seen.insert(entry.message.text).inserted {
            _ = fonts.layout(entry.message.text)
            for character in fonts.takeMissing() {
                say("\(entry.message.source): \(FontStack.noFontHas(character)) in \"\(entry.message.text)\"; "
                    + "the framebuffer leaves it out")
            }
        }
    }

    /// How far ahead the messages' characters are checked: a year and a day.
    static let charactersAhead: Int64 = 366 * 86_400 * 1_000_000_000
}
