import ArgumentParser
import Display

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee reset-console`: gives a virtual console back in text mode, with automatic
/// switching, the cursor and a clean screen — what the unit's ExecStopPost runs, whatever
/// happened to the ticker.
struct ResetConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-console", abstract: "Put a virtual console back in text mode (after the ticker stopped).")

    @Argument(help: "The console, e.g. /dev/tty1.")
    var tty: String

    func run() throws {
        let fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            standardError("marquee reset-console: \(tty): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
        defer { close(fd) }
        guard VirtualConsole(fd: fd) != nil else {
            standardError("marquee reset-console: \(tty) is not a virtual console")
            throw ExitCode(1)
        }
        VirtualConsole.reset(fd: fd)
        let restore = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?0c\u{1B}[?7h\u{1B}[2J\u{1B}[H".utf8)
        _ = restore.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
