import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Notices a screen plugged in or unplugged (a television switched on, or to another input):
/// the kernel's device event for a DRM card with `HOTPLUG=1`, read from its netlink socket,
/// so the KMS output is looked at then and never polled.
final class HotplugWatcher: Sendable {
    private let watch: DescriptorWatch

    init(onHotplug: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = mq_uevent_socket()
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        watch = DescriptorWatch(descriptor: descriptor, label: "marquee.hotplug") {
            var message = [UInt8](repeating: 0, count: 8192)
            var hotplug = false
            while true {
                let count = recv(descriptor, &message, message.count, 0)
                guard count > 0 else { break }
                if Self.isDisplayHotplug(message[..<count]) { hotplug = true }
            }
            if hotplug { onHotplug() }
        }
    }

    /// Whether a kernel device event (`change@/devices/…`, then `KEY=value` strings, each ended
    /// by a zero byte) is a DRM card's hot-plug.
    static func isDisplayHotplug(_ message: ArraySlice<UInt8>) -> Bool {
        let fields = message.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return fields.contains("SUBSYSTEM=drm") && fields.contains("HOTPLUG=1")
    }
}
