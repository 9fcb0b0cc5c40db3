import Marquee
import Schedule

/// What the display needs from the schedule at an instant: the messages to show and until
/// when they hold (the next change, or local midnight, when the idle date changes).
public struct ScheduleSnapshot: Sendable {
    public var messages: [Message]
    /// The next change of messages, local midnight (the idle date changes) or a change of the
    /// display zone's UTC offset, whichever comes first, with the zone's offset then.
    public var validUntil: ZonedTime
    /// The display zone's UTC offset from `instant` until `validUntil` (seconds east).
    public var utcOffset: Int
    /// Today's date written out, shown when nothing is scheduled.
    public var idleText: String
    /// The feed files and their state.
    public var feeds: [FeedStatus]

    /// The messages for the marquee; the idle text (by default the date) when there are none,
    /// so the screen is never blank.
    public func marqueeMessages(idleTemplate: String = "{date}", textColour: Colour? = nil) -> [MarqueeMessage] {
        guard !messages.isEmpty else {
            let idle = idleTemplate.replacing("{date}", with: idleText)
            return [MarqueeMessage(text: idle.isEmpty ? idleText : idle, colour: textColour)]
        }
        return messages.map { message in
            MarqueeMessage(
                text: message.text, colour: message.color.map(Colour.init) ?? textColour,
                effect: message.effect.map(MessageEffect.init) ?? .scroll)
        }
    }
}

extension Colour {
    /// A message's colour from its calendar file.
    init(_ colour: RGBColor) {
        self.init(red: colour.red, green: colour.green, blue: colour.blue)
    }
}

extension MessageEffect {
    /// A message's effect from its calendar file (`X-MARQUEE-EFFECT`).
    init(_ effect: Effect) {
        switch effect {
        case .scroll: self = .scroll
        case .typewriter: self = .typewriter
        case .dance: self = .dance
        }
    }
}

extension Schedule {
    /// The snapshot at `instant`.
    public func snapshot(at instant: Instant) -> ScheduleSnapshot {
        let today = zoned(instant).wallClock.date
        let midnight = self.instant(ofLocal: CivilDateTime(date: today.adding(days: 1)))
        var next = nextChange(after: instant).map { min($0, midnight) } ?? midnight
        let offset = zoned(instant).utcOffset
        if zoned(next).utcOffset != offset { next = offsetChange(after: instant, before: next) }
        return ScheduleSnapshot(
            messages: messages(at: instant), validUntil: zoned(next), utcOffset: offset, idleText: today.spokenForm,
            feeds: feeds)
    }

    /// The first second after `start` whose UTC offset differs from `start`'s, given that
    /// `end`'s does.
    private func offsetChange(after start: Instant, before end: Instant) -> Instant {
        let offset = zoned(start).utcOffset
        var same = start.secondsSinceEpoch
        var different = end.secondsSinceEpoch
        while different - same > 1 {
            let middle = same + (different - same) / 2
            if zoned(Instant(secondsSinceEpoch: middle)).utcOffset == offset { same = middle } else { different = middle }
        }
        return Instant(secondsSinceEpoch: different)
    }
}

extension MarqueeController {
    /// Shows what the schedule says from `t` on: the one step from schedule to marquee, taken
    /// by the display loop and by `snapshot`.
    public func show(_ snapshot: ScheduleSnapshot, settings: DisplaySettings, at t: Nanoseconds, width: Int) {
        update(messages: snapshot.marqueeMessages(idleTemplate: settings.idleText, textColour: settings.textColour),
               at: t, width: width)
    }
}
