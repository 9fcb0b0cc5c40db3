import Support

/// One line of text that should be on screen during an interval: an event occurrence, or a
/// display alarm leading up to one.
package struct Message: Hashable, Sendable {
    package enum Kind: String, Hashable, Sendable {
        case event, alarm
    }

    /// The text with its placeholders filled in.
    package var text: String
    /// When this message became active and when it stops being active.
    package var start: ZonedTime
    package var end: ZonedTime
    /// The feed file it comes from.
    package var source: String
    package var uid: String
    package var kind: Kind
    /// 1 (first) … 9 (last); events without PRIORITY count as 5.
    package var priority: Int
    package var color: Colour?
    package var effect: MessageEffect?
    /// How it is heard when it starts (nil: it is only shown).
    package var sounding: Sounding?

    package init(
        text: String, start: ZonedTime, end: ZonedTime, source: String, uid: String, kind: Kind, priority: Int,
        color: Colour?, effect: MessageEffect?, sounding: Sounding? = nil
    ) {
        self.text = text
        self.start = start
        self.end = end
        self.source = source
        self.uid = uid
        self.kind = kind
        self.priority = priority
        self.color = color
        self.effect = effect
        self.sounding = sounding
    }

    /// Urgent enough to be heard at night (`PRIORITY` 1–4).
    package var isUrgent: Bool { priority <= 4 }

    /// Display order: priority, then start, then text.
    static func displayOrder(_ a: Message, _ b: Message) -> Bool {
        if a.priority != b.priority { return a.priority < b.priority }
        if a.start.instant != b.start.instant { return a.start.instant < b.start.instant }
        return a.text < b.text
    }
}

/// What a calendar asks to be heard: an alarm (RFC 5545 §3.6.6, `ACTION:AUDIO` or
/// `ACTION:DISPLAY`) when it triggers, or an event marked `X-MARQUEE-SPEAK:YES` when it starts.
/// Whether it is heard is the box's decision (its `speak` setting, the night, a mute).
package struct Sounding: Hashable, Sendable {
    package enum Origin: String, Hashable, Sendable {
        case audioAlarm = "audio", displayAlarm = "display", event
    }

    package var origin: Origin
    /// The instant it sounds first: the alarm's trigger, the event's start.
    package var trigger: ZonedTime
    /// What an `ACTION:AUDIO` alarm attached (`ATTACH`): a named sound (Apple's `Chord`), a
    /// file or an address; nil when none.
    package var attachment: String?
    /// A recording written into the calendar itself (`ATTACH;ENCODING=BASE64`), decoded.
    package var embedded: EmbeddedSound?
    /// How many times more it sounds (`REPEAT`), and how many seconds apart (`DURATION`).
    package var repeats: Int
    package var repeatSeconds: Int64

    /// The most times an alarm sounds again (`REPEAT`): a reminder repeated for hours is noise.
    package static let mostRepeats = 10

    package init(
        origin: Origin, trigger: ZonedTime, attachment: String? = nil, embedded: EmbeddedSound? = nil, repeats: Int = 0,
        repeatSeconds: Int64 = 0
    ) {
        self.origin = origin
        self.trigger = trigger
        self.attachment = attachment
        self.embedded = embedded
        self.repeats = repeats
        self.repeatSeconds = repeatSeconds
    }
}

/// The bytes of a sound a calendar carries inline, shared by every occurrence of its alarm
/// and compared by a digest, so a recording of megabytes costs nothing when messages are
/// compared or copied.
package struct EmbeddedSound: Hashable, Sendable {
    package let bytes: [UInt8]
    private let digest: UInt64

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        digest = stableHash(bytes)
    }

    package static func == (lhs: EmbeddedSound, rhs: EmbeddedSound) -> Bool {
        lhs.digest == rhs.digest && lhs.bytes.count == rhs.bytes.count
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
        hasher.combine(bytes.count)
    }
}

extension Colour: CustomStringConvertible {
    /// Parses a CSS3 colour name (`turquoise`) or a hex triplet (`#40e0d0`, `#4ed`).
    package init?(css text: String) {
        let name = text.trimmingCharacters(in: " \t").lowercased()
        if name.hasPrefix("#") {
            var digits = Array(name.dropFirst())
            if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
            guard digits.count == 6, let value = UInt32(String(digits), radix: 16) else { return nil }
            self.init(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else if let value = cssColorNames[name] {
            self.init(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else {
            return nil
        }
    }

    /// Every colour name a calendar's `COLOR` may give (the display's colours are audited on them).
    package static var cssNames: [String] { cssColorNames.keys.sorted() }

    /// `#rrggbb`.
    package var description: String {
        "#" + [red, green, blue].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}

/// A problem found in a feed file, with where it is.
package struct FeedProblem: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Severity: String, Hashable, Sendable {
        /// The file (as it is now) is not used; its last good version stays in effect.
        case error
        /// Something was ignored or repaired; the rest of the file is used.
        case warning
    }

    package var severity: Severity
    package var path: String
    package var line: Int?
    package var message: String

    package init(severity: Severity, path: String, line: Int?, message: String) {
        self.severity = severity
        self.path = path
        self.line = line
        self.message = message
    }

    /// `feeds/family.ics:12: error: …`, the form compilers use, so editors can jump to it.
    package var description: String {
        let location = line.map { "\(path):\($0)" } ?? path
        return "\(location): \(severity.rawValue): \(message)"
    }
}

/// What became of one feed file on the last load.
package struct FeedStatus: Hashable, Sendable {
    package enum State: Hashable, Sendable {
        /// In effect as it is now (possibly with warnings).
        case loaded
        /// Not usable as it is now: an earlier good version is in effect (`keptLastGood`), or,
        /// when there is none, whatever could be read of this one.
        case failed(keptLastGood: Bool)
    }

    package var path: String
    package var state: State
    package var problems: [FeedProblem]
    /// The number of VEVENTs in effect from this file.
    package var eventCount: Int
}

extension Message: Encodable {
    private enum CodingKeys: String, CodingKey {
        case text, start, end, source, uid, kind, priority, color, effect, sounding
    }

    private enum SoundingKeys: String, CodingKey {
        case origin, trigger, attachment, embeddedBytes = "embedded_bytes", repeats, repeatSeconds = "repeat_seconds"
    }

    /// The `marquee messages --json` shape: times in RFC 3339 with offset, colour `#rrggbb`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(start.rfc3339, forKey: .start)
        try container.encode(end.rfc3339, forKey: .end)
        try container.encode(source, forKey: .source)
        try container.encode(uid, forKey: .uid)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(priority, forKey: .priority)
        if let color { try container.encode(color.description, forKey: .color) } else { try container.encodeNil(forKey: .color) }
        if let effect { try container.encode(effect.rawValue, forKey: .effect) } else { try container.encodeNil(forKey: .effect) }
        if let sounding {
            var heard = container.nestedContainer(keyedBy: SoundingKeys.self, forKey: .sounding)
            try heard.encode(sounding.origin.rawValue, forKey: .origin)
            try heard.encode(sounding.trigger.rfc3339, forKey: .trigger)
            try heard.encodeIfPresent(sounding.attachment, forKey: .attachment)
            try heard.encodeIfPresent(sounding.embedded?.bytes.count, forKey: .embeddedBytes)
            try heard.encode(sounding.repeats, forKey: .repeats)
            try heard.encode(sounding.repeatSeconds, forKey: .repeatSeconds)
        }
    }
}
