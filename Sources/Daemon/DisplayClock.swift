import CLinux
import Marquee

/// The display's clock: the wall clock, or a wall clock started at a chosen instant (a
/// preview of what the screen will show then) that runs on from there. Sleeps are absolute
/// deadlines on CLOCK_MONOTONIC, so they neither drift nor stretch.
public struct DisplayClock: Sendable {
    /// Display time = CLOCK_REALTIME + offset.
    private let offset: Nanoseconds

    public init(startingAt start: Nanoseconds? = nil) {
        offset = start.map { $0 - mq_realtime_ns() } ?? 0
    }

    public func now() -> Nanoseconds {
        mq_realtime_ns() + offset
    }

    /// Sleeps until the display clock reads `deadline`, or a caught signal arrives.
    public func sleep(until deadline: Nanoseconds) {
        let wait = deadline == .max ? Int64.max / 2 : max(0, deadline - now())
        _ = mq_sleep_until(mq_monotonic_ns() + min(wait, 86_400 * 1_000_000_000))
    }
}
