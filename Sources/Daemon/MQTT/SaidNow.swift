import Schedule
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A message a carer sends now ("The taxi is late, Dad — I'll be there at 11"): written as a
/// calendar file of its own in the state folder's `said` folder, which the display reads as
/// one of its feeds, typed into the announcement box at once and then on the tape. So the text is read, escaped and limited as any calendar's (in the feed
/// reader), shows at once (the folder is watched), and outlives a restart until it ends.
struct SaidNow: Sendable {
    /// `<state_dir>/said`.
    let folder: String

    static let fileName = "said-now.ics"
    /// The longest message, in characters as Home Assistant counts them (code points): its
    /// text entity's and its states' limit.
    static let longestText = 255
    static let defaultMinutes = 60

    /// What a carer sends: plain text, or `{"text": "…", "minutes": 30, "colour": "orange",
    /// "speak": true}` (`speak`: heard as a reminder is, when it is shown).
    struct Request: Decodable, Sendable, Hashable {
        var text: String
        var minutes: Int?
        var colour: String?
        var speak: Bool?
    }

    /// The request in a command's payload, or why it is refused.
    static func request(from payload: [UInt8]) -> Result<Request, CarerRefusal> {
        guard payload.count <= 4096 else {
            return .failure(CarerRefusal("a message is at most \(longestText) characters, not \(payload.count) bytes"))
        }
        guard let text = String(validating: payload, as: UTF8.self) else {
            return .failure(CarerRefusal("the message is not UTF-8 text"))
        }
        let request: Request
        if text.first == "{" {
            do {
                request = try JSONDecoder().decode(Request.self, from: Data(payload))
            } catch {
                return .failure(CarerRefusal(#"not a message: send text, or {"text": "…", "minutes": 30, "colour": "orange"}"#))
            }
        } else {
            request = Request(text: text)
        }
        return validated(request)
    }

    /// `request` with its text trimmed, or why it is refused.
    static func validated(_ request: Request) -> Result<Request, CarerRefusal> {
        let words: String
        switch checkedText(request.text) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let text): words = text
        }
        if let minutes = request.minutes, !(1...1440).contains(minutes) {
            return .failure(CarerRefusal("minutes must be from 1 to 1440"))
        }
        if let colour = request.colour, Colour(css: colour) == nil {
            return .failure(CarerRefusal("\(colour) is not a colour (a CSS name or #rrggbb)"))
        }
        return .success(Request(text: words, minutes: request.minutes, colour: request.colour, speak: request.speak))
    }

    /// A carer's text, trimmed, as the box shows it: one line of at most `longestText`
    /// characters, read in the order it is written; or why it cannot be shown.
    static func checkedText(_ text: String) -> Result<String, CarerRefusal> {
        let words = text.trimmingCharacters(in: " \t\r\n")
        guard !words.isEmpty else { return .failure(CarerRefusal("the message is empty (to clear it, use the clear topic)")) }
        guard words.unicodeScalars.count <= longestText else {
            return .failure(CarerRefusal("a message is at most \(longestText) characters, not \(words.unicodeScalars.count)"))
        }
        guard !words.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure(CarerRefusal("the message holds control characters (a line break, a tab, an escape); "
                + "it is one line of text"))
        }
        guard !words.unicodeScalars.contains(where: isDirectionalFormatting) else {
            return .failure(CarerRefusal("the message holds characters that override the direction of the text "
                + "(U+202A–U+202E, U+2066–U+2069): it would read in another order than it is written"))
        }
        return .success(words)
    }

    /// Shows `request` from `now` for its minutes (replacing the one before); why not, if it failed.
    func say(_ request: Request, at now: Instant) -> String? {
        let end = Instant(secondsSinceEpoch: now.secondsSinceEpoch + Int64(request.minutes ?? Self.defaultMinutes) * 60)
        let file = Self.calendar(request, from: now, to: end)
        return writeFileAtomically(Array(file.utf8), to: folder + "/" + Self.fileName).map { "cannot keep the message: \($0)" }
    }

    /// Takes the message off the screen; why not, if it could not be (a read-only state folder).
    func clear() -> String? {
        guard unlink(folder + "/" + Self.fileName) != 0, errno != ENOENT else { return nil }
        return "cannot take the message off: \(folder)/\(Self.fileName): \(String(cString: strerror(errno)))"
    }

    /// Whether `source` (a message's feed file) is where messages sent now are kept.
    static func isSaidNow(_ source: String) -> Bool { source.hasSuffix("/said/" + fileName) }

    /// One event from `start` to `end`, first in priority.
    static func calendar(_ request: Request, from start: Instant, to end: Instant) -> String {
        var lines = [
            "BEGIN:VEVENT", "UID:said-now@marquee", "DTSTAMP:" + CalendarText.utc(start), "DTSTART:" + CalendarText.utc(start),
            "DTEND:" + CalendarText.utc(end), "PRIORITY:1", "SUMMARY:" + CalendarText.escaped(request.text),
            // Typed into the announcement box at once, then on the tape: a carer's message is
            // read now, not after whatever is on the band.
            "X-MARQUEE-EFFECT:typewriter",
        ]
        if let colour = request.colour { lines.append("COLOR:" + colour.trimmingCharacters(in: " \t")) }
        if request.speak == true { lines.append("X-MARQUEE-SPEAK:YES") }
        return CalendarText.calendar(product: "said now", events: [lines + ["END:VEVENT"]])
    }
}

/// Why what a carer sent (a message now, a written reminder, a recording) is refused: words the carer reads.
struct CarerRefusal: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
