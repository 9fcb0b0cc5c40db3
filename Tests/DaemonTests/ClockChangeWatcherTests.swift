import Foundation
import Synchronization
import Testing

@testable import Daemon

/// A real clock step is noticed: the test sets CLOCK_REALTIME to its own current value (a
/// discontinuous set as far as the kernel is concerned, harmless to the machine). Needs
/// CAP_SYS_TIME, which the CI runner (root) has.
@Suite struct ClockChangeWatcherTests {
    @Test func settingTheClockIsNoticed() async throws {
        let changes = Mutex(0)
        let watcher = try ClockChangeWatcher { changes.withLock { $0 += 1 } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(changes.withLock { $0 } == 0)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        try #require(clock_settime(CLOCK_REALTIME, &now) == 0, "needs CAP_SYS_TIME")
        try await Task.sleep(for: .milliseconds(300))
        #expect(changes.withLock { $0 } == 1)
        // Re-armed: a second step is noticed too.
        clock_gettime(CLOCK_REALTIME, &now)
        _ = clock_settime(CLOCK_REALTIME, &now)
        try await Task.sleep(for: .milliseconds(300))
        #expect(changes.withLock { $0 } == 2)
        withExtendedLifetime(watcher) {}
    }
}
