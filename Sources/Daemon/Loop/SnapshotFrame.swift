import Display
import Marquee
import Schedule
import Support

/// What a display that started at `start` shows at `instant`, drawn on `screen`: the same
/// schedule → marquee → screen path the render loop takes, with the marquee told of every
/// change of messages in between, as the loop would have told it. Its steady clock is taken
/// to have kept pace with the wall clock (no one set the clock in between). `paused`: motion
/// was stopped by a carer, so the band shows the messages standing still, as the display does.
package func showSnapshot(
    of schedule: Schedule, settings: DisplaySettings, on screen: any TickerScreen, displayStartedAt start: WallInstant,
    at instant: WallInstant, paused: Bool = false
) async throws -> Frame {
    func steady(_ wall: WallInstant) -> SteadyInstant { SteadyInstant(sinceOrigin: wall.sinceEpoch) }
    let controller = MarqueeController(metrics: screen.metrics, configuration: settings.marquee, origin: steady(start))
    controller.announcementBox = screen.announcementBox
    let policy = NightPolicy(settings)
    var now = start
    var night = false
    while true {
        let current = await schedule.snapshot(at: now.instant)
        // The night's motion, from when it begins (the loop's own rules).
        if NightPolicy.isNight(current.partOfDay) != night || now == start {
            night = NightPolicy.isNight(current.partOfDay)
            controller.reconfigure(policy.marquee(atNight: night), at: steady(now))
            if policy.stillsText(atNight: night) { controller.pause(at: steady(now)) } else { controller.resume(at: steady(now)) }
        }
        controller.show(current, settings: settings, at: steady(now), width: screen.bandWidth)
        // (A picture of a box without calendars names their folder: it has no page.)
        screen.showOrientation(current.orientationShown(idleTemplate: settings.idleText) { nil })
        screen.setShade(NightPolicy.shade(ofStep: policy.shadeStep(current.partOfDay, at: instant)))
        let next = WallInstant(current.validUntil.instant)
        guard next <= instant, next > now else { break }
        now = next
    }
    if paused { controller.pause(at: steady(instant)) }
    let frame = controller.frame(at: steady(instant), width: screen.bandWidth, includingPartialGlyphs: screen.pacing.drawsPartialGlyphs)
    try screen.show(frame)
    return frame
}
