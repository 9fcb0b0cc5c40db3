import ArgumentParser
import Daemon
import Schedule

/// `marquee check`: validates feed files and reports every problem with file and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate feed files; exit 1 if any file is unusable.")

    @Argument(help: "Feed files or folders (default: the configured feeds).")
    var paths: [String] = []

    @OptionGroup var feedOptions: FeedOptions

    func run() async throws {
        if try await !check() { throw ExitCode(1) }
    }

    /// Prints the report; false if any file is unusable.
    private func check() async throws -> Bool {
        let configuration = try feedOptions.configurationFile()
        let schedule: Schedule
        do {
            schedule = try await Schedule(displayZone: feedOptions.displayZone(configuration), reader: feedReader)
        } catch {
            throw ValidationError("\(error)")
        }
        await schedule.load(paths.isEmpty ? [feedOptions.feedPath(configuration)] : paths, around: now())
        var usable = true
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
        return usable
    }
}
