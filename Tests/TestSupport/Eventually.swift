import Foundation

/// Waits until `condition` holds, looking every 10 ms, for at most `limit`; whether it held.
/// For what real time drives (inotify, a process, tmux): a fixed sleep is too long on a fast
/// machine and too short on a loaded one. The limit only keeps a broken test from hanging.
package func eventually(
    within limit: Duration = waitLimit, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let end = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// The limit for a condition that waits on a `Schedule`: it runs on libical's one actor, which
/// every test in the process shares, and some hold it for a minute at a time (FeedReaderTests
/// wait for helper processes on it; a loaded machine runs the hostile files slowly).
package let scheduleWaitLimit: Duration = .seconds(300)

/// How long `eventually` and `waitUntil` wait unless told: CI's machine has two cores and runs
/// the whole suite beside the QEMU kiosk and a release build, where a process of a test (marquee
/// in a tmux pane reading a 100 KB calendar) went without a processor for more than 30 s.
package let waitLimit: Duration = .seconds(120)

/// `eventually` for a test that is not async: the thread sleeps between looks.
package func waitUntil(within limit: Duration = waitLimit, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = ContinuousClock.now + limit
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= end { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

/// Whether process `pid` has ended: gone, or a zombie its parent has not collected (here the
/// container's first process may never collect it).
package func processHasEnded(_ pid: pid_t) -> Bool {
    let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))
        .flatMap { $0.split(separator: ")").last?.split(separator: " ").first }
    return state == nil || state == "Z"
}
