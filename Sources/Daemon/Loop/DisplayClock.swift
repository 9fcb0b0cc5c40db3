import Marquee
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// A reading of the display's wall clock, in nanoseconds since the epoch: what the schedule
/// is asked about, set by NTP or by hand, so it can jump. Steady time, on which motion and
/// frame deadlines run, is a `SteadyInstant` (the marquee and the screens know no other); the
/// two meet only through a duration (`validUntil − wall`), so the compiler keeps them apart.
package struct WallInstant: Sendable, Hashable, Comparable {
    package var sinceEpoch: Nanoseconds

    package init(sinceEpoch: Nanoseconds) {
        self.sinceEpoch = sinceEpoch
    }

    /// The start of a whole second the schedule names.
    package init(_ instant: Instant) {
        sinceEpoch = instant.secondsSinceEpoch * 1_000_000_000
    }

    /// The whole second it falls in (the schedule counts in seconds).
    package var instant: Instant {
        Instant(secondsSinceEpoch: sinceEpoch >= 0 ? sinceEpoch / 1_000_000_000 : (sinceEpoch - 999_999_999) / 1_000_000_000)
    }

    package static func < (a: WallInstant, b: WallInstant) -> Bool { a.sinceEpoch < b.sinceEpoch }
    /// How far apart two readings are.
    package static func - (a: WallInstant, b: WallInstant) -> Nanoseconds { a.sinceEpoch - b.sinceEpoch }
    package static func + (a: WallInstant, duration: Nanoseconds) -> WallInstant { WallInstant(sinceEpoch: a.sinceEpoch + duration) }
    package static func - (a: WallInstant, duration: Nanoseconds) -> WallInstant { WallInstant(sinceEpoch: a.sinceEpoch - duration) }
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
