import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Schedule

/// A fetched calendar is inspected beside the schedule, never on its actor.
@Suite(.temporaryFolders) struct InspectionTests {
    /// While a big calendar is being read (a reader that takes its time), the messages of now
    /// are answered at once: the display never waits behind a fetch.
    @Test func theMessagesOfNowNeverWaitBehindAnInspection() async throws {
        let folder = try feedFolder([:])
        let started = folder + "/reader-started", released = folder + "/reader-released"
        // A reader that says it has begun, then waits for the test and answers nothing. (At most
        // 40 minutes: in a full run the snapshot waits for a thread while other suites block
        // theirs — the kiosk test one for 15 minutes; the bound only ends a broken run.)
        let slowReader = FeedReader.helper(executable: "/bin/sh", arguments: [
            "-c", "touch '\(started)'; for i in $(seq 24000); do [ -e '\(released)' ] && exit 1; sleep 0.1; done"])
        // The reader's deadlines are the test's too: a slow run must not end it early (it
        // sleeps: without them it would be stopped as blocked after 2 s).
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 3_600
        limits.maximumStalledSeconds = 3_600
        let schedule = try await Schedule(displayZone: "UTC", limits: limits, reader: slowReader, orientation: OrientationSettings())
        let inspected = Mutex(false)
        let inspection = Task {
            let result = await schedule.inspect(Array(calendar(event("DTSTART:20261125T090000Z", "SUMMARY:Big")).utf8),
                                                name: "https://example.org/big.ics")
            inspected.withLock { $0 = true }
            return result
        }
        while !FileManager.default.fileExists(atPath: started) { try await Task.sleep(for: .milliseconds(10)) }
        let now = await schedule.snapshot(at: Instant(secondsSinceEpoch: 1_795_600_000))
        #expect(!inspected.withLock { $0 }, "the messages waited for the inspection")
        #expect(FileManager.default.createFile(atPath: released, contents: nil))
        #expect(now.orientation?.hasPrefix("Wednesday") == true, "\(String(describing: now.orientation))")
        #expect(await inspection.value.problems.contains { $0.severity == .error })
    }
}
