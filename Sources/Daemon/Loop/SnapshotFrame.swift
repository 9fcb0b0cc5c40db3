import Display
import Marquee
import Schedule

/// What a display that started at `start` shows at `instant`, drawn on `screen`: the same
/// schedule → marquee → screen path the render loop takes, with the marquee told of every
/// change of messages in between, as the loop would have told it.
public func showSnapshot(
    of schedule: Schedule, settings: DisplaySettings, on screen: any TickerScreen, displayStartedAt start: Nanoseconds,
    at instant: Nanoseconds
) async throws -> Frame {
    let controller = MarqueeController(metrics: screen.metrics, configuration: settings.marquee, origin: start)
    controller.announcementBox = screen.announcementBox
    let policy = NightPolicy(settings)
    var now = start
    var night = false
    while true {
        let current = await schedule.snapshot(at: Instant(nanoseconds: now))
        // The night's motion, from when it begins (the loop's own rules).
        if NightPolicy.isNight(current.partOfDay) != night || now == start {
            night = NightPolicy.isNight(current.partOfDay)
            controller.reconfigure(policy.marquee(atNight: night), at: now)
            if policy.stillsText(atNight: night) { controller.pause(at: now) } else { controller.resume(at: now) }
        }
        controller.show(current, settings: settings, at: now, width: screen.bandWidth)
        screen.showOrientation(current.orientation)
        screen.setShade(NightPolicy.shade(ofStep: policy.shadeStep(current.partOfDay, at: instant)))
        let next = current.validUntil.instant.nanoseconds
        guard next <= instant, next > now else { break }
        now = next
    }
    let frame = controller.frame(at: instant, width: screen.bandWidth, includingPartialGlyphs: screen.drawsPartialGlyphs)
    try screen.show(frame)
    return frame
}
