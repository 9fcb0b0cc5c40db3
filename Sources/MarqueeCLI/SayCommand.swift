import ArgumentParser
import Daemon
import Schedule
import Sound
import Support

/// `marquee say`: plays (or writes to a WAV file) exactly what the box plays for a reminder
/// of this text — the chime, then the words in the display's voice — at the day's volume or
/// the night's, on the configured sound device.
struct SayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say", abstract: "Play what the box plays for a reminder of this text.")

    @Argument(help: "The reminder's text.")
    var text: String

    @Option(name: .long, help: "Write the sound to this WAV file instead of playing it.")
    var out: String?

    @Option(name: .long, help: "A recording (WAV, FLAC, Ogg, MP3) played after the chime instead of the spoken text.")
    var recording: String?

    @Flag(name: .long, help: "At the night's volume (volume_night) instead of the day's.")
    var night = false

    @Option(name: .long, help: "The configuration file (default: \(defaultConfiguration), if it exists).")
    var config: String?

    @Option(name: .long, help: "The language of the voice, e.g. de or en_GB (default: the display's).")
    var language: String?

    /// The words in the `voice` chosen, when it is not eSpeak NG; nil when it cannot speak
    /// (said, and eSpeak NG speaks them, as on the box).
    private func spokenByChosenVoice(_ settings: SoundSettings) -> SoundClip? {
        guard settings.voice != .espeak else { return nil }
        do {
            return try NeuralSpeech.speak(text, voice: settings.voice, piperCommand: settings.piperCommand,
                                          within: NeuralSpeech.mostWaitSeconds)
        } catch {
            standardError("marquee say: warning: \(error); eSpeak NG spoke instead")
            return nil
        }
    }

    func validate() throws {
        if let language, let problem = CalendarWords.unknownLanguage(language) { throw ValidationError("--language: " + problem) }
    }

    func run() throws {
        var feedOptions = FeedOptions()
        feedOptions.config = config
        feedOptions.language = language
        let file = try feedOptions.configurationFile()
        let settings = file.soundSettings(language: feedOptions.words(file).locale)
        let volume = night ? settings.nightVolume : settings.dayVolume
        do {
            // A recording that cannot be played is said, not spoken over.
            let recording = recording.map { Recording.Source.file($0) }
            if let recording { _ = try Recording.load(recording) }
            let madeAhead = recording == nil ? spokenByChosenVoice(settings) : nil
            let spoken: Speech.Spoken?
            if let out {
                let (clip, words) = try ReminderSound.clip(text, recording: recording, madeAhead: madeAhead,
                                                           language: settings.language, volume: volume)
                if let problem = writeFileAtomically(clip.wav, to: out) {
                    standardError("marquee say: cannot write \(out): \(problem)")
                    throw ExitCode(1)
                }
                spoken = words
                say("wrote \(out): \((clip.seconds * 10).rounded() / 10) s at volume \(volume)")
            } else {
                let played = try ReminderSound.play(text, recording: recording, madeAhead: madeAhead, language: settings.language,
                                                    volume: volume, on: SoundDevice(name: settings.device))
                spoken = played.spoken
            }
            if let spoken, !spoken.voiceMatched {
                standardError("marquee say: warning: no voice speaks \"\(settings.language)\"; the \"\(spoken.voice)\" voice spoke")
            }
            if spoken?.cut == true { standardError("marquee say: warning: only the first \(Speech.mostCharacters) characters were spoken") }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            standardError("marquee say: \(error)")
            throw ExitCode(1)
        }
    }
}
