import Support

/// Where the bytes of a version in effect are: in memory, or in a file that held exactly them
/// when they were read (its fingerprint tells whether it still does). Keeping thousands of
/// calendars' text in memory cost 3.7 times their size; a file on disk costs nothing.
enum FeedSource: CustomStringConvertible {
    case memory([UInt8])
    /// A file's path (as the system names it) and what its bytes were.
    case disk([UInt8], FeedFingerprint)

    /// The bytes, if they can still be had.
    func bytes(limit: Int) -> [UInt8]? {
        switch self {
        case .memory(let bytes):
            return bytes
        case .disk(let path, let fingerprint):
            guard case .success(let bytes) = readFile(systemPath: path, limit: limit), FeedFingerprint(bytes) == fingerprint
            else { return nil }
            return bytes
        }
    }

    /// Whether these are the bytes it stands for.
    func holds(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .memory(let kept): kept == bytes
        case .disk(_, let fingerprint): FeedFingerprint(bytes) == fingerprint
        }
    }

    var description: String {
        switch self {
        case .memory: "memory"
        case .disk(let path, _): String(decoding: path, as: UTF8.self)
        }
    }
}

/// Which version of a file is in effect after a load reads it, from what is known of it: the
/// one decision of a load, kept apart so every case of it is tested.
struct VersionChoice: Hashable {
    /// Its bytes are those of the version in effect.
    var isUnchanged: Bool
    /// The bytes read now give a usable calendar.
    var readsWell: Bool
    /// The version in effect (shown) is a good one.
    var shownIsGood: Bool
    /// A last good copy on disk can stand in.
    var hasUsableCopy: Bool
    /// The reader was stopped without a verdict on the bytes (it made no progress, used its
    /// time, could not start): nothing is known of them, and they are read again later.
    var readerStopped = false

    enum Outcome: Hashable {
        /// The version in effect stays, as it was.
        case keepsItsVersion
        /// The bytes read now are the new version (and the last good copy).
        case takesTheNewVersion
        /// Broken now: the good version shown stays.
        case keepsWhatIsShown
        /// Broken now, nothing good shown: the last good copy is put in effect.
        case takesTheLastGoodCopy
        /// Broken, with nothing good to fall back on: what can be read of it is shown.
        case showsWhatItCan
        /// Not read this time, with nothing good to fall back on: what is in effect stays (if
        /// anything), and these bytes are not taken for the file's version.
        case waitsToBeReadAgain
    }

    var outcome: Outcome {
        if isUnchanged { return .keepsItsVersion }
        if readsWell { return .takesTheNewVersion }
        if shownIsGood { return .keepsWhatIsShown }
        if hasUsableCopy { return .takesTheLastGoodCopy }
        return readerStopped ? .waitsToBeReadAgain : .showsWhatItCan
    }

    /// What the status says of the file.
    var state: FeedStatus.State {
        switch outcome {
        case .keepsItsVersion: shownIsGood ? .loaded : .failed(keptLastGood: false)
        case .takesTheNewVersion: .loaded
        case .keepsWhatIsShown, .takesTheLastGoodCopy: .failed(keptLastGood: true)
        case .showsWhatItCan, .waitsToBeReadAgain: .failed(keptLastGood: false)
        }
    }
}

/// Tells one version of a file from another without keeping it: its length and a hash seeded
/// anew in every process (so no file can be made to match another on purpose).
package struct FeedFingerprint: Hashable, Sendable {
    let count: Int
    let hash: Int

    package init(_ bytes: [UInt8]) {
        count = bytes.count
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hash = hasher.finalize()
    }
}
