import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// The names of the sources stopped, in order.
private final class Stops: Sendable {
    let names = Mutex<[String]>([])
}

/// A source that says when it is let go (stopped).
private final class Source {
    let name: String
    let stops: Stops

    init(_ name: String, stops: Stops) {
        self.name = name
        self.stops = stops
    }

    deinit { stops.names.withLock { $0.append(name) } }
}

@Suite("The display's event sources", .tier(.live))
struct EventSourcesTests {
    @Test("One that cannot start is said with what that costs; the rest stop, the last started first")
    func startedByNameStoppedInReverse() throws {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let stopped = Stops()
        let sources = EventSources(log: log)
        sources.start("watch the feeds", otherwise: "they show after a reload") { Source("feeds", stops: stopped) }
        // As when the machine's inotify watches are used up.
        sources.start("watch /no/such/parent/feeds.d for changes", otherwise: "they show after a reload") { () throws -> Source in
            throw WatchError(errno: ENOSPC)
        }
        sources.start("notice the clock being set", otherwise: "the messages follow at their next change") {
            Source("clock", stops: stopped)
        }
        #expect(sources.names == ["watch the feeds", "notice the clock being set"])
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("<4>cannot watch /no/such/parent/feeds.d for changes (") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("); they show after a reload") == true, "\(lines)")
        #expect(stopped.names.withLock { $0 }.isEmpty)
        sources.stopAll()
        #expect(stopped.names.withLock { $0 } == ["clock", "feeds"])
        #expect(sources.names.isEmpty)
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
