#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol (sd_notify(3), reimplemented as the man page invites): one
/// datagram of `KEY=VALUE` lines to `$NOTIFY_SOCKET`. Does nothing outside systemd.
struct SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET`: a path, or `@name` in the abstract namespace.
    private let address: String?

    init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        address = path.hasPrefix("/") || path.hasPrefix("@") ? path : nil
    }

    var isActive: Bool { address != nil }

    /// Half of `WATCHDOG_USEC` (when the watchdog is meant for this process): ping that often.
    static func watchdogInterval(environment: [String: String]) -> Int64? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return nil }
        return microseconds * 1000 / 2
    }

    @discardableResult
    func send(_ state: String) -> Bool {
        guard let address else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let payload = Array(state.utf8)
        let sent = withUnixSocketAddress(address) { target, length in
            payload.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, length) }
        }
        return sent == payload.count
    }
}
