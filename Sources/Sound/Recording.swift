import CSndfile

#if canImport(Glibc)
    import Glibc
#endif

/// A carer's own recording of a reminder (WAV, FLAC, Ogg Vorbis or Opus, MP3: what libsndfile
/// reads), played instead of the spoken words: a file next to the calendar, one fetched from an
/// address, or one written into the calendar itself. Bounded: a file of more than `mostBytes`
/// or a sound longer than `mostSeconds` is refused, so a 1 GB attachment costs nothing.
package enum Recording {
    package static let mostBytes = 16 << 20
    package static let mostSeconds = 60.0
    /// Samples a second kept of a recording made at a higher rate: more is not heard.
    package static let keptRate = 48_000

    /// Where a recording is.
    package enum Source: Sendable, Equatable {
        /// A file; one that `within` names must be in that folder once links are followed (a
        /// link in a calendar's folder does not lead the box to a file elsewhere).
        case file(String, within: String? = nil)
        /// The bytes of a sound file, and how to name it in a message.
        case bytes([UInt8], describedAs: String)
    }

    /// Why a recording cannot be played, with its path.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package var description: String
    }

    /// The recording, its channels mixed to one.
    package static func load(_ source: Source) throws(Failure) -> SoundClip {
        switch source {
        case .file(let path, let folder): try load(path, within: folder)
        case .bytes(let bytes, let name): try load(bytes, describedAs: name)
        }
    }

    /// The recording at `path` (in `folder`, when one is given), its channels mixed to one.
    package static func load(_ path: String, within folder: String? = nil) throws(Failure) -> SoundClip {
        func failure(_ why: String) -> Failure { Failure(description: "the recording \(path) \(why)") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure("cannot be read: \(String(cString: strerror(errno)))") }
        if let folder, let real = realPath(path), let inside = realPath(folder), !real.hasPrefix(inside + "/") {
            throw failure("leads out of the calendar's folder \(folder) (to \(real)); it is not played")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("is not a file") }
        guard status.st_size <= mostBytes else {
            throw failure("is too large (\(status.st_size / (1 << 20)) MB; at most \(mostBytes >> 20) MB)")
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw failure("cannot be played: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        return try decode(file, info, failure: failure)
    }

    /// `path` with every link followed (nil: it cannot be).
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The recording in `bytes` (a sound file's contents, read from memory), named `name` in
    /// what is said of it.
    package static func load(_ bytes: [UInt8], describedAs name: String) throws(Failure) -> SoundClip {
        func failure(_ why: String) -> Failure { Failure(description: "the recording \(name) \(why)") }
        guard bytes.count <= mostBytes else {
            throw failure("is too large (\(bytes.count / (1 << 20)) MB; at most \(mostBytes >> 20) MB)")
        }
        let memory = MemoryFile(bytes)
        var info = SF_INFO()
        var io = SF_VIRTUAL_IO(
            get_filelen: { MemoryFile.from($0).length },
            seek: { offset, whence, context in MemoryFile.from(context).seek(offset, whence) },
            read: { buffer, count, context in MemoryFile.from(context).read(into: buffer, count) },
            write: { _, _, _ in 0 },
            tell: { MemoryFile.from($0).offset })
        let opened = withExtendedLifetime(memory) {
            sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(memory).toOpaque())
        }
        guard let file = opened else { throw failure("cannot be played: \(String(cString: sf_strerror(nil)))") }
        defer { sf_close(file) }
        return try withExtendedLifetime(memory) { () throws(Failure) in try decode(file, info, failure: failure) }
    }

    private static func decode(
        _ file: OpaquePointer, _ info: SF_INFO, failure: (String) -> Failure
    ) throws(Failure) -> SoundClip {
        let channels = Int(info.channels)
        guard info.samplerate >= 8_000, info.samplerate <= 192_000, (1...8).contains(channels) else {
            throw failure("has \(channels) channels at \(info.samplerate) Hz, which marquee does not play")
        }
        guard Double(info.frames) / Double(info.samplerate) <= mostSeconds else {
            throw failure("lasts longer than \(Int(mostSeconds)) s")
        }
        // Read a block at a time and mixed to one channel as it comes, every `step` frames
        // averaged into one above 48 kHz: what is held is the sound as it is played, never its
        // channels (eight at 192 kHz from a 90 kB FLAC of silence were 184 MB), and never more
        // than the header promised.
        let step = max(1, Int(info.samplerate) / keptRate)
        let mostFrames = Int(info.frames)
        let block = 4_096 * step
        var interleaved = [Int16](repeating: 0, count: block * channels)
        var mixed: [Int16] = []
        mixed.reserveCapacity(mostFrames / step)
        var frames = 0
        while frames < mostFrames {
            let wanted = min(block, mostFrames - frames)
            let read = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, sf_count_t(wanted)) })
            guard read > 0 else { break }
            frames += read
            interleaved.withUnsafeBufferPointer { samples in
                let width = channels * step
                for start in stride(from: 0, to: (read / step) * width, by: width) {
                    var sum = 0
                    for index in start..<start + width { sum += Int(samples[index]) }
                    mixed.append(Int16(sum / width))
                }
            }
        }
        guard !mixed.isEmpty else { throw failure("holds no sound (\(String(cString: sf_strerror(file))))") }
        return SoundClip(samples: mixed, sampleRate: Int(info.samplerate) / step)
    }
}

/// Bytes that libsndfile reads through its virtual file calls.
private final class MemoryFile {
    let bytes: [UInt8]
    private(set) var offset: sf_count_t = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var length: sf_count_t { sf_count_t(bytes.count) }

    static func from(_ context: UnsafeMutableRawPointer?) -> MemoryFile {
        Unmanaged<MemoryFile>.fromOpaque(context!).takeUnretainedValue()
    }

    func seek(_ distance: sf_count_t, _ whence: Int32) -> sf_count_t {
        let base: sf_count_t = whence == SEEK_CUR ? offset : whence == SEEK_END ? length : 0
        offset = min(max(base + distance, 0), length)
        return offset
    }

    func read(into buffer: UnsafeMutableRawPointer?, _ count: sf_count_t) -> sf_count_t {
        let taken = Int(min(max(count, 0), length - offset))
        guard let buffer, taken > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: taken) }
        offset += sf_count_t(taken)
        return sf_count_t(taken)
    }
}
