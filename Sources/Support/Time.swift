/// A duration in nanoseconds: how far apart two readings of one clock are.
package typealias Nanoseconds = Int64

/// A reading of the display's steady clock, which never jumps and whose origin means nothing:
/// all motion, effects and frame deadlines are functions of it. Wall-clock readings are another
/// type (`WallInstant`); the two meet only through a duration, so the compiler keeps
/// motion off the wall clock.
package struct SteadyInstant: Sendable, Hashable, Comparable {
    /// Nanoseconds since the clock's origin.
    package var sinceOrigin: Nanoseconds

    package init(sinceOrigin: Nanoseconds) {
        self.sinceOrigin = sinceOrigin
    }

    package static func < (a: SteadyInstant, b: SteadyInstant) -> Bool { a.sinceOrigin < b.sinceOrigin }
    /// How far apart two readings are.
    package static func - (a: SteadyInstant, b: SteadyInstant) -> Nanoseconds { a.sinceOrigin - b.sinceOrigin }
    package static func + (a: SteadyInstant, duration: Nanoseconds) -> SteadyInstant { SteadyInstant(sinceOrigin: a.sinceOrigin + duration) }
    package static func - (a: SteadyInstant, duration: Nanoseconds) -> SteadyInstant { SteadyInstant(sinceOrigin: a.sinceOrigin - duration) }
    package static func += (a: inout SteadyInstant, duration: Nanoseconds) { a = a + duration }
}

/// A reading of the display's wall clock, in nanoseconds since the epoch: what the schedule
/// is asked about, set by NTP or by hand, so it can jump. Steady time, on which motion and
/// frame deadlines run, is a `SteadyInstant` (the marquee and the screens know no other); the
/// two meet only through a duration (`validUntil − wall`), so the compiler keeps them apart.
package struct WallInstant: Sendable, Hashable, Comparable {
    package var sinceEpoch: Nanoseconds

    package init(sinceEpoch: Nanoseconds) {
        self.sinceEpoch = sinceEpoch
    }

    package static func < (a: WallInstant, b: WallInstant) -> Bool { a.sinceEpoch < b.sinceEpoch }
    /// How far apart two readings are.
    package static func - (a: WallInstant, b: WallInstant) -> Nanoseconds { a.sinceEpoch - b.sinceEpoch }
    package static func + (a: WallInstant, duration: Nanoseconds) -> WallInstant { WallInstant(sinceEpoch: a.sinceEpoch + duration) }
    package static func - (a: WallInstant, duration: Nanoseconds) -> WallInstant { WallInstant(sinceEpoch: a.sinceEpoch - duration) }
}
