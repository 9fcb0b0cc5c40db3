import Support
import Synchronization

/// One long-running part of `marquee run` — the control socket, a watcher, the subscriptions,
/// the recordings, MQTT, the television — as the status names it.
struct RunningPart: Sendable {
    let name: String
    /// What the part does until its task is cancelled (then it ends within a second or two); a
    /// throw is a failure.
    let run: @Sendable () async throws -> Void
    /// What a failure costs, for the journal ("they show after a reload").
    var otherwise: String
    /// Whether it is started again after a failure (a watch of a folder made later, a thread
    /// that could not be had); one that cannot mend stays failed.
    var restarts = true

    init(_ name: String, otherwise: String, restarts: Bool = true, run: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.otherwise = otherwise
        self.restarts = restarts
        self.run = run
    }

    /// A part that is an object doing its work while it is held (a watcher, the socket):
    /// made when the part starts, held until it is cancelled.
    static func holding(_ name: String, otherwise: String, _ make: @escaping @Sendable () throws -> AnyObject) -> RunningPart {
        RunningPart(name, otherwise: otherwise) {
            let held = try make()
            await untilCancelled()
            withExtendedLifetime(held) {}
        }
    }
}

/// What `marquee status` says of a running part.
package struct PartStatus: Codable, Sendable, Hashable {
    package enum State: String, Codable, Sendable {
        case running
        /// It failed: started again after a pause, if it can be.
        case failed
        /// Its work ended by itself, or the display is ending.
        case stopped
    }

    package var name: String
    package var state: State
    /// Why it last failed (kept after it runs again, until it fails otherwise).
    package var lastError: String?
    /// How many times it was started again after a failure.
    package var restarts: Int
}

/// The box's long-running parts under one owner: each runs in a task of its own from `start`
/// until `stopAll`, which cancels them all and waits for them together, within a limit (a
/// fetch in a blocking call cannot be interrupted: such a part is named in the journal and
/// left to the end of the process, so SIGTERM is obeyed within systemd's TimeoutStopSec). A
/// part that fails is said in the journal (once for each different error) and in the
/// status's `parts`, and started again after a pause that doubles from a second to five
/// minutes (back to a second after it ran well for `ranWell`). The display loop is not a part: it runs on its own thread, and its end ends them.
/// A task group of marquee's own rather than swift-service-lifecycle's ServiceGroup: the
/// group would wait for every part to end, which a blocking fetch does not do in time, and
/// its package with its dependencies would be built for this one use.
final class RunningParts: Sendable {
    private struct Started {
        var name: String
        var task: Task<Void, Never>
        var ended: Completion
    }

    private let started = Mutex<[Started]>([])
    private let state: DisplayState
    private let log: EventLog?
    /// Times the pauses between a failure and the next start, and how long a part ran.
    private let clock: any BoxClock

    /// The pause after the first failure, and the longest.
    static let firstPause: Duration = .seconds(1)
    static let longestPause: Duration = .seconds(300)
    /// How long the parts are given to end with the display: within systemd's TimeoutStopSec
    /// (10 s), with the display's own ending before it.
    static let stopLimit: Duration = .seconds(5)
    /// A part that ran this long before it failed had mended: its pauses start again from the first.
    static let ranWell: Duration = .seconds(600)

    init(state: DisplayState, log: EventLog?, clock: any BoxClock = SystemClock()) {
        self.state = state
        self.log = log
        self.clock = clock
    }

    /// Starts `part` in a task of its own.
    func start(_ part: RunningPart) {
        let ended = Completion()
        report(PartStatus(name: part.name, state: .running, restarts: 0))
        let task = Task { [self] in
            await supervise(part)
            ended.finish()
        }
        started.withLock { $0.append(Started(name: part.name, task: task, ended: ended)) }
    }

    /// The parts' names, in the order they started.
    var names: [String] { started.withLock { $0.map(\.name) } }

    /// Cancels every part and waits for them together, at most `limit`; answers the names of
    /// those still busy then (said in the journal).
    @discardableResult
    func stopAll(within limit: Duration) async -> [String] {
        let parts = started.withLock { parts in
            defer { parts = [] }
            return parts
        }
        for part in parts.reversed() { part.task.cancel() }
        let deadline = ContinuousClock.now + limit
        var busy: [String] = []
        for part in parts.reversed() where !(await part.ended.ended(within: max(.zero, deadline - ContinuousClock.now))) {
            busy.append(part.name)
        }
        if !busy.isEmpty { log?.log(.notice, "still busy as marquee ends, left to the end of the process: " + busy.joined(separator: ", ")) }
        return busy
    }

    /// Runs `part`, and again after each failure (if it restarts), until it is cancelled.
    private func supervise(_ part: RunningPart) async {
        var status = PartStatus(name: part.name, state: .running, restarts: 0)
        var wait = Self.firstPause
        while !Task.isCancelled {
            let started = clock.steadyTime()
            do {
                try await part.run()
                break
            } catch {
                guard !Task.isCancelled else { break }
                if Duration.nanoseconds(clock.steadyTime() - started) >= Self.ranWell { wait = Self.firstPause }
                let said = "\(error)"
                if status.lastError != said {
                    log?.log(.warning, "cannot \(part.name) (\(said)); \(part.otherwise)"
                        + (part.restarts ? "; tried again in a while" : ""))
                }
                (status.state, status.lastError) = (.failed, said)
                report(status)
                guard part.restarts else { return }
                await clock.sleep(for: wait)
                wait = min(wait * 2, Self.longestPause)
                guard !Task.isCancelled else { break }
                status.restarts += 1
                status.state = .running
                report(status)
            }
        }
        status.state = .stopped
        report(status)
    }

    private func report(_ part: PartStatus) {
        state.update { shared in
            if let index = shared.parts.firstIndex(where: { $0.name == part.name }) {
                shared.parts[index] = part
            } else {
                shared.parts.append(part)
            }
            shared.version += 1
        }
    }
}

/// Returns once the task is cancelled (a stream that never yields ends with its task).
func untilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    for await _ in stream {}
    continuation.finish()
}
