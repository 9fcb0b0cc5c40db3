#if canImport(Glibc)
    import Glibc
#endif

/// The chime before a reminder: a soft two-note bell (a fifth falling, as a door chime),
/// made here rather than shipped. Each note swells in over 30 ms, so it never starts with a
/// click, and fades as a struck bell does, its overtones sooner than its note.
package enum Chime {
    /// The notes: their pitch (Hz) and when they begin (seconds).
    package static let notes: [(frequency: Double, start: Double)] = [(783.99, 0), (523.25, 0.45)]
    /// How long the chime lasts, its last note's ring included.
    package static let seconds = 1.6
    /// The peak of the louder note, as a fraction of full scale: about as loud as the speech.
    static let peak = 0.32
    static let swell = 0.03

    package static func make(sampleRate: Int) -> SoundClip {
        let count = Int(seconds * Double(sampleRate))
        var mixed = [Double](repeating: 0, count: count)
        for note in notes {
            let first = Int(note.start * Double(sampleRate))
            for index in first..<count {
                let t = Double(index - first) / Double(sampleRate)
                let onset = t < swell ? 0.5 - 0.5 * cos(Double.pi * t / swell) : 1
                let fundamental = sin(2 * Double.pi * note.frequency * t) * exp(-t / 0.45)
                let overtone = 0.25 * sin(2 * Double.pi * 2 * note.frequency * t) * exp(-t / 0.15)
                // The whole chime ends silent: the last 100 ms fade to nothing.
                let tail = min(1, Double(count - index) / (0.1 * Double(sampleRate)))
                mixed[index] += peak * onset * tail * (fundamental + overtone) / 1.25
            }
        }
        return SoundClip(samples: mixed.map { Int16(($0 * Double(Int16.max)).rounded()) }, sampleRate: sampleRate)
    }
}
