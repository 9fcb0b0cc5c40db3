import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// The machine's time zone by name: `$TZ` where it names a zone, else where `/etc/localtime`
/// links to, else `/etc/timezone`, else UTC. `etc` and `zoneinfo` are parameters so tests can
/// stand in for the system.
package enum SystemTimeZone {
    package static func name(
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

    /// Why `$TZ` is not followed (nil: it is, or there is none): it names no zone and no POSIX
    /// rule marquee can read, so the machine's zone is used.
    package static func unreadableTZ(environment: [String: String], zoneinfo: String = "/usr/share/zoneinfo") -> String? {
        guard let tz = environment["TZ"], zoneName(fromTZ: tz, zoneinfo: zoneinfo) == nil else { return nil }
        return "TZ=\(tz) names no time zone marquee can read (an IANA name such as Europe/Berlin, or a POSIX rule "
            + "such as CET-1CEST,M3.5.0,M10.5.0/3); using the machine's zone, \(name(environment: [:])); "
            + "set `timezone` in marquee.toml to choose one"
    }

    /// The zone a `TZ` value names, as glibc reads it: `:Europe/Berlin`, `Europe/Berlin`, a path
    /// into the zoneinfo folder, or a POSIX rule (`UTC0`, `<+03>-3`, `CET-1CEST,M3.5.0,M10.5.0/3`;
    /// one of whole hours without daylight saving time by its `Etc/GMT±N` name). nil for what
    /// names nothing known: the machine's zone is used then, as a TZ that cannot be read should
    /// not stop the display.
    static func zoneName(fromTZ tz: String, zoneinfo: String) -> String? {
        var value = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if value.hasPrefix("/") {
            guard let name = nameInZoneinfo(value) else { return nil }
            value = name
        }
        let rule = PosixZoneRule(value)
        if let rule, rule.daylight == nil, rule.standardOffset % 3600 == 0, (-12...14).contains(rule.standardOffset / 3600) {
            let hoursWest = -rule.standardOffset / 3600
            return hoursWest == 0 ? "UTC" : "Etc/GMT" + (hoursWest < 0 ? "-" : "+") + String(abs(hoursWest))
        }
        if value == "UTC" || rule != nil { return value }
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

    /// The files under `etc` that name the zone.
    static func isZoneFile(_ name: String) -> Bool {
        name == "localtime" || name == "timezone"
    }
}
