/// A point on the time line: whole seconds since 1970-01-01T00:00:00Z. Calendars have
/// one-second resolution, so the schedule never needs more.
package struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    package var secondsSinceEpoch: Int64

    package init(secondsSinceEpoch: Int64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    package static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.secondsSinceEpoch < rhs.secondsSinceEpoch
    }

    package static func + (lhs: Instant, seconds: Int64) -> Instant {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch + seconds)
    }

    package static func - (lhs: Instant, seconds: Int64) -> Instant {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch - seconds)
    }

    package var description: String { CivilDateTime(secondsAsUTC: secondsSinceEpoch).rfc3339(utcOffset: 0) }

}

/// A calendar date in the proleptic Gregorian calendar, with no time zone.
package struct CivilDate: Hashable, Comparable, Sendable {
    package var year: Int
    package var month: Int
    package var day: Int

    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (negative before), after H. Hinnant's `days_from_civil`.
    var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: Int(yearOfEra + era * 400 + (m <= 2 ? 1 : 0)), month: Int(m), day: Int(d))
    }

    /// 0 = Sunday … 6 = Saturday.
    package var weekday: Int {
        let w = (daysSinceEpoch + 4) % 7
        return Int(w < 0 ? w + 7 : w)
    }

    package func adding(days: Int) -> CivilDate {
        CivilDate(daysSinceEpoch: daysSinceEpoch + Int64(days))
    }

    package static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        return CivilDate(daysSinceEpoch: daysSinceEpoch) == self
    }

    package static func weekdayName(_ weekday: Int) -> String { weekdayNames[weekday] }
    package static func monthName(_ month: Int) -> String { monthNames[month - 1] }

    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// "Tuesday 3 March": how a person says the date.
    var dayAndMonth: String {
        "\(Self.weekdayNames[weekday]) \(day) \(Self.monthNames[month - 1])"
    }

    /// "Tuesday 3 March 2026".
    package var spokenForm: String { "\(dayAndMonth) \(year)" }

    /// `2026-03-03`.
    package var rfc3339: String { "\(pad(year, 4))-\(pad(month))-\(pad(day))" }
}

/// A wall-clock reading (date and time of day) with no time zone attached.
package struct CivilDateTime: Hashable, Comparable, Sendable {
    package var date: CivilDate
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    package init(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) {
        self.init(date: CivilDate(year: year, month: month, day: day), hour: hour, minute: minute, second: second)
    }

    /// The seconds since the epoch if this wall clock were read in UTC.
    package var secondsAsUTC: Int64 {
        date.daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    package init(secondsAsUTC seconds: Int64) {
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        self.init(
            date: CivilDate(daysSinceEpoch: days), hour: Int(rest / 3600), minute: Int(rest % 3600 / 60),
            second: Int(rest % 60))
    }

    package func adding(seconds: Int64) -> CivilDateTime {
        CivilDateTime(secondsAsUTC: secondsAsUTC + seconds)
    }

    package static func < (lhs: CivilDateTime, rhs: CivilDateTime) -> Bool {
        lhs.secondsAsUTC < rhs.secondsAsUTC
    }

    /// `2026-12-24T21:30:00+01:00`.
    package func rfc3339(utcOffset: Int) -> String {
        let sign = utcOffset < 0 ? "-" : "+"
        let magnitude = abs(utcOffset)
        let zone = "\(sign)\(pad(magnitude / 3600)):\(pad(magnitude % 3600 / 60))"
        return "\(date.rfc3339)T\(clock(seconds: true))\(zone)"
    }

    /// `21:30` (or `21:30:15`).
    package func clock(seconds: Bool = false) -> String {
        let base = "\(pad(hour)):\(pad(minute))"
        return seconds ? "\(base):\(pad(second))" : base
    }
}

func pad(_ value: Int, _ width: Int = 2) -> String {
    let digits = String(abs(value))
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
}

/// An instant together with the UTC offset of the zone it is shown in.
package struct ZonedTime: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    package var instant: Instant
    package var utcOffset: Int

    package init(instant: Instant, utcOffset: Int) {
        self.instant = instant
        self.utcOffset = utcOffset
    }

    package var wallClock: CivilDateTime {
        CivilDateTime(secondsAsUTC: instant.secondsSinceEpoch + Int64(utcOffset))
    }

    package var rfc3339: String { wallClock.rfc3339(utcOffset: utcOffset) }
    package var description: String { rfc3339 }

    package static func < (lhs: ZonedTime, rhs: ZonedTime) -> Bool { lhs.instant < rhs.instant }
}
