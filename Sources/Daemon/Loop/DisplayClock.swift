import Marquee
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

extension WallInstant {
    /// The start of a whole second the schedule names.
    package init(_ instant: Instant) {
        self.init(sinceEpoch: instant.secondsSinceEpoch * 1_000_000_000)
    }

    /// The whole second it falls in (the schedule counts in seconds).
    package var instant: Instant {
        Instant(secondsSinceEpoch: sinceEpoch >= 0 ? sinceEpoch / 1_000_000_000 : (sinceEpoch - 999_999_999) / 1_000_000_000)
    }
}

/// The display's two times: the wall clock, which the schedule is asked about, and a steady
/// clock that only goes forward, on which motion, effects and frame deadlines run. Setting
/// the wall clock therefore never moves the text; it only changes which messages are due.
protocol DisplayClock: Sendable {
    /// The display's wall-clock time.
    func wallTime() -> WallInstant
    /// A time that never jumps (its origin means nothing).
    func steadyTime() -> SteadyInstant
}

/// The machine's clocks: CLOCK_REALTIME (shifted to a chosen start for a preview with
/// `--at`) and CLOCK_MONOTONIC.
struct SystemClock: DisplayClock {
    /// How far the display's wall clock is ahead of CLOCK_REALTIME.
    private let offset: Nanoseconds

    init(startingAt start: WallInstant? = nil) {
        offset = start.map { $0 - Self.realTime() } ?? 0
    }

    func wallTime() -> WallInstant { Self.realTime() + offset }
    func steadyTime() -> SteadyInstant { SteadyInstant(sinceOrigin: readClock(CLOCK_MONOTONIC)) }

    private static func realTime() -> WallInstant { WallInstant(sinceEpoch: readClock(CLOCK_REALTIME)) }
}
