@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a folder with inotify and reports, once a burst of events has settled, that files
/// of interest changed: written, created, renamed in or out (how sync tools, editors and
/// timedatectl save: a temporary file, then a rename), or deleted.
public final class FolderWatcher: Sendable {
    private let descriptor: Int32
    private let source: any DispatchSourceRead

    /// Feed files: `*.ics`, not hidden.
    public static func isFeedFile(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".ics") && !name.hasPrefix(".")
    }

    /// - Parameters:
    ///   - isRelevant: which file names matter (events on the folder itself always do).
    ///   - onChange: called on a private queue, `debounce` after the last event of a burst.
    public init(folder: String, debounce: DispatchTimeInterval = .milliseconds(200),
                isRelevant: @escaping @Sendable (String) -> Bool = FolderWatcher.isFeedFile,
                onChange: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF
            | IN_MOVE_SELF)
        guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
            let code = errno
            close(descriptor)
            throw WatchError(errno: code)
        }
        self.descriptor = descriptor
        let queue = DispatchQueue(label: "marquee.feed-watcher")
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let burst = Burst()
        source.setEventHandler {
            guard Self.drain(descriptor, isRelevant: isRelevant) else { return }
            burst.generation += 1
            let generation = burst.generation
            queue.asyncAfter(deadline: .now() + debounce) {
                if burst.generation == generation { onChange() }
            }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// Reads every pending event; true if one concerns a relevant file or the folder itself.
    private static func drain(_ descriptor: Int32, isRelevant: (String) -> Bool) -> Bool {
        var relevant = false
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
                    let name = String(decoding: raw[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
                    let folderEvent = UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)
                    if event.mask & folderEvent != 0 || (!name.isEmpty && isRelevant(name)) {
                        relevant = true
                    }
                    offset = nameStart + Int(event.len)
                }
            }
        }
        return relevant
    }

    /// The latest burst of events; touched only on the watcher's queue.
    private final class Burst: @unchecked Sendable {
        var generation = 0
    }
}

/// A folder or the clock cannot be watched.
public struct WatchError: Error, CustomStringConvertible {
    public let description: String

    init(errno code: Int32) {
        description = "cannot watch: \(String(cString: strerror(code)))"
    }
}
