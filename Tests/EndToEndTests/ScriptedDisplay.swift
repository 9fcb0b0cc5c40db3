import Foundation
import LoopbackServers
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee run` in a terminal of its own (script's pseudo-terminal), its clock started at `at`,
/// reading `folder`/feeds and `folder`/marquee.toml, answering on `folder`/marquee.sock.
final class ScriptedDisplay {
    let script: Spawned
    /// Its input stays open: an end of input would be a key on the pseudo-terminal.
    private let input: (read: Int32, write: Int32)

    init(folder: String, at: String) throws {
        let command = [CommandLineTests.binary, "run", "--feeds", folder + "/feeds", "--config", folder + "/marquee.toml",
                       "--socket", folder + "/marquee.sock", "--timezone", "UTC", "--at", at]
        input = try Spawned.pipe()
        script = try Spawned("/usr/bin/script", ["-qfec", "exec " + command.map { "'\($0)'" }.joined(separator: " "), "/dev/null"],
                             environment: ["TZ": "UTC", "PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"],
                             input: input.read)
    }

    deinit {
        close(input.read)
        close(input.write)
    }

    /// SIGKILL to marquee (the child script runs it as), then to script; both waited for.
    func kill() {
        _ = waitUntil(within: .seconds(10)) { TerminalTests.child(of: script.pid) != nil || !script.isRunning }
        if let marquee = TerminalTests.child(of: script.pid) { Glibc.kill(marquee, SIGKILL) }
        _ = waitUntil(within: .seconds(10)) { !script.isRunning }
        script.send(SIGKILL)
        script.wait()
    }
}
