import Dispatch
import Ledger
import Sound
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Plays the reminders the loop decides on, one after another, on a queue of its own: a
/// sound never delays a frame, a reload or the socket. At most `queued` wait; more are said as
/// one "and N more reminders" (a repeat of a reminder already waiting is not one more). Each
/// waits, at most `televisionWait`, for the television to be on. A device that is missing,
/// busy or gone is said once (journal, status) and tried again at the next reminder.
final class ReminderVoice: Sendable {
    /// How many reminders wait to be played at most.
    static let queued = 3
    /// How long a reminder waits for the television woken for it (a television takes a few
    /// seconds to come out of standby).
    static let televisionWait: Int64 = 10_000_000_000
    /// In the state folder while muted: the mute.
    static let mutedFile = "reminders-muted"

    /// What a reminder played, or why not, for the status.
    struct Report: Sendable {
        var text: String
        var played: ReminderSound.Played?
        var problem: String?
        /// Which voice spoke it and why not the chosen one (nil: nothing was spoken).
        var voice: VoiceStatus?
    }

    private let queue = DispatchQueue(label: "marquee.sound", qos: .userInitiated)
    private let waiting = Mutex<(keys: [LedgerEntry.Key], more: Int, settings: SoundSettings)>(([], 0, SoundSettings()))
    private let mutedPath: String?
    private let log: EventLog?
    private let report: @Sendable (Report) -> Void
    /// The device's trouble last said (nil: it played), so it is said once.
    private let lastProblem = Mutex<String?>(nil)
    private let voiceNoted = Mutex<Set<String>>([])
    /// The words made ahead in the chosen voice (nil: no state folder to keep them in).
    private let spokenAhead: SpokenAhead?
    /// Why the chosen voice did not speak, last said (nil: it spoke), so it is said once.
    private let lastVoiceTrouble = Mutex<String?>(nil)

    /// - Parameters:
    ///   - stateFolder: where the mute is kept (nil: nowhere).
    ///   - report: told of each reminder played or not, on the sound queue.
    init(settings: SoundSettings, stateFolder: String?, log: EventLog?, spokenAhead: SpokenAhead? = nil,
         report: @escaping @Sendable (Report) -> Void) {
        mutedPath = stateFolder.map { $0 + "/" + Self.mutedFile }
        self.spokenAhead = spokenAhead
        self.log = log
        self.report = report
        waiting.withLock { $0.settings = settings }
    }

    /// From now on (a reload).
    func use(_ settings: SoundSettings) {
        waiting.withLock { $0.settings = settings }
        spokenAhead?.use(settings)
    }

    /// Plays `due` after what is already playing, once `isReady` says so (or `televisionWait`
    /// passed).
    func play(_ due: ReminderPlan.Due, when isReady: (@Sendable () -> Bool)? = nil) {
        let accepted = waiting.withLock { state -> Bool in
            // A repeat of a reminder still waiting to be played is that one.
            guard !state.keys.contains(due.key) else { return false }
            guard state.keys.count < Self.queued else {
                state.more += 1
                return false
            }
            state.keys.append(due.key)
            return true
        }
        guard accepted else { return }
        queue.async { [self] in
            if let isReady {
                let began = readClock(CLOCK_MONOTONIC)
                while !isReady(), readClock(CLOCK_MONOTONIC) - began < Self.televisionWait { usleep(100_000) }
            }
            let (settings, more) = waiting.withLock { state in
                state.keys.removeAll { $0 == due.key }
                // The last waiting reminder says how many more could not be played.
                let more = state.keys.isEmpty ? state.more : 0
                if state.keys.isEmpty { state.more = 0 }
                return (state.settings, more)
            }
            let text = more == 0 ? due.text : "\(due.text). And \(more) more reminder\(more == 1 ? "" : "s")"
            sound(text, recording: due.recording, settings: settings, atNight: due.atNight)
        }
    }

    private func sound(_ text: String, recording: Recording.Source?, settings: SoundSettings, atNight: Bool) {
        let volume = atNight ? settings.nightVolume : settings.dayVolume
        do {
            let (madeAhead, whyNot) = recording == nil ? voiceMadeAhead(text, settings: settings) : (nil, nil)
            let played = try ReminderSound.play(text, recording: recording, madeAhead: madeAhead, language: settings.language,
                                                volume: volume, on: SoundDevice(name: settings.device))
            if let problem = played.recordingProblem { log?.log(.warning, "\(problem); the reminder was spoken instead") }
            // Played, but a mixer turned down plays it to nobody.
            let silence = SoundDevice(name: settings.device).mixerSilence()
            if let silence {
                sayOnce(silence)
            } else if lastProblem.withLock({ $0.take() }) != nil {
                log?.log(.notice, "the sound device \"\(settings.device)\" plays again")
            }
            if let spoken = played.spoken, !spoken.voiceMatched,
               voiceNoted.withLock({ $0.insert(settings.language).inserted }) {
                log?.log(.warning, "no voice speaks \"\(settings.language)\"; reminders are spoken by the "
                    + "\"\(spoken.voice)\" voice")
            }
            if played.spoken?.cut == true {
                log?.log(.notice, "a reminder of \(text.count) characters was spoken up to \(Speech.mostCharacters)")
            }
            let spoke = played.playedMadeAhead ? settings.voice.engine : played.spoken == nil ? "recording" : "espeak"
            let voice = VoiceStatus(chosen: settings.voice.description, spoke: spoke, whyNotChosen: played.spoken == nil ? nil : whyNot)
            report(Report(text: text, played: played, problem: silence, voice: voice))
        } catch {
            let problem = "\(error)"
            sayOnce(problem)
            report(Report(text: text, problem: problem))
        }
    }

    /// The words of `text` made ahead in the chosen voice, or why not (said in the journal
    /// once, until the voice speaks again): eSpeak NG speaks them instead, at the minute.
    private func voiceMadeAhead(_ text: String, settings: SoundSettings) -> (SoundClip?, String?) {
        let (clip, whyNot) = spokenAhead?.madeAhead(text, settings: settings)
            ?? (nil, settings.voice == .espeak ? nil : "there is no state folder to make its words ahead in")
        let trouble = whyNot.map { "\(settings.voice.engine) did not speak the reminder: \($0)" }
        if lastVoiceTrouble.withLock({ last in defer { last = trouble }; return last != trouble }), let trouble {
            log?.log(.warning, "\(trouble); eSpeak NG spoke it")
        }
        return (clip, trouble)
    }

    /// Looks at the device before any reminder: a card whose mixer is turned down is said at
    /// the start, not at the first reminder nobody hears.
    func checkDevice() {
        queue.async { [self] in
            let device = waiting.withLock { $0.settings.device }
            guard let silence = SoundDevice(name: device).mixerSilence() else { return }
            sayOnce(silence)
            report(Report(text: "", problem: silence))
        }
    }

    /// The journal and the screen's problem rows (`tell`) hear of a trouble once, until it changes.
    private func sayOnce(_ problem: String) {
        if lastProblem.withLock({ last in defer { last = problem }; return last != problem }) {
            log?.tell(.warning, "\(problem); reminders are shown but not heard until it plays")
        }
    }

    /// Keeps the carer's mute across a restart: a file in the state folder while muted.
    func keepMuted(_ muted: Bool) {
        guard let mutedPath else { return }
        queue.async { [self] in
            if muted {
                if let problem = writeFileAtomically(Array("muted by a carer\n".utf8), to: mutedPath) {
                    log?.log(.warning, "cannot write \(mutedPath): \(problem); a restart unmutes the reminders")
                }
            } else {
                unlink(mutedPath)
            }
        }
    }

    /// Waits until everything asked is played (the tests, a stop).
    func finish() {
        queue.sync {}
    }
}
