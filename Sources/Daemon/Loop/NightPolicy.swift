import Marquee
import Schedule
import Support

/// What the night does to the display at a moment, as the settings say: how far the screen
/// is dimmed and how the text moves. One answer, which the render loop follows as time goes
/// on and a snapshot computes for its instant.
struct NightPolicy: Sendable, Hashable {
    let settings: DisplaySettings

    init(_ settings: DisplaySettings) { self.settings = settings }

    /// Dimming goes in this many steps.
    static let shadeSteps = 16
    /// How long dimming takes once the night begins, and brightening once the morning begins.
    static let dimming: Nanoseconds = 600_000_000_000
    static let brightening: Nanoseconds = 900_000_000_000

    static func isNight(_ partOfDay: (part: PartOfDay, began: Instant)?) -> Bool { partOfDay?.part == .night }

    /// The motion's settings by day, or at night (at half the speed if it slows).
    func marquee(atNight night: Bool) -> MarqueeConfiguration {
        var marquee = settings.marquee
        if night, settings.night.motion == .slow { marquee.charactersPerSecond /= 2 }
        return marquee
    }

    /// Whether the text stands still (as if paused, resumed in the morning).
    func stillsText(atNight night: Bool) -> Bool { night && settings.night.motion == .still }

    /// How far the screen is dimmed at `wall`, in steps: rising through the first ten minutes
    /// of the night, falling through the first quarter of an hour of the morning; 0 when the
    /// settings keep the night bright.
    func shadeStep(_ partOfDay: (part: PartOfDay, began: Instant)?, at wall: WallInstant) -> Int {
        guard settings.night.dims, let (part, began) = partOfDay else { return 0 }
        let since = max(0, wall - WallInstant(began))
        let steps = Nanoseconds(Self.shadeSteps)
        switch part {
        case .night: return Int(min(steps, since * steps / Self.dimming))
        case .morning: return Int(max(0, steps - since * steps / Self.brightening))
        case .afternoon, .evening: return 0
        }
    }

    /// A step as the share of the way to the darkest (0: day, 1: night).
    static func shade(ofStep step: Int) -> Double { Double(step) / Double(shadeSteps) }

    /// The wall time of the next dimming or brightening step after `wall` (nil: none is due).
    func nextShadeStep(_ partOfDay: (part: PartOfDay, began: Instant)?, after wall: WallInstant) -> WallInstant? {
        guard settings.night.dims, let (part, began) = partOfDay else { return nil }
        let step = Nanoseconds(shadeStep(partOfDay, at: wall))
        let steps = Nanoseconds(Self.shadeSteps)
        switch part {
        case .night where step < steps: return WallInstant(began) + (step + 1) * Self.dimming / steps
        case .morning where step > 0: return WallInstant(began) + (steps - step + 1) * Self.brightening / steps
        default: return nil
        }
    }
}
