@preconcurrency import Dispatch
import Marquee
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Key presses on any keyboard or big button plugged into the box, read from the kernel's
/// input devices (`/dev/input/event*`, evdev; the unit's user is in the `input` group): a
/// person acknowledges the reminder they heard with any key. A device plugged in later is
/// opened when it appears, one pulled out is let go.
final class KeyWatcher: Sendable {
    /// A press is reported at most this often (a button bounces, a hand presses twice).
    private let quietAfterPress: Nanoseconds

    private let queue = DispatchQueue(label: "marquee.keys")
    private let folder: String
    private let onPress: @Sendable () -> Void
    /// The devices open, by name, each with its read source.
    private let devices = Mutex<[String: any DispatchSourceRead]>([:])
    private let lastPress = Mutex<UInt64?>(nil)
    /// The devices that could not be opened, by name, with why: said once.
    private let refused = Mutex<[String: String]>([:])
    private let log: EventLog?
    private let folderWatcher = Mutex<FolderWatcher?>(nil)

    /// - Parameters:
    ///   - folder: where the input devices are (`/dev/input`).
    ///   - quietAfterPress: presses this soon after one are not reported.
    ///   - onPress: called on a private queue for each key pressed (not released, not repeated).
    init(folder: String = "/dev/input", quietAfterPress: Nanoseconds = 500_000_000, log: EventLog?,
         onPress: @escaping @Sendable () -> Void) throws(WatchError) {
        self.folder = folder
        self.quietAfterPress = quietAfterPress
        self.log = log
        self.onPress = onPress
        // Devices are opened and let go on this watcher's own queue only, one look at a time.
        let watcher = try FolderWatcher(folder: folder, debounce: .milliseconds(100), isRelevant: { $0.hasPrefix("event") }) {
            [weak self] in
            guard let self else { return }
            queue.async { [weak self] in self?.openNewDevices() }
        }
        folderWatcher.withLock { $0 = watcher }
        queue.sync { openNewDevices() }
    }

    deinit {
        devices.withLock { open in
            for source in open.values { source.cancel() }
        }
    }

    /// The names of the devices read now.
    var openDevices: [String] { devices.withLock { $0.keys.sorted() } }

    /// Opens the devices that appeared and lets go of those whose node is gone.
    private func openNewDevices() {
        let names = (directoryEntries(folder) ?? []).map { shownName($0.bytes) }.filter { $0.hasPrefix("event") }
        let gone = devices.withLock { open in
            let gone = open.filter { !names.contains($0.key) }
            for name in gone.keys { open[name] = nil }
            return gone.values
        }
        for source in gone { source.cancel() }
        var newlyRefused: [String: [String]] = [:]
        defer {
            // One line for what one look could not open, by reason: a desktop has dozens.
            for (why, refusedNames) in newlyRefused.sorted(by: { $0.key < $1.key }) {
                log?.log(.warning, "cannot read the keys of \(folder)/\(refusedNames.sorted().joined(separator: ", ")) (\(why)); "
                    + "a key on \(refusedNames.count == 1 ? "it" : "them") does not acknowledge reminders")
            }
        }
        for name in names where devices.withLock({ $0[name] == nil }) {
            let path = folder + "/" + name
            let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                let why = String(cString: strerror(errno))
                if refused.withLock({ $0.updateValue(why, forKey: name) != why }) { newlyRefused[why, default: []].append(name) }
                continue
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler { [weak self] in self?.read(descriptor, device: name) }
            source.setCancelHandler { close(descriptor) }
            devices.withLock { $0[name] = source }
            source.resume()
        }
    }

    /// Reads what the device has; a device that ends (pulled out) is let go.
    private func read(_ descriptor: Int32, device name: String) {
        let size = MemoryLayout<timeval>.size + 8
        var buffer = [UInt8](repeating: 0, count: size * 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { return }
            guard count > 0 else {
                let source = devices.withLock { $0.removeValue(forKey: name) }
                source?.cancel()
                return
            }
            if Self.pressed(in: buffer[0..<count]) { pressed() }
        }
    }

    /// Whether `bytes` (whole `struct input_event`s: a time, then type, code and value) hold a
    /// key going down (`EV_KEY`, value 1; 2 is the key repeating, 0 released).
    static func pressed(in bytes: ArraySlice<UInt8>) -> Bool {
        let size = MemoryLayout<timeval>.size + 8
        let time = MemoryLayout<timeval>.size
        var offset = bytes.startIndex
        while offset + size <= bytes.endIndex {
            let type = UInt16(bytes[offset + time]) | UInt16(bytes[offset + time + 1]) << 8
            let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + time + 4 + $1]) << (8 * $1) }
            if type == 1, value == 1 { return true }
            offset += size
        }
        return false
    }

    private func pressed() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = lastPress.withLock { last in
            defer { if last.map({ now - $0 >= UInt64(quietAfterPress) }) ?? true { last = now } }
            return last.map { now - $0 >= UInt64(quietAfterPress) } ?? true
        }
        if due { onPress() }
    }
}
