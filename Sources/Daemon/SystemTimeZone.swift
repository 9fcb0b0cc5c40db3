#if canImport(Glibc)
    import Glibc
#endif

/// The machine's time zone by name: `$TZ`, else where `/etc/localtime` links to, else
/// `/etc/timezone`, else UTC. `etc` is a parameter so tests can stand in for the system.
public enum SystemTimeZone {
    public static func name(environment: [String: String], etc: String = "/etc") -> String {
        if let tz = environment["TZ"], !tz.isEmpty {
            return tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(etc + "/localtime", &buffer, buffer.count - 1)
        if count > 0 {
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = target.split(separator: "zoneinfo/", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, !parts[1].isEmpty { return String(parts[1]) }
        }
        if let file = fopen(etc + "/timezone", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            if fgets(&line, Int32(line.count), file) != nil {
                let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                let name = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
                if !name.isEmpty { return name }
            }
        }
        return "UTC"
    }

    /// The files under `etc` that name the zone.
    public static func isZoneFile(_ name: String) -> Bool {
        name == "localtime" || name == "timezone"
    }
}
