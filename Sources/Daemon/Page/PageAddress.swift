#if canImport(Glibc)
    import Glibc
#endif

extension StatusReport.PageStatus {
    /// The address a carer types to reach the page (`https://192.168.1.20:8080`), nil while it
    /// is not served. Served on every address of the box (`0.0.0.0`, `::`), it names the one
    /// `boxAddress` gives, nil when the box has none yet (no network).
    func reachableAt(boxAddress: () -> String?) -> String? {
        guard let served = address, let scheme, let (host, port) = ConfigurationKey.listenAddress(served) else { return nil }
        guard let reached = ["0.0.0.0", "::"].contains(host) ? boxAddress() : host else { return nil }
        return "\(scheme)://\(reached.contains(":") ? "[\(reached)]" : reached):\(port)"
    }
}

/// The box's address on the home network: the first IPv4 address of an interface that is up,
/// not loopback, in a private range (as a phone on the same network reaches it); nil when there
/// is none (no network yet, or only the internet's addresses).
func homeNetworkAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var found: [(name: String, address: in_addr)] = []
    for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
        let flags = Int32(entry.pointee.ifa_flags)
        guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0, flags & Int32(IFF_LOOPBACK) == 0,
              let socket = entry.pointee.ifa_addr, socket.pointee.sa_family == sa_family_t(AF_INET)
        else { continue }
        let address = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        if PagePeers.isHomeNetwork(ipv4: UInt32(bigEndian: address.s_addr)) {
            found.append((String(cString: entry.pointee.ifa_name), address))
        }
    }
    // The same interface on every call, whatever order the kernel lists them in; a link-local
    // address (no DHCP answered) only when there is no other.
    func rank(_ entry: (name: String, address: in_addr)) -> (Int, String) {
        (UInt32(bigEndian: entry.address.s_addr) >> 16 == 0xA9FE ? 1 : 0, entry.name)
    }
    guard var chosen = found.min(by: { rank($0) < rank($1) })?.address else { return nil }
    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
    guard inet_ntop(AF_INET, &chosen, &text, socklen_t(text.count)) != nil else { return nil }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
