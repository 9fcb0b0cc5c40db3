import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program the tests start, given its standard streams and no other descriptor of the test
/// process. Foundation's `Process` lets a child inherit whatever another thread has open at
/// that moment — among it the socket by which Foundation learns that another child ended: a
/// long-lived child (nginx, mosquitto, tmux) that inherited one kept that child from ever being
/// reaped, and the test waiting for it waited for ever.
package final class Spawned: Sendable {
    package let pid: pid_t
    /// How it ended (the wait status), once it has been reaped.
    private let ended = Mutex<Int32?>(nil)

    /// Starts `executable`; each stream is a descriptor of this process (nil: /dev/null).
    /// `environment` nil: this process's.
    package init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Int32? = nil,
        output: Int32? = nil, errors: Int32? = nil, directory: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (given, stream) in [(input, Int32(0)), (output, 1), (errors, 2)] {
            if let given {
                posix_spawn_file_actions_adddup2(&actions, given, stream)
            } else {
                posix_spawn_file_actions_addopen(&actions, stream, "/dev/null", stream == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        if let directory { mq_spawn_chdir(&actions, directory) }
        mq_spawn_close_others(&actions)
        // No signal blocked, whatever the starting thread blocks (a test's thread blocks SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let settings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
        let envp: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
    }

    /// Whether it still runs (an ended one is reaped).
    package var isRunning: Bool { reap(waiting: false) == nil }

    /// Waits for its end: its exit status, or 128 + the signal that ended it.
    @discardableResult
    package func wait() -> Int32 {
        let status = reap(waiting: true) ?? 0
        return signal(of: status).map { 128 + $0 } ?? (status >> 8) & 0xFF
    }

    /// The signal that ended it (nil: it exited, or runs still).
    package var endingSignal: Int32? { reap(waiting: false).flatMap(signal(of:)) }

    /// Sends `signal` if it has not been reaped (its pid is not someone else's yet).
    package func send(_ signal: Int32) {
        ended.withLock { if $0 == nil { _ = kill(pid, signal) } }
    }

    private func signal(of status: Int32) -> Int32? { status & 0x7F == 0 ? nil : status & 0x7F }

    private func reap(waiting: Bool) -> Int32? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &status, waiting ? 0 : WNOHANG) } while reaped < 0 && errno == EINTR
            guard reaped == pid else { return nil }
            ended = status
            return status
        }
    }

    /// A pipe whose ends no child inherits unless handed one (close-on-exec).
    package static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard mq_pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        return (ends[0], ends[1])
    }

    /// Runs `executable` to its end: its exit status (128 + a signal) and what it wrote on
    /// standard output and standard error (`mergingErrors`: both in `output`, interleaved).
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        mergingErrors: Bool = false
    ) throws -> (status: Int32, output: [UInt8], errors: [UInt8]) {
        let output = try pipe()
        let errors: (read: Int32, write: Int32)
        do {
            errors = try pipe()
        } catch {
            close(output.read); close(output.write)
            throw error
        }
        defer { close(output.read); close(errors.read) }
        let child: Spawned
        do {
            defer { close(output.write); close(errors.write) }
            child = try Spawned(executable, arguments, environment: environment, output: output.write,
                                errors: mergingErrors ? output.write : errors.write, directory: directory)
        }
        let (said, complained) = readBoth(output.read, errors.read)
        return (child.wait(), said, complained)
    }

    /// Everything written to two pipes until both end, read as it comes (a child that fills
    /// one while the other is read is never stuck).
    private static func readBoth(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var results: [[UInt8]] = [[], []]
        var open = [first, second]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            var watched = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&watched, 2, -1) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where open[index] >= 0 && watched[index].revents != 0 {
                let count = read(open[index], &buffer, buffer.count)
                if count > 0 {
                    results[index] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = -1
                }
            }
        }
        return (results[0], results[1])
    }
}
