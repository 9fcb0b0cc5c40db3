import Marquee
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The display's two times: the wall clock, which the schedule is asked about, and a steady
/// clock that only goes forward, on which motion, effects and frame deadlines run. Setting
/// the wall clock therefore never moves the text; it only changes which messages are due.
protocol DisplayClock: Sendable {
    /// The display's wall-clock time, in nanoseconds since the epoch.
    func wallTime() -> Nanoseconds
    /// A time that never jumps (its origin means nothing).
    func steadyTime() -> Nanoseconds
}

/// The machine's clocks: CLOCK_REALTIME (shifted to a chosen start for a preview with
/// `--at`) and CLOCK_MONOTONIC.
struct SystemClock: DisplayClock {
    /// Display wall time = CLOCK_REALTIME + offset.
    private let offset: Nanoseconds

    init(startingAt start: Nanoseconds? = nil) {
        offset = start.map { $0 - readClock(CLOCK_REALTIME) } ?? 0
    }

    func wallTime() -> Nanoseconds { readClock(CLOCK_REALTIME) + offset }
    func steadyTime() -> Nanoseconds { readClock(CLOCK_MONOTONIC) }
}

extension Instant {
    /// The whole second an instant in nanoseconds falls in.
    public init(nanoseconds: Nanoseconds) {
        self.init(secondsSinceEpoch: nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000)
    }

    public var nanoseconds: Nanoseconds { secondsSinceEpoch * 1_000_000_000 }
}
