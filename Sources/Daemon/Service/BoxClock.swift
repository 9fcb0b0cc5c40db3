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

/// The box's one clock, injected into every part that keeps time: the wall clock (what the
/// schedule is asked about, servers' dates), a steady clock that only goes forward (motion,
/// effects, frame deadlines, pauses: setting the wall clock never moves the text or stretches
/// a wait), and a wait on the steady clock. A test moves its own (`DaemonTestKit.ManualClock`),
/// and every wait ends when it says.
protocol BoxClock: Sendable {
    /// The wall-clock time.
    func wallTime() -> WallInstant
    /// A time that never jumps (its origin means nothing).
    func steadyTime() -> SteadyInstant
    /// Returns once the steady clock reaches `deadline`, or at once when the task is cancelled.
    func sleep(until deadline: SteadyInstant) async
}

extension BoxClock {
    /// The wall clock's whole second.
    func now() -> Instant { wallTime().instant }

    /// Returns once `duration` has passed on the steady clock, or at once when cancelled.
    func sleep(for duration: Duration) async {
        let (seconds, attoseconds) = duration.components
        await sleep(until: steadyTime() + seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func sleep(seconds: Int64) async { await sleep(for: .seconds(seconds)) }
}

/// The machine's clocks: CLOCK_REALTIME (shifted to a chosen start for a preview with
/// `--at`) and CLOCK_MONOTONIC.
struct SystemClock: BoxClock {
    /// How far the box's wall clock is ahead of CLOCK_REALTIME.
    private let offset: Nanoseconds

    init(startingAt start: WallInstant? = nil) {
        offset = start.map { $0 - Self.realTime() } ?? 0
    }

    func wallTime() -> WallInstant { Self.realTime() + offset }
    func steadyTime() -> SteadyInstant { SteadyInstant(sinceOrigin: readClock(CLOCK_MONOTONIC)) }

    func sleep(until deadline: SteadyInstant) async {
        let left = deadline - steadyTime()
        guard left > 0 else { return }
        try? await Task.sleep(for: .nanoseconds(left))
    }

    private static func realTime() -> WallInstant { WallInstant(sinceEpoch: readClock(CLOCK_REALTIME)) }
}
