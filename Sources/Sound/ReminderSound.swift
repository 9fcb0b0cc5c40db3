/// What a reminder sounds like: the chime, a breath's pause, then its words — one sound, at
/// one volume, played on one device.
public enum ReminderSound {
    /// The pause between the chime and the words, in seconds.
    public static let pause = 0.4

    /// What was heard: the figures of one reminder played.
    public struct Played: Sendable {
        public var spoken: Speech.Spoken
        /// Seconds from the call to the first samples on the device.
        public var firstSampleAfter: Double
        /// Seconds of processor time the words took to make.
        public var synthesisSeconds: Double
    }

    /// Plays the chime, then (made while the chime plays) `text` spoken in `language`'s
    /// voice, both at `volume`.
    public static func play(
        _ text: String, language: String, volume: Volume, on device: SoundDevice
    ) throws -> Played {
        let rate = try Speech.sampleRate()
        var spoken: Speech.Spoken?
        var firstSample = 0.0
        var synthesis = 0.0
        try device.play(first: Chime.make(sampleRate: rate).atVolume(volume), then: {
            guard spoken == nil else { return nil }
            let began = processorSeconds()
            let words = try Speech.speak(text, language: language)
            synthesis = processorSeconds() - began
            spoken = words
            return SoundClip.silence(seconds: pause, sampleRate: rate).followed(by: words.clip.atVolume(volume))
        }, whenPlaying: { firstSample = $0 })
        return Played(spoken: spoken!, firstSampleAfter: firstSample, synthesisSeconds: synthesis)
    }

    /// The whole sound as one clip, as `play` plays it (`marquee say --out`).
    public static func clip(_ text: String, language: String, volume: Volume) throws -> (SoundClip, Speech.Spoken) {
        let rate = try Speech.sampleRate()
        let words = try Speech.speak(text, language: language)
        let clip = Chime.make(sampleRate: rate).followed(by: .silence(seconds: pause, sampleRate: rate))
            .followed(by: words.clip)
        return (clip.atVolume(volume), words)
    }
}

extension SoundClip {
    /// The clip as a WAV file (RIFF, 16-bit PCM, mono).
    public var wav: [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) { bytes += Array(text.utf8) }
        func append32(_ value: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func append16(_ value: Int) { bytes += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let dataSize = samples.count * 2
        append("RIFF")
        append32(36 + dataSize)
        append("WAVEfmt ")
        append32(16)
        append16(1)
        append16(1)
        append32(sampleRate)
        append32(sampleRate * 2)
        append16(2)
        append16(16)
        append("data")
        append32(dataSize)
        bytes.reserveCapacity(bytes.count + dataSize)
        for sample in samples {
            bytes.append(UInt8(truncatingIfNeeded: sample))
            bytes.append(UInt8(truncatingIfNeeded: sample >> 8))
        }
        return bytes
    }
}
