import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Notices a screen plugged in or unplugged (a television switched on, or to another input):
/// the kernel's device event for a DRM card with `HOTPLUG=1`, read from its netlink socket,
/// so the KMS output is looked at then, not half a minute later at the screen's periodic check.
final class HotplugWatcher: Sendable {
    private let watch: DescriptorWatch

    init(onHotplug: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = mq_uevent_socket()
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        watch = DescriptorWatch(descriptor: descriptor, label: "marquee.hotplug") {
            var message = [UInt8](repeating: 0, count: 8192)
            let hotplug = Self.drain {
                let count = recv(descriptor, &message, message.count, 0)
                return count > 0 ? .event(message[..<count]) : .failed(count < 0 ? errno : 0)
            }
            if hotplug { onHotplug() }
            return true
        }
    }

    /// What one read of the socket gave.
    enum Read {
        case event(ArraySlice<UInt8>)
        /// Nothing more (`EAGAIN`), or the error (0: the socket ended).
        case failed(Int32)
    }

    /// Reads every event waiting (`read`); whether one may have been a screen's hot-plug. When
    /// the kernel dropped events (`ENOBUFS`: a burst overflowed the socket, as at boot), one
    /// of them may have been, so the screen is looked at all the same.
    static func drain(_ read: () -> Read) -> Bool {
        var hotplug = false
        while true {
            switch read() {
            case .event(let message):
                if isDisplayHotplug(message) { hotplug = true }
            case .failed(ENOBUFS):
                hotplug = true
            case .failed(EINTR):
                continue
            case .failed:
                return hotplug
            }
        }
    }

    /// Whether a kernel device event (`change@/devices/…`, then `KEY=value` strings, each ended
    /// by a zero byte) is a DRM card's hot-plug.
    static func isDisplayHotplug(_ message: ArraySlice<UInt8>) -> Bool {
        let fields = message.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return fields.contains("SUBSYSTEM=drm") && fields.contains("HOTPLUG=1")
    }
}
