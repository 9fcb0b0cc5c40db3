import Marquee
import Schedule
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request on the control socket: one JSON object on one line, `{"type": "status"}`.
public struct ControlRequest: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        /// Read-only, open to everyone who may connect.
        case status
        /// Stop and restart all motion (WCAG 2.2.2); only root, the daemon's user or its group.
        case pause, resume
        /// Read the feed folder again.
        case reload
    }

    public var type: Kind

    public init(type: Kind) { self.type = type }

    /// Whether the request changes what the display does (and so needs permission).
    public var isControl: Bool { type != .status }
}

/// The reply: one JSON object on one line.
public struct ControlReply: Codable, Sendable {
    public var ok: Bool
    public var error: String?
    public var status: StatusReport?

    public init(ok: Bool, error: String? = nil, status: StatusReport? = nil) {
        self.ok = ok
        self.error = error
        self.status = status
    }
}

/// What `marquee status` shows.
public struct StatusReport: Codable, Sendable, Hashable {
    public struct ActiveMessage: Codable, Sendable, Hashable {
        public var text: String
        public var kind: String
        public var start: String
        public var end: String
        public var source: String
        public var priority: Int
    }

    public struct Feed: Codable, Sendable, Hashable {
        public var path: String
        /// `loaded`, or `error` (then `lastGoodKept` says whether an earlier version shows).
        public var state: String
        public var lastGoodKept: Bool
        public var events: Int
        public var problems: [String]
    }

    /// The display's clock when this report was last brought up to date (RFC 3339, UTC).
    public var updatedAt: String
    /// The texts on the tape, in display order (the date when nothing is scheduled).
    public var showing: [String]
    public var messages: [ActiveMessage]
    public var nextChange: String?
    public var feeds: [Feed]
    public var output: String
    public var paused: Bool
    public var moving: Bool
    public var framesPerSecond: Double
    /// How late frames were drawn after their deadline, over the last frames (milliseconds).
    public var frameLateness: Lateness?
    public var uptimeSeconds: Int

    public struct Lateness: Codable, Sendable, Hashable {
        public var frames: Int
        public var p50: Double
        public var p99: Double
        public var max: Double
    }

    public init(updatedAt: String, output: String) {
        self.updatedAt = updatedAt
        showing = []
        messages = []
        nextChange = nil
        feeds = []
        self.output = output
        paused = false
        moving = false
        framesPerSecond = 0
        frameLateness = nil
        uptimeSeconds = 0
    }

    /// Fills in what the schedule says.
    mutating func update(from snapshot: ScheduleSnapshot) {
        showing = snapshot.marqueeMessages().map(\.text)
        messages = snapshot.messages.map {
            ActiveMessage(text: $0.text, kind: $0.kind.rawValue, start: $0.start.rfc3339, end: $0.end.rfc3339,
                          source: $0.source, priority: $0.priority)
        }
        nextChange = snapshot.validUntil.rfc3339
        feeds = snapshot.feeds.map { feed in
            var state = "loaded"
            var kept = false
            if case .failed(let keptLastGood) = feed.state {
                state = "error"
                kept = keptLastGood
            }
            return Feed(path: feed.path, state: state, lastGoodKept: kept, events: feed.eventCount,
                        problems: feed.problems.map(\.description))
        }
    }
}

/// Shared between the render thread and the control socket: the latest status, and the
/// commands waiting for the render thread. Reading the status never waits for a frame.
public final class DisplayControl: Sendable {
    private let report: Mutex<StatusReport>
    /// The status reply as sent, encoded once per change rather than once per request, with
    /// the generation of the report it was encoded from.
    private let encodedStatus = Mutex<(generation: Int, bytes: [UInt8])?>(nil)
    /// Counts publications, so an encoding of an older report is never cached as current.
    private let generation = Mutex(0)
    private let pending = Mutex<[ControlRequest.Kind]>([])
    private let wake: @Sendable () -> Void

    public init(initial: StatusReport, wake: @escaping @Sendable () -> Void) {
        report = Mutex(initial)
        self.wake = wake
    }

    public var status: StatusReport { report.withLock { $0 } }

    /// `{"ok":true,"status":{…}}` and a newline.
    var statusReply: [UInt8] {
        let (current, version) = report.withLock { ($0, generation.withLock { $0 }) }
        if let cached = encodedStatus.withLock({ $0 }), cached.generation == version { return cached.bytes }
        var bytes = Array((try? JSONEncoder().encode(ControlReply(ok: true, status: current))) ?? Data())
        bytes.append(0x0A)
        encodedStatus.withLock { cached in
            if version == generation.withLock({ $0 }) { cached = (version, bytes) }
        }
        return bytes
    }

    func publish(_ change: (inout StatusReport) -> Void) {
        report.withLock { report in
            change(&report)
            generation.withLock { $0 += 1 }
        }
    }

    /// Queues a command for the render thread and wakes it.
    public func post(_ command: ControlRequest.Kind) {
        pending.withLock { $0.append(command) }
        wake()
    }

    func takeCommands() -> [ControlRequest.Kind] {
        pending.withLock { commands in
            defer { commands.removeAll() }
            return commands
        }
    }
}
