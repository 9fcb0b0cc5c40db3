import CSndfile

#if canImport(Glibc)
    import Glibc
#endif

/// A carer's own recording of a reminder (WAV, FLAC, Ogg Vorbis or Opus, MP3: what libsndfile
/// reads), played instead of the spoken words. Bounded: a file of more than `mostBytes` or a
/// sound longer than `mostSeconds` is refused, so a 1 GB attachment costs nothing.
public enum Recording {
    public static let mostBytes = 16 << 20
    public static let mostSeconds = 60.0

    /// Why a recording cannot be played, with its path.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The recording at `path`, its channels mixed to one.
    public static func load(_ path: String) throws(Failure) -> SoundClip {
        func failure(_ why: String) -> Failure { Failure(description: "the recording \(path) \(why)") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure("cannot be read: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("is not a file") }
        guard status.st_size <= mostBytes else {
            throw failure("is too large (\(status.st_size / (1 << 20)) MB; at most \(mostBytes >> 20) MB)")
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw failure("cannot be played: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        guard info.samplerate >= 8_000, info.samplerate <= 192_000, (1...8).contains(channels) else {
            throw failure("has \(channels) channels at \(info.samplerate) Hz, which marquee does not play")
        }
        guard Double(info.frames) / Double(info.samplerate) <= mostSeconds else {
            throw failure("lasts longer than \(Int(mostSeconds)) s")
        }
        var interleaved = [Int16](repeating: 0, count: Int(info.frames) * channels)
        let read = interleaved.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, info.frames) }
        guard read > 0 else { throw failure("holds no sound (\(String(cString: sf_strerror(file))))") }
        let mixed = (0..<Int(read)).map { frame in
            let sum = (0..<channels).reduce(0) { $0 + Int(interleaved[frame * channels + $1]) }
            return Int16(sum / channels)
        }
        return SoundClip(samples: mixed, sampleRate: Int(info.samplerate))
    }
}
