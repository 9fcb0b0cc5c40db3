#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol (sd_notify(3), reimplemented as the man page invites): one
/// datagram of `KEY=VALUE` lines to `$NOTIFY_SOCKET`. Does nothing outside systemd.
public struct SystemdNotifier: Sendable {
    /// The socket address bytes; a leading NUL means the abstract namespace.
    private let address: [UInt8]?

    public init(environment: [String: String]) {
        guard var bytes = environment["NOTIFY_SOCKET"].map({ Array($0.utf8) }), !bytes.isEmpty else {
            address = nil
            return
        }
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        address = bytes[0] == 0 || bytes[0] == UInt8(ascii: "/") ? bytes : nil
    }

    public var isActive: Bool { address != nil }

    /// Half of `WATCHDOG_USEC` (when the watchdog is meant for this process): ping that often.
    public static func watchdogInterval(environment: [String: String]) -> Int64? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return nil }
        return microseconds * 1000 / 2
    }

    @discardableResult
    public func send(_ state: String) -> Bool {
        guard let path = address else { return false }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        guard path.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else { return false }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path[0] == 0 ? 0 : 1))
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let payload = Array(state.utf8)
        let sent = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                payload.withUnsafeBytes {
                    sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, length)
                }
            }
        }
        return sent == payload.count
    }
}
