import Marquee
import Schedule
import Support

extension ScheduleSnapshot {
    /// The messages for the marquee; the idle text (by default the date) when there are none,
    /// so the screen is never blank. When the band carries the orientation line
    /// (`bandCarriesTheLine`), the date in the idle text is the line's words ("Friday morning ·
    /// 27 November 2026") and the line itself is not shown below: the date once, not twice.
    func marqueeMessages(idleTemplate: String = "{date}", textColour: Colour? = nil) -> [MarqueeMessage] {
        guard !messages.isEmpty else {
            let date = bandCarriesTheLine(idleTemplate: idleTemplate) ? orientation ?? idleText : idleText
            let idle = idleTemplate.replacing("{date}", with: date)
            return [MarqueeMessage(text: idle.isEmpty ? idleText : idle, colour: textColour)]
        }
        return messages.map { message in
            MarqueeMessage(
                text: message.text, colour: message.color ?? textColour, effect: message.effect ?? .scroll)
        }
    }
}

extension ScheduleSnapshot {
    /// The row below the band: while the box has no calendar, what the carer's setup file could
    /// not use (`setupProblem`), else how to add a calendar (through the page at `pageAddress`,
    /// asked only then; nil: through the folder); else the orientation line, none while the
    /// band carries its words.
    package func orientationShown(idleTemplate: String, setupProblem: String? = nil, pageAddress: () -> String?) -> String? {
        if let addingCalendars {
            if let setupProblem { return addingCalendars.words(setupProblem: setupProblem) }
            return addingCalendars.words(pageAddress: pageAddress())
        }
        return bandCarriesTheLine(idleTemplate: idleTemplate) ? nil : orientation
    }

    /// Whether the band shows the orientation line's words instead of the date: nothing is
    /// scheduled once the feeds are read (before, at a start, the date and the line stand as
    /// they always did), and the idle text writes the date.
    func bandCarriesTheLine(idleTemplate: String) -> Bool {
        messages.isEmpty && !feeds.isEmpty && orientation != nil && idleTemplate.contains("{date}")
    }
}

extension MarqueeController {
    /// Shows what the schedule says from `t` on: the one step from schedule to marquee, taken
    /// by the display loop and by `snapshot`.
    package func show(_ snapshot: ScheduleSnapshot, settings: DisplaySettings, at t: SteadyInstant, width: Int) {
        update(messages: snapshot.marqueeMessages(idleTemplate: settings.idleText, textColour: settings.textColour),
               at: t, width: width)
    }
}
