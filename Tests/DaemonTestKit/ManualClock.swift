import Schedule
import Support
import Synchronization

@testable import Daemon

/// A box clock the test moves by hand: `advance` moves both times and ends the waits due by
/// then, `stepWall` and `setWall` only the wall clock (as NTP or `date -s` would). One made
/// `passingWaits` lets each wait pass at once, moving its time on (a part's pauses, hours of
/// them, in no time).
package final class ManualClock: BoxClock {
    private struct Sleeper {
        var id: Int
        var deadline: SteadyInstant
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct Shared {
        var wall: WallInstant
        var steady: SteadyInstant
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Every wait asked for, in nanoseconds.
        var waits: [Nanoseconds] = []
    }

    private let shared: Mutex<Shared>
    private let passingWaits: Bool

    package init(wall: Instant, steady: SteadyInstant = SteadyInstant(sinceOrigin: 5_000_000_000_000), passingWaits: Bool = false) {
        shared = Mutex(Shared(wall: WallInstant(wall), steady: steady))
        self.passingWaits = passingWaits
    }

    package func wallTime() -> WallInstant { shared.withLock { $0.wall } }
    package func steadyTime() -> SteadyInstant { shared.withLock { $0.steady } }

    /// Every wait asked for so far, in nanoseconds.
    package var waits: [Nanoseconds] { shared.withLock { $0.waits } }

    package func sleep(until deadline: SteadyInstant) async {
        let id = shared.withLock { shared in
            shared.nextID += 1
            shared.waits.append(max(0, deadline - shared.steady))
            return shared.nextID
        }
        if passingWaits {
            let steady = steadyTime()
            if deadline > steady { advance(by: deadline - steady) }
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiting = shared.withLock { shared in
                    guard !Task.isCancelled, deadline > shared.steady else { return false }
                    shared.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            shared.withLock { shared in
                shared.sleepers.firstIndex { $0.id == id }.map { shared.sleepers.remove(at: $0) }
            }?.continuation.resume()
        }
    }

    package func advance(by nanoseconds: Nanoseconds) {
        let woken = shared.withLock { shared in
            shared.wall = shared.wall + nanoseconds
            shared.steady = shared.steady + nanoseconds
            let steady = shared.steady
            defer { shared.sleepers.removeAll { $0.deadline <= steady } }
            return shared.sleepers.filter { $0.deadline <= steady }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    package func advance(seconds: Int64) { advance(by: seconds * 1_000_000_000) }

    package func stepWall(by nanoseconds: Nanoseconds) {
        shared.withLock { $0.wall = $0.wall + nanoseconds }
    }

    package func setWall(_ instant: Instant) {
        shared.withLock { $0.wall = WallInstant(instant) }
    }
}
