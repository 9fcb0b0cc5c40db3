import Schedule
import Sound
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The words of the coming reminders, made ahead by the neural voice the carer chose (`voice`
/// = Piper or a Wyoming server) and kept in the state folder: at the trigger they play at once,
/// however slow the engine is (a second or more on a small box). Made after each reading of
/// the feeds and every minute, for the reminders of the next hours, soonest first; what is not
/// ready at its minute — the engine failed, is slow or missing, the words were changed a moment
/// ago — is spoken by eSpeak NG, and why is said once.
final class SpokenAhead: Sendable {
    /// The folder under the state folder.
    static let folderName = "spoken"
    /// How far ahead of a reminder its words are made.
    static let aheadSeconds: Int64 = 3 * 3600
    /// How often the coming reminders are looked at, besides after each reading of the feeds.
    static let lookSeconds: Int64 = 60

    let folder: String
    private let settings: Mutex<SoundSettings>
    /// Why the words of a file name could not be made, as last tried.
    private let failures = Mutex<[String: String]>([:])
    /// The engine's trouble last said in the journal (nil: it spoke), so it is said once.
    private let lastTrouble = Mutex<String?>(nil)

    let wakeUps: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation

    init(folder: String, settings: SoundSettings) {
        self.folder = folder
        self.settings = Mutex(settings)
        (wakeUps, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// From now on (a reload), and the coming reminders made again in the new voice.
    func use(_ newSettings: SoundSettings) {
        settings.withLock { $0 = newSettings }
        wake()
    }

    /// Asks for a look at the coming reminders now (the feeds were read).
    func wake() { wakeUp.yield() }

    /// Whether anything is to be made: a neural voice is chosen and reminders are heard.
    var isWanted: Bool {
        settings.withLock { $0.voice != .espeak && $0.speak != .off }
    }

    /// The file the words of `text` are kept in: named by the words, the voice and the
    /// language (the volume is applied as they play).
    static func name(of text: String, settings: SoundSettings) -> String {
        let key = [Speech.speakable(text).text, settings.voice.description, settings.language].joined(separator: "\u{1F}")
        return String(stableHash(key), radix: 16) + ".wav"
    }

    /// The words of `text` made ahead in the chosen voice, or why there are none; nil and nil
    /// when eSpeak NG is the chosen voice.
    func madeAhead(_ text: String, settings: SoundSettings) -> (clip: SoundClip?, whyNot: String?) {
        guard settings.voice != .espeak else { return (nil, nil) }
        let name = Self.name(of: text, settings: settings)
        do {
            return (try Recording.load(folder + "/" + name), nil)
        } catch {
            // A file that cannot be read (a disk fault) is made again, with the missing one.
            unlink(folder + "/" + name)
        }
        // Made for its repeat, at least.
        wake()
        return (nil, failures.withLock { $0[name] } ?? "its words were not made ahead in time")
    }

    /// Makes the words of `texts` not made yet (soonest first) and lets go of those no text
    /// wants; what to say in the journal: a new trouble of the engine, or that it speaks again.
    func make(_ texts: [String], now: Int64) -> [String] {
        guard isWanted else { return [] }
        let settings = settings.withLock { $0 }
        if !texts.isEmpty { _ = mkdir(folder, 0o750) }
        var said: [String] = []
        var wanted = Set<String>()
        // A voice file or program missing is said at once, with no reminder due; an engine that
        // failed once is not asked again in this round (one that hangs costs its bound once).
        let missing = NeuralSpeech.problem(of: settings.voice, piperCommand: settings.piperCommand)
        var failed = missing
        for text in texts {
            let name = Self.name(of: text, settings: settings)
            guard wanted.insert(name).inserted, access(folder + "/" + name, F_OK) != 0 else { continue }
            do {
                if let failed { throw Speech.Failure(description: failed) }
                let clip = try NeuralSpeech.speak(text, voice: settings.voice, piperCommand: settings.piperCommand,
                                                  within: NeuralSpeech.mostWaitSeconds)
                failures.withLock { $0[name] = nil }
                if let problem = writeFileAtomically(clip.wav, to: folder + "/" + name) {
                    said += tell("the words made by \(settings.voice.engine) cannot be kept in \(folder): \(problem)")
                } else if lastTrouble.withLock({ $0.take() }) != nil {
                    said.append("the voice \(settings.voice) speaks again")
                }
            } catch {
                failed = "\(error)"
                failures.withLock { $0[name] = "\(error)" }
                said += tell(cannotSpeak(settings.voice, "\(error)"))
            }
        }
        if let missing, texts.isEmpty { said += tell(cannotSpeak(settings.voice, missing)) }
        removeStaleFiles(in: folder, endingWith: ".wav", keeping: wanted, olderThan: ReminderPlan.rememberedSeconds, now: now)
        failures.withLock { $0 = $0.filter { wanted.contains($0.key) } }
        return said
    }

    private func cannotSpeak(_ voice: VoiceChoice, _ why: String) -> String {
        "the voice \(voice) cannot speak: \(why); reminders are spoken by eSpeak NG until it can"
    }

    private func tell(_ trouble: String) -> [String] {
        lastTrouble.withLock { last in
            defer { last = trouble }
            return last == trouble ? [] : [trouble]
        }
    }
}

/// Keeps the words of the coming reminders made in the chosen voice, for as long as the task
/// runs: after each reading of the feeds and every minute, the texts that sound in the next
/// hours on the display's clock (those without a recording of their own), soonest first.
func keepSpeechMadeAhead(
    _ spoken: SpokenAhead, schedule: Schedule, displayClock: any BoxClock, log: EventLog, clock: any BoxClock = SystemClock()
) async {
    await lookAgain(every: SpokenAhead.lookSeconds, orWhen: spoken.wakeUps, clock: clock) {
        // eSpeak NG, the default, needs nothing made: no look at the schedule either.
        guard spoken.isWanted else { return }
        let now = displayClock.wallTime().instant
        let agenda = await schedule.agenda(from: now, to: now + SpokenAhead.aheadSeconds)
        let texts = agenda.entries.filter { $0.change != .end && $0.message.sounding.map { $0.attachment == nil && $0.embedded == nil } == true }
            .map(\.message.text)
        let said = await onThread(named: "marquee-voice") { spoken.make(texts, now: clock.now().secondsSinceEpoch) } ?? []
        for line in said { log.log(.warning, line) }
    }
}
