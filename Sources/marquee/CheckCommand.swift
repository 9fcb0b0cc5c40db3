import ArgumentParser
import Daemon
import Schedule

/// `marquee check`: validates feed files and reports every problem with file and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate feed files; exit 1 if any file is unusable.")

    @Argument(help: "Feed files or folders.")
    var paths: [String]

    @Option(name: .long, help: "The display's time zone (default: the system's).")
    var timezone: String?

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one feed file or folder") }
    }

    func run() async throws {
        if try await !check() { throw ExitCode(1) }
    }

    /// Prints the report; false if any file is unusable.
    @ICalActor private func check() throws -> Bool {
        let schedule: Schedule
        do {
            schedule = try Schedule(
                displayZone: timezone ?? SystemTimeZone.name(environment: environment()), reader: feedReader)
        } catch {
            throw ValidationError("\(error)")
        }
        // Loading expands the coming two years, which surfaces recurrence problems.
        schedule.load(paths, around: now())
        var usable = true
        for feed in schedule.feeds {
            for problem in feed.problems { print(problem) }
            switch feed.state {
            case .loaded:
                let warnings = feed.problems.isEmpty ? "" : " with \(feed.problems.count) warning(s)"
                print("\(feed.path): ok, \(feed.eventCount) event(s)\(warnings)")
            case .failed:
                usable = false
                print("\(feed.path): unusable")
            }
        }
        return usable
    }
}
