/// A POSIX `TZ` rule — `CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30` — as busybox, Buildroot
/// and OpenWrt systems set it instead of naming a zone. It becomes a VTIMEZONE, so libical
/// answers for it as for any other zone: the C library honours such a `TZ`, and so does marquee.
/// Rules that name a day of the year (`Jn`, `n`) or a change outside its day (`/25`) are not
/// taken: nil, and the caller says the zone is unknown.
package struct PosixZoneRule: Equatable, Sendable {
    /// When daylight saving time begins or ends: the `week`th `weekday` (0 Sunday) of `month`
    /// (week 5: the last), `secondsIntoDay` after local midnight.
    package struct Change: Equatable, Sendable {
        var month: Int
        var week: Int
        var weekday: Int
        var secondsIntoDay: Int
    }

    package struct Daylight: Equatable, Sendable {
        var name: String
        var offset: Int
        var start: Change
        var end: Change
    }

    package var standardName: String
    /// Seconds east of UTC (POSIX writes them west: `CET-1` is an hour east).
    package var standardOffset: Int
    package var daylight: Daylight?

    package init?(_ text: String) {
        var scanner = Scanner(text[...])
        guard let standardName = scanner.name(), let west = scanner.offset() else { return nil }
        self.standardName = standardName
        standardOffset = -west
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard let daylightName = scanner.name() else { return nil }
        let daylightOffset = scanner.peek == "," ? standardOffset + 3600 : scanner.offset().map { -$0 }
        guard let daylightOffset, scanner.take(","), let start = scanner.change(), scanner.take(","),
              let end = scanner.change(), scanner.atEnd
        else { return nil }
        daylight = Daylight(name: daylightName, offset: daylightOffset, start: start, end: end)
    }

    /// A calendar holding the rule as its one VTIMEZONE.
    var calendar: String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//POSIX TZ//EN", "BEGIN:VTIMEZONE", "TZID:POSIX"]
        if let daylight {
            lines += Self.observance("DAYLIGHT", daylight.name, from: standardOffset, to: daylight.offset, daylight.start)
            lines += Self.observance("STANDARD", standardName, from: daylight.offset, to: standardOffset, daylight.end)
        } else {
            lines += ["BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:" + Self.written(standardOffset),
                      "TZOFFSETTO:" + Self.written(standardOffset), "TZNAME:" + standardName, "END:STANDARD"]
        }
        lines += ["END:VTIMEZONE", "END:VCALENDAR", ""]
        return lines.joined(separator: "\r\n")
    }

    private static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// An observance from its first change in 1970, yearly after.
    private static func observance(_ kind: String, _ name: String, from: Int, to: Int, _ change: Change) -> [String] {
        let first = change.date(in: 1970)
        let seconds = change.secondsIntoDay
        let start = "1970" + pad(first.month) + pad(first.day) + "T" + pad(seconds / 3600) + pad(seconds / 60 % 60) + pad(seconds % 60)
        let day = (change.week == 5 ? "-1" : String(change.week)) + weekdays[change.weekday]
        return ["BEGIN:" + kind, "DTSTART:" + start, "RRULE:FREQ=YEARLY;BYMONTH=\(change.month);BYDAY=\(day)",
                "TZOFFSETFROM:" + written(from), "TZOFFSETTO:" + written(to), "TZNAME:" + name, "END:" + kind]
    }

    /// `+0530`, `-0100`, `+013045`: an offset as RFC 5545 writes it.
    private static func written(_ offset: Int) -> String {
        let magnitude = abs(offset)
        let seconds = magnitude % 60
        return (offset < 0 ? "-" : "+") + pad(magnitude / 3600) + pad(magnitude / 60 % 60) + (seconds == 0 ? "" : pad(seconds))
    }

    private struct Scanner {
        var rest: Substring
        init(_ text: Substring) { rest = text }

        var atEnd: Bool { rest.isEmpty }
        var peek: Character? { rest.first }

        mutating func take(_ character: Character) -> Bool {
            guard rest.first == character else { return false }
            rest.removeFirst()
            return true
        }

        /// `CET` (three letters or more) or `<+0530>`.
        mutating func name() -> String? {
            if take("<") {
                guard let close = rest.firstIndex(of: ">") else { return nil }
                let name = rest[..<close]
                rest = rest[rest.index(after: close)...]
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-") })
                else { return nil }
                return String(name)
            }
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard letters.count >= 3 else { return nil }
            rest = rest.dropFirst(letters.count)
            return String(letters)
        }

        /// `[+-]hh[:mm[:ss]]` in seconds, hours up to `maximumHours`.
        mutating func offset(maximumHours: Int = 24) -> Int? {
            let sign = take("-") ? -1 : 1
            if sign == 1 { _ = take("+") }
            var parts: [Int] = []
            repeat {
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard (1...2).contains(digits.count), let value = Int(digits) else { return nil }
                rest = rest.dropFirst(digits.count)
                parts.append(value)
            } while parts.count < 3 && take(":")
            guard parts[0] <= maximumHours, parts.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
            return sign * (parts[0] * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0))
        }

        /// `Mm.w.d[/time]`, the change at 02:00 unless a time is given.
        mutating func change() -> Change? {
            guard take("M") else { return nil }
            var numbers: [Int] = []
            repeat {
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard let value = Int(digits), digits.count <= 2 else { return nil }
                rest = rest.dropFirst(digits.count)
                numbers.append(value)
            } while numbers.count < 3 && take(".")
            guard numbers.count == 3, (1...12).contains(numbers[0]), (1...5).contains(numbers[1]), (0...6).contains(numbers[2])
            else { return nil }
            var seconds = 7200
            if take("/") {
                guard let time = offset(maximumHours: 23), time >= 0 else { return nil }
                seconds = time
            }
            return Change(month: numbers[0], week: numbers[1], weekday: numbers[2], secondsIntoDay: seconds)
        }
    }
}

extension PosixZoneRule.Change {
    /// The day of the change in `year`.
    func date(in year: Int) -> CivilDate {
        let first = CivilDate(year: year, month: month, day: 1)
        var day = 1 + (weekday - first.weekday + 7) % 7 + (week - 1) * 7
        let length = CivilDate(year: month == 12 ? year + 1 : year, month: month % 12 + 1, day: 1).adding(days: -1).day
        while day > length { day -= 7 }
        return CivilDate(year: year, month: month, day: day)
    }
}
