import Foundation

/// A tmux server of a test's own (`-L`), for programs that need a real terminal.
struct Tmux {
    let server = "marquee-test-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux command on this server and returns what it printed. Spawned and reaped
    /// directly: the daemonizing `new-session` client confuses Foundation's `Process`
    /// bookkeeping. Only the standard streams are passed on: the tmux server outlives the
    /// command, and a pipe of another test's it held open would never reach its end.
    @discardableResult
    func callAsFunction(_ arguments: String...) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = (["/usr/bin/tmux", "-L", server] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = quoted.joined(separator: " ") + " > '\(output.path)' 2>/dev/null < /dev/null"
        var pid: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        Self.closeOnExec()
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw POSIXError(.ECHILD) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// Marks every descriptor of this process but the standard streams close-on-exec (a
    /// program that passes one on to a child names it itself, which clears the mark).
    private static func closeOnExec() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for descriptor in names.compactMap({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
