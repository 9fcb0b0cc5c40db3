import CEspeak
import Synchronization

/// A reminder's words spoken by eSpeak NG (offline; Debian's voices) in the display's language,
/// at a calm rate. eSpeak is one engine per process, so every use goes through one lock.
package enum Speech {
    /// Words a minute: slower than eSpeak's 175, for people who hear less well.
    package static let wordsPerMinute: Int32 = 140
    /// The most characters spoken of one reminder: a long text is cut at a word.
    package static let mostCharacters = 400

    /// What was spoken and how.
    package struct Spoken: Sendable {
        package var clip: SoundClip
        /// The language of the voice that spoke (`de`, `en-gb`).
        package var voice: String
        /// Whether the display's language had a voice of its own (else the nearest spoke).
        package var voiceMatched: Bool
        /// Whether the text was longer than `mostCharacters` and cut.
        package var cut: Bool
    }

    /// Why nothing could be spoken.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    private final class Engine {
        var sampleRate: Int?
        var language: String?
        var spoken: (voice: String, matched: Bool) = ("", false)
    }

    private static let engine = Mutex(Engine())

    /// The rate of the samples speech comes in (the engine started if it was not).
    package static func sampleRate() throws(Failure) -> Int {
        try engine.withLock { engine throws(Failure) in try start(engine) }
    }

    /// `text` in the voice of `language` (a code such as `de` or `en_GB`), its symbols and
    /// emoji left out.
    package static func speak(_ text: String, language: String) throws(Failure) -> Spoken {
        let (words, cut) = speakable(text)
        return try engine.withLock { engine throws(Failure) -> Spoken in
            let rate = try start(engine)
            if engine.language != language {
                engine.spoken = try chooseVoice(for: language)
                engine.language = language
                espeak_SetParameter(espeakRATE, wordsPerMinute, 0)
            }
            let sink = SampleSink()
            let context = Unmanaged.passUnretained(sink).toOpaque()
            let result = withExtendedLifetime(sink) {
                words.withCString { text in
                    espeak_Synth(text, words.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
                }
            }
            guard result == EE_OK else { throw Failure(description: "eSpeak NG could not speak (error \(result.rawValue))") }
            return Spoken(clip: SoundClip(samples: sink.samples, sampleRate: rate), voice: engine.spoken.voice,
                          voiceMatched: engine.spoken.matched, cut: cut)
        }
    }

    /// The engine started once, its sample rate.
    private static func start(_ engine: Engine) throws(Failure) -> Int {
        if let rate = engine.sampleRate { return rate }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { throw Failure(description: "eSpeak NG cannot start (its voices, espeak-ng-data, are missing)") }
        espeak_SetSynthCallback { wav, count, events in
            // The samples of one text, in pieces, into the sink its `espeak_Synth` was given.
            guard let events, let context = events.pointee.user_data else { return 0 }
            let sink = Unmanaged<SampleSink>.fromOpaque(context).takeUnretainedValue()
            if let wav, count > 0 { sink.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
            return 0
        }
        engine.sampleRate = Int(rate)
        return Int(rate)
    }

    /// The voice for `language`: its own (`en-gb`), its language's (`en`), else English.
    private static func chooseVoice(for language: String) throws(Failure) -> (voice: String, matched: Bool) {
        let code = language.lowercased().replacing("_", with: "-").prefix { $0 != "." && $0 != "@" }
        let base = code.prefix { $0 != "-" }
        for (candidate, matched) in [(String(code), true), (String(base), true), ("en", false)] where !candidate.isEmpty {
            let found = candidate.withCString { name -> Bool in
                var wanted = espeak_VOICE()
                wanted.languages = name
                return espeak_SetVoiceByProperties(&wanted) == EE_OK && speaks(candidate)
            }
            if found { return (candidate, matched) }
        }
        throw Failure(description: "eSpeak NG has no voice for \"\(language)\", nor an English one")
    }

    /// Whether the voice now chosen is one of `language`'s (eSpeak picks its default voice
    /// for a language it does not know).
    private static func speaks(_ language: String) -> Bool {
        guard let voice = espeak_GetCurrentVoice()?.pointee, let languages = voice.languages else { return false }
        // A list of (priority byte, name, NUL), ended by an empty name.
        var cursor = languages
        while cursor.pointee != 0 {
            let name = String(cString: cursor + 1)
            if name == language || name.hasPrefix(language + "-") { return true }
            cursor += name.utf8.count + 2
        }
        return false
    }

    /// What is read out of `text`: no symbols or emoji (a 🎂 is not read as "birthday cake"),
    /// spaces made single, at most `mostCharacters`, cut at a word; and whether it was cut.
    package static func speakable(_ text: String) -> (text: String, cut: Bool) {
        var kept = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .otherSymbol, .modifierSymbol, .control, .format, .enclosingMark, .privateUse, .surrogate, .unassigned:
                continue
            default:
                if properties.isVariationSelector || (properties.isEmojiPresentation && !scalar.isASCII) { continue }
            }
            let isSpace = properties.isWhitespace
            if isSpace, lastWasSpace { continue }
            kept.append(isSpace ? " " : scalar)
            lastWasSpace = isSpace
        }
        var words = String(kept)
        while words.last == " " { words.removeLast() }
        guard words.count > mostCharacters else { return (words, false) }
        let prefix = words.prefix(mostCharacters)
        let end = prefix.lastIndex(of: " ") ?? prefix.endIndex
        return (String(prefix[..<end]), true)
    }
}

/// Where eSpeak's callback puts the samples of one text.
private final class SampleSink {
    var samples: [Int16] = []
}
