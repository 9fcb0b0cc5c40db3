/// Sound as marquee plays it: mono 16-bit samples at one rate, what the device is given.
package struct SoundClip: Sendable, Equatable {
    package var samples: [Int16]
    package var sampleRate: Int

    package init(samples: [Int16] = [], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// `seconds` of silence.
    package static func silence(seconds: Double, sampleRate: Int) -> SoundClip {
        SoundClip(samples: [Int16](repeating: 0, count: Int(seconds * Double(sampleRate))), sampleRate: sampleRate)
    }

    package var seconds: Double { Double(samples.count) / Double(sampleRate) }

    /// This clip, then `other` (at the same rate).
    package func followed(by other: SoundClip) -> SoundClip {
        precondition(other.sampleRate == sampleRate || other.samples.isEmpty, "clips of different rates")
        return SoundClip(samples: samples + other.samples, sampleRate: sampleRate)
    }

    /// As loud as `volume` says.
    package func atVolume(_ volume: Volume) -> SoundClip {
        let gain = volume.gain
        return SoundClip(samples: samples.map { Int16((Double($0) * gain).rounded()) }, sampleRate: sampleRate)
    }
}

/// A loudness from 0 (silent) to 100 (as synthesized), applied to the samples so that it holds
/// on any device. The steps follow the ear: the gain is the square of the fraction (50 is about
/// 12 dB quieter than 100, 10 is 40 dB quieter).
package struct Volume: Sendable, Hashable, CustomStringConvertible {
    package let percent: Int

    /// nil unless 0…100.
    package init?(percent: Int) {
        guard (0...100).contains(percent) else { return nil }
        self.percent = percent
    }

    package var gain: Double { Double(percent * percent) / 10_000 }

    package var description: String { "\(percent)" }
}
