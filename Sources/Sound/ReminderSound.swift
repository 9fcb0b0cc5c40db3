import Support

#if canImport(Glibc)
    import Glibc
#endif

/// What a reminder sounds like: the chime, a breath's pause, then its words — spoken, or the
/// carer's own recording — one sound, at one volume, played on one device.
package enum ReminderSound {
    /// The pause between the chime and the words, in seconds.
    package static let pause = 0.4

    /// What was heard: the figures of one reminder played.
    package struct Played: Sendable {
        /// The words spoken (nil: the recording played).
        package var spoken: Speech.Spoken?
        /// Whether the words made ahead played (not the recording, not eSpeak NG).
        package var playedMadeAhead = false
        /// Why the recording asked for could not be played (the words were spoken instead).
        package var recordingProblem: String?
        /// Seconds from the call to the first samples on the device (the recording read, the
        /// chime made, the device opened).
        package var firstSampleAfter: Double
        /// Seconds of processor time the words took to make.
        package var synthesisSeconds: Double
    }

    /// Plays the chime, then the recording, or where there is none or
    /// it cannot be played, the words made ahead (`madeAhead`, by a neural voice), else `text`
    /// spoken by eSpeak NG in `language`'s voice (made while the chime plays); all at `volume`.
    package static func play(
        _ text: String, recording: Recording.Source? = nil, madeAhead: SoundClip? = nil, language: String, volume: Volume,
        on device: SoundDevice
    ) throws -> Played {
        let began = readClock(CLOCK_MONOTONIC)
        var recordingProblem: String?
        var recorded: SoundClip?
        if let recording {
            do {
                recorded = try Recording.load(recording)
            } catch {
                recordingProblem = "\(error)"
            }
        }
        let ready = recorded ?? madeAhead
        let rate = try ready?.sampleRate ?? Speech.sampleRate()
        var spoken: Speech.Spoken?
        var firstSample = 0.0
        var synthesis = 0.0
        var done = false
        try device.play(first: Chime.make(sampleRate: rate).atVolume(volume), then: {
            guard !done else { return nil }
            done = true
            let words: SoundClip
            if let ready {
                words = ready
            } else {
                let began = readClock(CLOCK_THREAD_CPUTIME_ID)
                let made = try Speech.speak(text, language: language)
                synthesis = Double(readClock(CLOCK_THREAD_CPUTIME_ID) - began) / 1e9
                spoken = made
                words = made.clip
            }
            return SoundClip.silence(seconds: pause, sampleRate: rate).followed(by: words.atVolume(volume))
        }, whenPlaying: { firstSample = Double(readClock(CLOCK_MONOTONIC) - began) / 1e9 })
        return Played(spoken: spoken, playedMadeAhead: recorded == nil && madeAhead != nil, recordingProblem: recordingProblem,
                      firstSampleAfter: firstSample, synthesisSeconds: synthesis)
    }

    /// The whole sound as one clip, as `play` plays it (`marquee say --out`); a recording that
    /// cannot be played is an error here.
    package static func clip(
        _ text: String, recording: Recording.Source? = nil, madeAhead: SoundClip? = nil, language: String, volume: Volume
    ) throws -> (SoundClip, Speech.Spoken?) {
        let recorded = try recording.map { source throws(Recording.Failure) in try Recording.load(source) } ?? madeAhead
        let spoken = try recorded == nil ? Speech.speak(text, language: language) : nil
        let words = recorded ?? spoken!.clip
        let clip = Chime.make(sampleRate: words.sampleRate).followed(by: .silence(seconds: pause, sampleRate: words.sampleRate))
            .followed(by: words)
        return (clip.atVolume(volume), spoken)
    }
}

extension SoundClip {
    /// The clip as a WAV file (RIFF, 16-bit PCM, mono).
    package var wav: [UInt8] {
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
