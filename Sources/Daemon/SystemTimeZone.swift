#if canImport(Glibc)
    import Glibc
#endif

/// The machine's time zone by name: `$TZ` where it names a zone, else where `/etc/localtime`
/// links to, else `/etc/timezone`, else UTC. `etc` and `zoneinfo` are parameters so tests can
/// stand in for the system.
public enum SystemTimeZone {
    public static func name(
        environment: [String: String], etc: String = "/etc", zoneinfo: String = "/usr/share/zoneinfo"
    ) -> String {
        if let tz = environment["TZ"], let name = zoneName(fromTZ: tz, zoneinfo: zoneinfo) {
            return name
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(etc + "/localtime", &buffer, buffer.count - 1)
        if count > 0, let name = nameInZoneinfo(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)) {
            return name
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

    /// The zone a `TZ` value names, as glibc reads it: `:Europe/Berlin`, `Europe/Berlin`, a path
    /// into the zoneinfo folder, `UTC0`, or a fixed offset such as `<+03>-3`. nil for what names
    /// no zone file (a POSIX rule with daylight saving time, or nothing known): the machine's
    /// zone is used then, as a TZ that cannot be read should not stop the display.
    static func zoneName(fromTZ tz: String, zoneinfo: String) -> String? {
        var value = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if value.hasPrefix("/") {
            guard let name = nameInZoneinfo(value) else { return nil }
            value = name
        }
        if let hours = fixedOffsetHours(value) {
            value = hours == 0 ? "UTC" : "Etc/GMT" + (hours < 0 ? "-" : "+") + String(abs(hours))
        }
        if value == "UTC" { return value }
        guard !value.isEmpty, !value.hasPrefix("/"), !value.split(separator: "/").contains(".."),
            access(zoneinfo + "/" + value, R_OK) == 0
        else { return nil }
        return value
    }

    /// The zone name in a path such as `/usr/share/zoneinfo/Europe/Berlin`.
    private static func nameInZoneinfo(_ path: String) -> String? {
        let parts = path.split(separator: "zoneinfo/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    /// The whole hours west of UTC of a POSIX TZ without daylight saving time (`UTC0`,
    /// `GMT+5`, `<+03>-3`): the sign of POSIX and of the `Etc/GMT±N` zones agree.
    private static func fixedOffsetHours(_ value: String) -> Int? {
        var rest = Substring(value)
        if rest.hasPrefix("<") {
            guard let close = rest.firstIndex(of: ">") else { return nil }
            rest = rest[rest.index(after: close)...]
        } else {
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard letters.count >= 3 else { return nil }
            rest = rest.dropFirst(letters.count)
        }
        guard !rest.isEmpty else { return value.uppercased() == "UTC" || value.uppercased() == "GMT" ? 0 : nil }
        guard let hours = Int(rest), (-14...12).contains(hours) else { return nil }
        return hours
    }

    /// The files under `etc` that name the zone.
    static func isZoneFile(_ name: String) -> Bool {
        name == "localtime" || name == "timezone"
    }
}
