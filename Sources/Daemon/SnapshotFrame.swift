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
    var now = start
    while true {
        let current = await schedule.snapshot(at: Instant(nanoseconds: now))
        controller.show(current, settings: settings, at: now, width: screen.bandWidth)
        screen.showOrientation(current.orientation)
        let next = current.validUntil.instant.nanoseconds
        guard next <= instant, next > now else { break }
        now = next
    }
    let frame = controller.frame(at: instant, width: screen.bandWidth, includingPartialGlyphs: screen.drawsPartialGlyphs)
    try screen.show(frame, fullRepaint: true)
    return frame
}
