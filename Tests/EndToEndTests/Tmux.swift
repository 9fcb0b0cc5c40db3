import Foundation
import LoopbackServers

/// A tmux server of a test's own (`-L`), for programs that need a real terminal.
struct Tmux {
    let server = "marquee-test-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux command on this server and returns what it printed (through a file: the
    /// server that `new-session` leaves behind outlives the command).
    @discardableResult
    func callAsFunction(_ arguments: String...) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = (["/usr/bin/tmux", "-L", server] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        try Spawned("/bin/sh", ["-c", quoted.joined(separator: " ") + " > '\(output.path)' 2>/dev/null"]).wait()
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
