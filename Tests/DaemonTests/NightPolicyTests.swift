import Marquee
import Schedule
import Support
import Testing

@testable import Daemon

@Suite("What the night does to the display")
struct NightPolicyTests {
    private static let began = Instant(secondsSinceEpoch: 1_795_000_000)
    private static func minutes(_ minutes: Int64) -> WallInstant { WallInstant(began) + minutes * 60_000_000_000 }
    private static func settings(dims: Bool = true, motion: NightSettings.Motion = .slow) -> DisplaySettings {
        DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 8), night: NightSettings(dims: dims, motion: motion))
    }

    @Test("Dimmed over the night's first ten minutes, brightened over the morning's first quarter hour", arguments: [
        (PartOfDay.night, 0, 0), (.night, 5, 8), (.night, 10, 16), (.night, 300, 16),
        (.morning, 0, 16), (.morning, 7, 9), (.morning, 15, 0), (.afternoon, 0, 0), (.evening, 90, 0),
    ] as [(PartOfDay, Int64, Int)])
    func shadeSteps(part: PartOfDay, minutes: Int64, step: Int) {
        let policy = NightPolicy(Self.settings())
        #expect(policy.shadeStep((part, Self.began), at: Self.minutes(minutes)) == step)
        #expect(NightPolicy(Self.settings(dims: false)).shadeStep((part, Self.began), at: Self.minutes(minutes)) == 0)
    }

    @Test("Each step's time is when that step begins, and none is due once dimmed or brightened")
    func nextSteps() {
        let policy = NightPolicy(Self.settings())
        for part in [PartOfDay.night, .morning] {
            var wall = WallInstant(Self.began)
            var steps = 0
            while let next = policy.nextShadeStep((part, Self.began), after: wall) {
                #expect(next > wall)
                #expect(policy.shadeStep((part, Self.began), at: next) != policy.shadeStep((part, Self.began), at: next - 1))
                wall = next
                steps += 1
            }
            #expect(steps == NightPolicy.shadeSteps, "\(part)")
        }
        #expect(policy.nextShadeStep((.evening, Self.began), after: Self.minutes(1)) == nil)
        #expect(NightPolicy(Self.settings(dims: false)).nextShadeStep((.night, Self.began), after: Self.minutes(1)) == nil)
    }

    @Test("The text slows to half, stands still or moves as by day at night; by day as set")
    func motion() {
        #expect(NightPolicy(Self.settings(motion: .slow)).marquee(atNight: true).charactersPerSecond == 4)
        #expect(NightPolicy(Self.settings(motion: .slow)).marquee(atNight: false).charactersPerSecond == 8)
        #expect(NightPolicy(Self.settings(motion: .normal)).marquee(atNight: true).charactersPerSecond == 8)
        #expect(NightPolicy(Self.settings(motion: .still)).stillsText(atNight: true))
        #expect(!NightPolicy(Self.settings(motion: .still)).stillsText(atNight: false))
        #expect(!NightPolicy(Self.settings(motion: .slow)).stillsText(atNight: true))
    }
}
