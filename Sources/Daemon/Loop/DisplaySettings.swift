import Display
import Marquee
import Schedule
import Support

/// How `marquee run` shows things, from the command line and the configuration file; can be
/// replaced while running (a reload).
package struct DisplaySettings: Sendable, Hashable {
    package var marquee: MarqueeConfiguration
    /// Shown when nothing is scheduled; `{date}` becomes today written out.
    package var idleText: String
    /// For messages without a COLOR of their own.
    package var textColour: Colour?
    package var night: NightSettings
    /// Whether the television is put to standby while `screen_off` keeps the screen dark
    /// (`cec_standby`).
    package var televisionStandby: Bool

    package init(marquee: MarqueeConfiguration, idleText: String = "{date}", textColour: Colour? = nil,
                night: NightSettings = .init(), televisionStandby: Bool = false) {
        self.marquee = marquee
        self.idleText = idleText
        self.textColour = textColour
        self.night = night
        self.televisionStandby = televisionStandby
    }
}

/// What a carer's reload reads from the configuration file: the display's settings, the
/// schedule's, the pixels' font and text size and how reminders are heard (nil: each keeps its
/// own).
package struct ReloadedSettings: Sendable {
    package var display: DisplaySettings
    package var schedule: ScheduleSettings?
    package var style: FramebufferStyle?
    package var sound: SoundSettings?
    /// The calendar subscriptions (nil: those in use stay, as when the command line gave them).
    package var subscriptions: [SubscriptionAddress]?

    package init(display: DisplaySettings, schedule: ScheduleSettings? = nil, style: FramebufferStyle? = nil,
                sound: SoundSettings? = nil, subscriptions: [SubscriptionAddress]? = nil) {
        self.display = display
        self.schedule = schedule
        self.style = style
        self.sound = sound
        self.subscriptions = subscriptions
    }
}

/// What the display does at night (the night part of the day): calmer, never dark.
package struct NightSettings: Sendable, Hashable {
    /// How the text moves at night.
    package enum Motion: String, Sendable, Hashable, CaseIterable {
        /// At half the speed.
        case slow
        /// Not at all, as if paused (resumed in the morning).
        case still
        /// As by day.
        case normal
    }

    /// Whether the screen dims at night (over ten minutes, brightened again over a quarter of
    /// an hour in the morning): the backlight where the service may set it, else the colours,
    /// darkened to 7:1 on black.
    package var dims: Bool
    package var motion: Motion
    /// The backlight's level at the darkest of the night, as a percentage of the day's.
    package var backlightPercent: Int

    package init(dims: Bool = true, motion: Motion = .slow, backlightPercent: Int = 40) {
        self.dims = dims
        self.motion = motion
        self.backlightPercent = backlightPercent
    }
}
