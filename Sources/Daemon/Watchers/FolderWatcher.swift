@preconcurrency import Dispatch
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a folder with inotify and reports, once a burst of events has settled, that files
/// of interest changed: written, created, renamed in or out (how sync tools, editors and
/// timedatectl save: a temporary file, then a rename), or deleted. The folder's parent is
/// watched too, so a folder that is removed, renamed or made unreadable and then comes back
/// is noticed and watched again; while the parent is missing too, the nearest folder above it
/// that exists is watched, so a whole path made later (`mkdir -p`) is followed down.
final class FolderWatcher: Sendable {
    private let source: any DispatchSourceRead

    /// - Parameters:
    ///   - folder: need not exist yet, nor the folders above it.
    ///   - isRelevant: which file names matter (events on the folder itself always do).
    ///   - onChange: called on a private queue, `debounce` after the last event of a burst, and
    ///     at the latest `longestWait` after its first: a file touched without pause (a sync
    ///     tool, an appender) does not hold back every other change.
    init(folder: String, debounce: DispatchTimeInterval = .milliseconds(200), longestWait: DispatchTimeInterval = .seconds(1),
                isRelevant: @escaping @Sendable (String) -> Bool = isFeedFileName,
                onChange: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        let trimmed = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        let (parent, name) = splitPath(trimmed)
        let watches = Watches(descriptor: descriptor, folder: trimmed, parent: parent, name: name)
        watches.watchParent()
        watches.watchFolder()
        guard watches.parent >= 0 || watches.folder >= 0 || watches.ancestor >= 0 else {
            let code = errno
            close(descriptor)
            throw WatchError(errno: code)
        }
        let queue = DispatchQueue(label: "marquee.folder-watcher")
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler {
            guard watches.drain(isRelevant: isRelevant) else { return }
            watches.generation += 1
            let generation = watches.generation
            let now = DispatchTime.now()
            let start = watches.burstStart ?? now
            watches.burstStart = start
            queue.asyncAfter(deadline: min(now + debounce, start + longestWait)) {
                // Reported once: when the burst has settled, or when it has lasted too long.
                guard let start = watches.burstStart,
                      watches.generation == generation || DispatchTime.now() >= start + longestWait else { return }
                watches.burstStart = nil
                onChange()
            }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// The inotify watches and the latest burst; touched only on the watcher's queue (and
    /// before it starts).
    private final class Watches: @unchecked Sendable {
        let descriptor: Int32
        let folderPath: String
        let parentPath: String
        /// The folder's name in its parent.
        let name: String
        /// -1 while the parent is missing.
        var parent: Int32 = -1
        /// While the parent is missing: the nearest folder above it that exists, and the name
        /// in it of the next folder on the way down.
        var ancestor: Int32 = -1
        var ancestorNext = ""
        /// -1 while the folder is missing or cannot be watched.
        var folder: Int32 = -1
        var generation = 0
        /// When the burst not yet reported began (nil: none is pending).
        var burstStart: DispatchTime?

        init(descriptor: Int32, folder: String, parent: String, name: String) {
            self.descriptor = descriptor
            folderPath = folder
            parentPath = parent
            self.name = name
        }

        /// Watches the parent, or while it is missing the nearest existing folder above it
        /// (again as each folder on the way appears).
        func watchParent() {
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_ONLYDIR)
            var missing = parentPath
            while true {
                parent = inotify_add_watch(descriptor, parentPath, mask)
                if parent >= 0 {
                    if ancestor >= 0 { inotify_rm_watch(descriptor, ancestor) }
                    ancestor = -1
                    return
                }
                // There but not watchable (no permission, no watches left): nothing above helps.
                guard errno == ENOENT || errno == ENOTDIR else { return }
                let (above, next) = splitPath(missing)
                guard above != missing else { return }
                let watch = inotify_add_watch(descriptor, above, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
                guard watch >= 0 else {
                    missing = above
                    continue
                }
                if ancestor >= 0, ancestor != watch { inotify_rm_watch(descriptor, ancestor) }
                ancestor = watch
                ancestorNext = next
                // Made meanwhile: go down again; else wait for it to appear.
                var info = stat()
                guard stat(missing, &info) == 0 else { return }
                missing = parentPath
            }
        }

        func watchFolder() {
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF
                | IN_MOVE_SELF | IN_ATTRIB)
            folder = inotify_add_watch(descriptor, folderPath, mask)
        }

        /// Reads every pending event; true if one concerns a relevant file, the folder itself,
        /// or the folder's entry in its parent (then the folder is watched again).
        func drain(isRelevant: (String) -> Bool) -> Bool {
            var relevant = false
            var folderReappeared = false
            var pathGrew = false
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                buffer.withUnsafeBytes { raw in
                    var offset = 0
                    while offset + MemoryLayout<inotify_event>.size <= count {
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let nameStart = offset + MemoryLayout<inotify_event>.size
                        let nameEnd = min(count, nameStart + Int(event.len))
                        let entry = String(decoding: raw[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
                        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                            relevant = true
                        } else if event.wd == parent {
                            if entry == name {
                                relevant = true
                                folderReappeared = true
                            }
                        } else if event.wd == ancestor, ancestor >= 0 {
                            if entry == ancestorNext {
                                relevant = true
                                pathGrew = true
                            }
                        } else if event.wd == folder {
                            if event.mask & UInt32(IN_IGNORED) != 0 { folder = -1 }
                            if entry.isEmpty || isRelevant(entry) { relevant = true }
                        }
                        offset = nameStart + Int(event.len)
                    }
                }
            }
            if pathGrew { watchParent() }
            if folderReappeared || pathGrew || folder < 0 { watchFolder() }
            return relevant
        }
    }
}

/// A folder or the clock cannot be watched.
struct WatchError: Error, CustomStringConvertible {
    let description: String

    init(errno code: Int32) {
        description = "cannot watch: \(String(cString: strerror(code)))"
    }
}
