import Schedule
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One line per event on stderr, with the priority prefix journald reads (`<3>` … `<6>`)
/// when stderr is the journal. Silent when stderr is the terminal the ticker draws on. An
/// identical line repeated within a minute is held back and counted.
package final class EventLog: Sendable {
    package enum Level: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6
    }

    static let repeatWindow: Int64 = 60_000_000_000

    /// False when the log would write onto the terminal the ticker draws on.
    package let isEnabled: Bool
    private let journal: Bool
    private let descriptor: Int32
    private let recent = Mutex<[String: (last: Int64, held: Int)]>([:])
    /// The problems last logged for each feed: a version with the same ones is not logged again.
    private let loggedProblems = Mutex<[String: [String]]>([:])
    /// A feed's problems logged one by one; the rest are counted.
    static let problemsLogged = 5

    /// - Parameters:
    ///   - descriptor: where lines go (stderr).
    ///   - display: the terminal the ticker draws on (stdout).
    package init(environment: [String: String], descriptor: Int32 = STDERR_FILENO, display: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        var error = stat()
        var output = stat()
        let sameTerminal = isatty(descriptor) == 1 && fstat(descriptor, &error) == 0
            && fstat(display, &output) == 0 && error.st_rdev == output.st_rdev
        isEnabled = !sameTerminal
        if let stream = environment["JOURNAL_STREAM"], fstat(descriptor, &error) == 0 {
            journal = stream == "\(error.st_dev):\(error.st_ino)"
        } else {
            journal = false
        }
    }

    package func log(_ level: Level, _ message: String) {
        guard isEnabled else { return }
        let now = readClock(CLOCK_MONOTONIC)
        let held: Int? = recent.withLock { recent in
            if let previous = recent[message], now - previous.last < Self.repeatWindow {
                recent[message] = (previous.last, previous.held + 1)
                return nil
            }
            let count = recent[message]?.held ?? 0
            recent[message] = (now, 0)
            if recent.count > 1000 { recent = recent.filter { now - $0.value.last < Self.repeatWindow } }
            return count
        }
        guard let held else { return }
        let repeats = held > 0 ? " (and \(held) more times in the last minute)" : ""
        var line = Array(((journal ? "<\(level.rawValue)>" : "") + message.withControlCharactersEscaped + repeats + "\n").utf8)
        line.withUnsafeMutableBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
    }

    /// A message for whoever started marquee, at a moment nothing is drawn on its terminal
    /// (before the ticker starts or after it stopped): the log line, or when the log is silent
    /// because that terminal is the display, the line on it as `marquee: …`.
    func tell(_ level: Level, _ message: String) {
        guard !isEnabled else { return log(level, message) }
        var line = Array("marquee: \(level == .warning ? "warning: " : "")\(message.withControlCharactersEscaped)\n".utf8)
        line.withUnsafeMutableBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Every feed's state and problems, as after a (re)load: a feed's problems once per set of
    /// them (a subscription fetched again with the same 20,000 warnings floods nothing), the
    /// first few one by one and how many more there are.
    package func feeds(_ statuses: [FeedStatus]) {
        for status in statuses {
            let problems = status.problems.map(\.description)
            let isNew = loggedProblems.withLock { logged in
                defer { logged[status.path] = problems }
                return logged[status.path] != problems
            }
            if isNew {
                for problem in status.problems.prefix(Self.problemsLogged) {
                    log(problem.severity == .error ? .error : .warning, problem.description)
                }
                if problems.count > Self.problemsLogged {
                    let errors = status.problems.dropFirst(Self.problemsLogged).filter { $0.severity == .error }.count
                    log(errors > 0 ? .error : .warning, "\(status.path): \(problems.count - Self.problemsLogged) more problems "
                        + "(\(errors) errors); `marquee check \(status.path)` lists them all")
                }
            }
            switch status.state {
            case .loaded:
                log(.info, "\(status.path): loaded, \(status.eventCount) event(s)")
            case .failed(let kept):
                log(.error, "\(status.path): unusable; " + (kept ? "its last good version stays in effect" : "nothing earlier to keep"))
            }
        }
    }
}
