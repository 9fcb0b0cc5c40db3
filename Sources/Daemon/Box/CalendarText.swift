import Schedule

/// How the box writes a calendar of its own (a message sent now, the carer's written
/// reminders): RFC 5545's text escaping and line folding, CRLF line ends. Read back, like any
/// calendar, by libical.
enum CalendarText {
    /// A whole `VCALENDAR` of `events` (each the lines of one component, `BEGIN` to `END`).
    static func calendar(product: String, events: [[String]]) -> String {
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//\(product)//EN"] + events.joined() + ["END:VCALENDAR"]
        return lines.map(folded).joined(separator: "\r\n") + "\r\n"
    }

    /// RFC 5545 TEXT: backslash, semicolon and comma escaped, a line break as `\n`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n": result += "\\n"
            case "\r": continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Lines of at most 75 octets, continued with a space, never inside a character.
    static func folded(_ line: String) -> String {
        var result = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            if octets + size > 75 {
                result += "\r\n "
                octets = 1
            }
            result.append(character)
            octets += size
        }
        return result
    }

    /// `20261126T070000Z`: a UTC DATE-TIME.
    static func utc(_ instant: Instant) -> String {
        local(CivilDateTime(secondsAsUTC: instant.secondsSinceEpoch)) + "Z"
    }

    /// `20261126T070000`: a floating DATE-TIME (read on the display's clock).
    static func local(_ wall: CivilDateTime) -> String {
        date(wall.date) + "T" + String(wall.rfc3339(utcOffset: 0).dropFirst(11).prefix(8).filter { $0 != ":" })
    }

    /// `20261126`: a DATE.
    static func date(_ date: CivilDate) -> String { date.rfc3339.filter { $0 != "-" } }
}
