import Schedule
import Sound

/// How reminders are heard (`speak`, `volume_day`, `volume_night`, `sound_device`,
/// `repeat_until_acknowledged`, `voice`, `piper_command`); can be replaced while running (a reload).
package struct SoundSettings: Sendable, Hashable {
    /// Which calendar alarms are heard.
    package enum Speak: String, Sendable, Hashable, CaseIterable {
        /// Audio and display alarms, and events marked to speak.
        case alarms
        /// `ACTION:AUDIO` alarms only.
        case audioOnly = "audio-only"
        case off
    }

    package var speak: Speak
    package var dayVolume: Volume
    package var nightVolume: Volume
    /// The ALSA PCM played on.
    package var device: String
    /// How many times more a reminder sounds when its calendar wrote no REPEAT.
    package var repeatUntilAcknowledged: Int
    /// The language of the voice (`de`, `en_GB`): the display's.
    package var language: String
    /// The engine that speaks the words; eSpeak NG speaks whatever it has not made in time.
    package var voice: VoiceChoice = .espeak
    /// Piper's program: a path, or a name on the PATH.
    package var piperCommand = "piper"
    /// The certificate authorities trusted for recordings fetched from addresses (those of
    /// `subscription_ca_file`; nil: the system's).
    package var certificateAuthorities: String?
    /// Whether the carer asked for sound (set `speak` or `sound_device`): then a device that
    /// does not play is among the problems the screen and the broker show.
    package var isAskedFor = false
    /// Whether the quiet night (only urgent reminders heard, at `nightVolume`) is `screen_off`'s
    /// hours: set when they are; else it is the orientation's night.
    package var quietNightIsScreenOff = false

    package init(speak: Speak = .alarms, dayVolume: Volume = Volume(percent: 80)!, nightVolume: Volume = Volume(percent: 30)!,
                device: String = "default", repeatUntilAcknowledged: Int = 2, language: String = "en") {
        self.speak = speak
        self.dayVolume = dayVolume
        self.nightVolume = nightVolume
        self.device = device
        self.repeatUntilAcknowledged = repeatUntilAcknowledged
        self.language = language
    }

    /// Whether what a message asks to be heard is heard under `speak` (by day; by night only
    /// urgent ones).
    package func hears(_ sounding: Sounding) -> Bool {
        switch speak {
        case .off: false
        case .audioOnly: sounding.origin == .audioAlarm
        case .alarms: true
        }
    }

    /// Whether it is the quiet night now: within `screen_off`'s hours (`darkUntil` set) when
    /// they are set, else in the orientation's night.
    func isQuietNight(darkUntil: ZonedTime?, partOfDay: PartOfDay?) -> Bool {
        quietNightIsScreenOff ? darkUntil != nil : partOfDay == .night
    }

    /// The most `repeat_until_acknowledged` may be.
    package static let mostRepeats = 10
}
