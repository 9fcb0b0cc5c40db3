import CLibical

#if canImport(Glibc)
    import Glibc
#endif

/// A time zone's rules as libical knows them: the system zoneinfo for IANA names, or a
/// VTIMEZONE from a feed file. Converts between wall clocks and instants the way RFC 5545
/// §3.3.5 says: a wall time skipped by a DST gap uses the offset from before the gap
/// (02:30 becomes 03:30 summer time), a repeated wall time means its first occurrence.
@ICalActor final class Zone {
    let name: String
    private let pointer: OpaquePointer?
    /// Keeps the parsed file alive while one of its VTIMEZONEs is in use.
    private let owner: AnyObject?

    static let utc = Zone(name: "UTC", pointer: nil, owner: nil)

    init(name: String, pointer: OpaquePointer?, owner: AnyObject?) {
        self.name = name
        self.pointer = pointer
        self.owner = owner
    }

    /// From 2400 on, an offset is that of the same moment a whole number of 400-year Gregorian
    /// cycles earlier (same dates, same weekdays, so the same yearly rules apply): libical
    /// expands a zone only up to 2582 and past that expands it again from its start on every
    /// question, which made one event ending in 4050 take 15 s.
    private static let foldedFrom = CivilDateTime(2400, 1, 1).secondsAsUTC
    private static let gregorianCycle: Int64 = 146_097 * 86_400

    /// Seconds east of UTC at the instant.
    func offset(atUTC seconds: Int64) -> Int {
        guard let pointer else { return 0 }
        var seconds = seconds
        if seconds >= Self.foldedFrom { seconds -= ((seconds - Self.foldedFrom) / Self.gregorianCycle + 1) * Self.gregorianCycle }
        var time = icaltimetype(civil: CivilDateTime(secondsAsUTC: seconds), isDate: false)
        time.zone = icaltimezone_get_utc_timezone()
        var isDaylight: Int32 = 0
        return Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, &isDaylight))
    }

    /// The instant a wall-clock reading in this zone stands for (RFC 5545 §3.3.5).
    func instant(of wall: CivilDateTime) -> Int64 {
        let guess = wall.secondsAsUTC
        guard pointer != nil else { return guess }
        let before = offset(atUTC: guess - 86_400)
        let after = offset(atUTC: guess + 86_400)
        let early = guess - Int64(before), late = guess - Int64(after)
        let earlyFits = Int64(offset(atUTC: early)) == guess - early
        // Most days have no change of offset: the reading is that of the offset around it.
        if before == after, earlyFits { return early }
        // Of the readings that fit, the earlier (a repeated hour means its first time).
        let lateFits = Int64(offset(atUTC: late)) == guess - late
        return lateFits && (!earlyFits || late < early) ? late : early
    }

    /// The instants whose wall clock here has a year RFC 3339 can write (1 to 9999): a message
    /// reaching past them is shown up to their edge.
    private(set) lazy var writableInstants: ClosedRange<Int64> =
        instant(of: CivilDateTime(1, 1, 1))...instant(of: CivilDateTime(9999, 12, 31, 23, 59, 59))

    func wallClock(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsAsUTC: instant + Int64(offset(atUTC: instant)))
    }

    func zoned(_ instant: Int64) -> ZonedTime {
        ZonedTime(instant: Instant(secondsSinceEpoch: instant), utcOffset: offset(atUTC: instant))
    }

    /// Local midnight at the start of the date.
    func startOfDay(_ date: CivilDate) -> Int64 {
        instant(of: CivilDateTime(date: date))
    }
}

/// The system's zoneinfo zones by IANA name (or a POSIX `TZ` rule), looked up once each.
@ICalActor enum SystemZones {
    private static var cache: [String: Zone?] = [:]

    static func zone(named name: String) -> Zone? {
        if let cached = cache[name] { return cached }
        ICalActor.ensureConfigured()
        var zone: Zone?
        if name.uppercased() == "UTC" || name.uppercased() == "GMT" || name == "Etc/UTC" || name == "Z" {
            zone = .utc
        } else if !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."),
            let pointer = icaltimezone_get_builtin_timezone(name)
        {
            zone = Zone(name: name, pointer: pointer, owner: nil)
        } else if let rule = PosixZoneRule(name) {
            zone = posixZone(name, rule)
        }
        icalerror_clear_errno()
        cache[name] = zone
        return zone
    }

    /// The zone of a POSIX rule, from the VTIMEZONE it is written as (kept for the run, as
    /// libical keeps its built-in zones).
    private static func posixZone(_ name: String, _ rule: PosixZoneRule) -> Zone? {
        guard let root = icalparser_parse_string(rule.calendar) else { return nil }
        defer { icalcomponent_free(root) }
        guard let component = icalcomponent_get_first_component(root, ICAL_VTIMEZONE_COMPONENT) else { return nil }
        icalcomponent_remove_component(root, component)
        let pointer = icaltimezone_new()
        guard icaltimezone_set_component(pointer, component) != 0 else {
            icaltimezone_free(pointer, 1)
            icalcomponent_free(component)
            return nil
        }
        return Zone(name: name, pointer: pointer, owner: nil)
    }
}

/// Turns the TZID parameters of one calendar into zones: an IANA name uses the system
/// zoneinfo; other names use the calendar's own VTIMEZONE; Windows/Outlook names are mapped
/// to IANA; vendor-prefixed names (`/mozilla.org/20050126_1/Europe/Berlin`) are stripped.
@ICalActor final class ZoneResolver {
    private let calendar: OpaquePointer
    private let owner: AnyObject
    private var cache: [String: Zone?] = [:]

    init(calendar: OpaquePointer, owner: AnyObject) {
        self.calendar = calendar
        self.owner = owner
    }

    func zone(forTZID raw: String) -> Zone? {
        if let cached = cache[raw] { return cached }
        let tzid = raw.trimmingCharacters(in: "\" ")
        var zone = SystemZones.zone(named: tzid)
        if zone == nil, let embedded = icalcomponent_get_timezone(calendar, tzid) {
            zone = Zone(name: tzid, pointer: embedded, owner: owner)
        }
        if zone == nil, let iana = Self.windowsZoneNames[tzid.lowercased()] {
            zone = SystemZones.zone(named: iana)
        }
        if zone == nil {
            let parts = tzid.split(separator: "/").map(String.init)
            for count in stride(from: min(3, parts.count), through: 2, by: -1) where zone == nil {
                zone = SystemZones.zone(named: parts.suffix(count).joined(separator: "/"))
            }
        }
        icalerror_clear_errno()
        cache[raw] = zone
        return zone
    }

    private static let windowsZoneNames: [String: String] = {
        var names: [String: String] = [:]
        for row in windowsZoneTable {
            names[row.windowsName.lowercased()] = row.ianaName
            names[row.displayName.lowercased()] = row.ianaName
        }
        return names
    }()
}

extension icaltimetype {
    init(civil: CivilDateTime, isDate: Bool) {
        self = icaltime_null_time()
        year = Int32(civil.date.year)
        month = Int32(civil.date.month)
        day = Int32(civil.date.day)
        if isDate {
            is_date = 1
        } else {
            hour = Int32(civil.hour)
            minute = Int32(civil.minute)
            second = Int32(civil.second)
        }
    }

    var civil: CivilDateTime {
        CivilDateTime(Int(year), Int(month), Int(day), Int(hour), Int(minute), Int(second))
    }
}

extension String {
    /// Without the characters of `set` at either end. Compared as Unicode scalars: in `"\r\n"`
    /// as Characters, CR LF is one, and a lone `\n` would stay.
    package func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var slice = Substring(self).unicodeScalars
        while let first = slice.first, scalars.contains(first) { slice.removeFirst() }
        while let last = slice.last, scalars.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

/// Whether `name` names a zone the display can show times in: UTC, an IANA name in the system's
/// zoneinfo, a Windows zone name, or a POSIX `TZ` rule (checked without libical, for the
/// configuration file).
package func isKnownTimeZone(_ name: String, zoneinfo: String = "/usr/share/zoneinfo") -> Bool {
    if ["UTC", "GMT", "Z"].contains(name.uppercased()) || PosixZoneRule(name) != nil { return true }
    if windowsZoneTable.contains(where: { $0.windowsName.lowercased() == name.lowercased() || $0.displayName.lowercased() == name.lowercased() }) {
        return true
    }
    var info = stat()
    return !name.isEmpty && !name.hasPrefix("/") && !name.split(separator: "/").contains("..")
        && stat(zoneinfo + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
}
