import ArgumentParser
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee`: the scheduled-message ticker and its tools.
@main struct Marquee: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scheduled messages from iCalendar feeds, for calendar displays.",
        version: marqueeVersion,
        subcommands: [
            RunCommand.self, StatusCommand.self, PauseCommand.self, ResumeCommand.self, ReloadCommand.self,
            AcknowledgeCommand.self, MuteCommand.self, UnmuteCommand.self, ShowCommand.self, WakeCommand.self, SayCommand.self,
            MessagesCommand.self, RemindersCommand.self, WebPasswordCommand.self, SetupCommand.self,
            AgendaCommand.self, CheckCommand.self, SnapshotCommand.self, ResetConsoleCommand.self, ReadFeedCommand.self,
        ])

    /// Runs the command; usage errors exit 2 (not ArgumentParser's 64), as the CLI contract says.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                standardError(fullMessage(for: error))
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// The release, as `marquee --version` prints it: the newest entry of `debian/changelog`, whose
/// version the Debian package carries (`scripts/build-deb` refuses a binary that disagrees).
let marqueeVersion = "0.10.0"

/// A message on standard error, written in one call, its control characters escaped (it may
/// hold text from a calendar file) but for the line breaks between its lines.
func standardError(_ message: String) {
    let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
    var bytes = Array((lines.map { String($0).withControlCharactersEscaped }.joined(separator: "\n") + "\n").utf8)
    bytes.withUnsafeMutableBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// One line of human-readable output, its control characters escaped (it may hold text from
/// a calendar file or a file name).
func say(_ line: String) {
    print(line.withControlCharactersEscaped)
}
