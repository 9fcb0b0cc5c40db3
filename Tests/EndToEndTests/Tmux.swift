import Foundation

/// A tmux server of a test's own (`-L`), for programs that need a real terminal.
struct Tmux {
    let server = "marquee-test-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux command on this server and returns what it printed. Spawned and reaped
    /// directly: the daemonizing `new-session` client confuses Foundation's `Process`
    /// bookkeeping.
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
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw POSIXError(.ECHILD) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
