import DaemonTestKit
import Foundation
import Support
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// The names of the objects let go, in order.
private final class Stops: Sendable {
    let names = Mutex<[String]>([])
}

/// An object a part holds (a watcher), which says when it is let go.
private final class Held: Sendable {
    let name: String
    let stops: Stops

    init(_ name: String, stops: Stops) {
        self.name = name
        self.stops = stops
    }

    deinit { stops.names.withLock { $0.append(name) } }
}

/// The box's running parts under one owner: a failure said once with what it costs and in the
/// status, the part started again after pauses that double; all of them ended together, and a
/// part that does not end in time named and left.
@Suite("The box's running parts", .tier(.live))
struct RunningPartsTests {
    @Test("One that fails is said, shown and started again; all end together")
    func failuresAreStateAndPartsEndTogether() async throws {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let state = DisplayState(clock: ManualClock(wall: instant("2026-11-23T10:00:00+01:00")))
        let stopped = Stops()
        // The pauses a part waits before it is started again pass at once.
        let clock = ManualClock(wall: instant("2026-11-23T10:00:00+01:00"), passingWaits: true)
        let parts = RunningParts(state: state, log: log, clock: clock)
        parts.start(.holding("watch the feeds", otherwise: "they show after a reload") { Held("feeds", stops: stopped) })
        // As when the machine's inotify watches are used up, three times, then it works.
        let attempts = Mutex(0)
        parts.start(.holding("watch /srv/feeds.d for changes", otherwise: "they show after a reload") {
            guard attempts.withLock({ $0 += 1; return $0 }) > 3 else { throw WatchError(errno: ENOSPC) }
            return Held("later", stops: stopped)
        })
        parts.start(RunningPart("fetch nothing", otherwise: "none", restarts: false) {
            throw PartFailure(description: "no thread can be started for it")
        })
        #expect(await eventually { state.report.parts.first { $0.name == "watch /srv/feeds.d for changes" }?.restarts == 3 })
        let report = state.report.parts
        #expect(report.map(\.name) == ["watch the feeds", "watch /srv/feeds.d for changes", "fetch nothing"])
        let mended = try #require(report.first { $0.name == "watch /srv/feeds.d for changes" })
        #expect(mended.state == .running && mended.lastError?.contains("No space left on device") == true)
        #expect(report.last?.state == .failed && report.last?.lastError == "no thread can be started for it")
        #expect(clock.waits == [1, 2, 4].map { $0 * 1_000_000_000 })
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("<4>cannot watch /srv/feeds.d for changes (") && $0.hasSuffix(
            "); they show after a reload; tried again in a while") }.count == 1, "said once: \(lines)")
        #expect(lines.contains("<4>cannot fetch nothing (no thread can be started for it); none"), "\(lines)")
        #expect(stopped.names.withLock { $0 }.isEmpty)
        #expect(await parts.stopAll(within: .seconds(5)).isEmpty)
        #expect(Set(stopped.names.withLock { $0 }) == ["feeds", "later"])
        #expect(state.report.parts.allSatisfy { $0.state != .running })
    }

    /// A part that fails now and then, hours apart (a broker restarted each night), is started
    /// again after a second each time, not after pauses that grew since the first failure.
    @Test("The pauses start again from a second after a part ran well")
    func thePausesResetAfterAGoodRun() async throws {
        let state = DisplayState(clock: ManualClock(wall: instant("2026-11-23T10:00:00+01:00")))
        let clock = ManualClock(wall: instant("2026-11-23T10:00:00+01:00"), passingWaits: true)
        let parts = RunningParts(state: state, log: nil, clock: clock)
        // Three quick failures, then one after running an hour, then a quick one, then it holds.
        let runs = Mutex(0)
        parts.start(RunningPart("report to the MQTT broker", otherwise: "") {
            let run = runs.withLock { $0 += 1; return $0 }
            if run == 4 { clock.advance(seconds: 3_600) }
            guard run > 5 else { throw PartFailure(description: "the broker went away") }
            await untilCancelled()
        })
        #expect(await eventually { runs.withLock { $0 } == 6 })
        #expect(clock.waits == [1, 2, 4, 1, 2].map { $0 * 1_000_000_000 })
        #expect(await parts.stopAll(within: .seconds(5)).isEmpty)
    }

    @Test("One still busy when the display ends is named and left")
    func aBusyPartIsLeft() async throws {
        let state = DisplayState(clock: ManualClock(wall: instant("2026-11-23T10:00:00+01:00")))
        let parts = RunningParts(state: state, log: nil)
        let began = Completion()
        let release = DispatchSemaphore(value: 0)
        // As a fetch blocked in libcurl: a thread deaf to cancellation.
        parts.start(RunningPart("fetch the subscriptions", otherwise: "") {
            began.finish()
            _ = await onThread(named: "blocked-fetch") { release.wait() }
        })
        parts.start(.holding("notice the clock being set", otherwise: "") { Stops() })
        #expect(await began.ended(within: .seconds(30)))
        #expect(await parts.stopAll(within: .milliseconds(200)) == ["fetch the subscriptions"])
        release.signal()
    }
}

/// What reading the clock's timer gave, acted on: a step is told; a step whose timer cannot be
/// armed again is told, and so is the failure, and the watch ends (it was silently dead).
@Suite struct ClockChangeReadingTests {
    @Test(arguments: [
        (Int32(0), [String](), true),
        (1, ["changed"], true),
        (2, ["changed", "the clock's timer cannot be armed again (Invalid argument)"], false),
        (-1, ["the clock's timer cannot be read (Invalid argument)"], false),
    ])
    func eachAnswer(result: Int32, told: [String], goesOn: Bool) {
        var heard: [String] = []
        let more = ClockChangeWatcher.take(result, errno: EINVAL, onChange: { heard.append("changed") },
                                           onFailure: { heard.append($0) })
        #expect(heard == told && more == goesOn)
    }
}
