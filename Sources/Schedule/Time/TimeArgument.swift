/// A time as a person types it on the command line: RFC 3339 with an offset
/// (`2026-12-24T21:30:00+01:00`, `…Z`), or a local wall-clock time in the display's zone
/// (`2026-12-24 21:30`, `2026-12-24T21:30:15`, `2026-12-24`).
package enum TimeArgument: Hashable, Sendable {
    case instant(Instant)
    case local(CivilDateTime)

    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func skip(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else {
            return nil
        }
        var wall = CivilDateTime(year, month, day)
        guard wall.date.isValid else { return nil }
        if index == bytes.count {
            self = .local(wall)
            return
        }
        guard skip("Tt "), let hour = number(2), skip(":"), let minute = number(2), hour < 24, minute < 60 else {
            return nil
        }
        wall.hour = hour
        wall.minute = minute
        if skip(":") {
            guard let second = number(2), second < 61 else { return nil }
            wall.second = min(second, 59)
            if skip(".") {
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            }
        }
        if index == bytes.count {
            self = .local(wall)
        } else if skip("Zz"), index == bytes.count {
            self = .instant(Instant(secondsSinceEpoch: wall.secondsAsUTC))
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), skip(":"), let minutes = number(2), index == bytes.count,
                hours < 24, minutes < 60
            else { return nil }
            let offset = sign * Int64(hours * 3600 + minutes * 60)
            self = .instant(Instant(secondsSinceEpoch: wall.secondsAsUTC - offset))
        } else {
            return nil
        }
    }
}
