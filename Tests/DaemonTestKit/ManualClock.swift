import Schedule
import Support
import Synchronization

@testable import Daemon

/// A clock the test moves by hand: `advance` moves both times, `stepWall` only the wall
/// clock (as NTP or `date -s` would).
package final class ManualClock: DisplayClock {
    private let times: Mutex<(wall: WallInstant, steady: SteadyInstant)>

    package init(wall: Instant, steady: SteadyInstant = SteadyInstant(sinceOrigin: 5_000_000_000_000)) {
        times = Mutex((WallInstant(wall), steady))
    }

    package func wallTime() -> WallInstant { times.withLock { $0.wall } }
    package func steadyTime() -> SteadyInstant { times.withLock { $0.steady } }

    package func advance(by nanoseconds: Nanoseconds) {
        times.withLock { $0 = ($0.wall + nanoseconds, $0.steady + nanoseconds) }
    }

    package func stepWall(by nanoseconds: Nanoseconds) {
        times.withLock { $0.wall = $0.wall + nanoseconds }
    }
}
