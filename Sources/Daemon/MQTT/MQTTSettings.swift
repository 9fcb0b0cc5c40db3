import Support

/// Where the box meets the carers' broker, from `mqtt = "mqtts://user@broker.lan:8883"` and the
/// keys beside it. The password is never in the main file: it is read from its own file when
/// the display starts (systemd's `LoadCredential=`), and never logged.
package struct MQTTSettings: Sendable, Hashable {
    package var host: String
    package var port: Int
    /// `mqtts://`: TLS, the broker's certificate checked against the system's authorities (or
    /// `certificateAuthorities`) and its name.
    package var usesTLS: Bool
    package var user: String?
    /// The file the password is read from (nil: none is sent).
    package var passwordFile: String?
    package var certificateAuthorities: String?
    /// Every topic of this box starts with it: `marquee/kitchen`.
    package var topic: String
    /// Whether Home Assistant is told of the box's entities (prefix `homeassistant`); when off,
    /// the entities an earlier run announced are removed.
    package var discovery: Bool
    /// The box's name in Home Assistant (its entities' unique ids come from the topic).
    package var name: String
    /// Whether it obeys commands from the broker; a box that only reports subscribes to none.
    package var commands: Bool

    /// The broker as it may be shown: `mqtts://user@broker.lan:8883`.
    package var broker: String {
        (usesTLS ? "mqtts://" : "mqtt://") + (user.map { $0 + "@" } ?? "") + host + ":\(port)"
    }

    /// Parses the address; `topic` nil means `marquee/<hostname>-<machine>`, the machine's
    /// `machineID` (`/etc/machine-id`) hashed, so two boxes with one host name (two
    /// `raspberrypi`s) are two boxes. Throws why it cannot be used.
    package init(address: String, passwordFile: String? = nil, certificateAuthorities: String? = nil, topic: String? = nil,
                discovery: Bool = true, name: String? = nil, commands: Bool = true, hostname: String,
                machineID: String? = nil) throws(MQTTSettingsError) {
        let text = address.trimmingCharacters(in: " \t")
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw MQTTSettingsError("\(Self.shown(text)) is not a broker address; write mqtt://broker.lan or "
                + "mqtts://user@broker.lan:8883")
        }
        switch text[..<schemeEnd.lowerBound].lowercased() {
        case "mqtt": usesTLS = false
        case "mqtts": usesTLS = true
        default: throw MQTTSettingsError("a broker address starts with mqtt:// or mqtts://, not \(Self.shown(text))")
        }
        var authority = text[schemeEnd.upperBound...]
        if authority.last == "/" { authority = authority.dropLast() }
        guard !authority.contains("/"), !authority.contains(where: \.isWhitespace) else {
            throw MQTTSettingsError("a broker address names only the broker: mqtts://user@broker.lan:8883 (the topic is mqtt_topic)")
        }
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            guard !credentials.contains(":") else {
                throw MQTTSettingsError("the broker address holds a password; put it in mqtt_password_file instead")
            }
            user = String(credentials)
            authority = authority[authority.index(after: at)...]
        }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                throw MQTTSettingsError("the broker's port must be a number from 1 to 65535")
            }
            port = number
            authority = authority[..<colon]
        } else {
            port = usesTLS ? 8883 : 1883
        }
        host = String(authority.trimmingPrefix("[").prefix { $0 != "]" })
        guard !host.isEmpty else { throw MQTTSettingsError("the broker address names no broker") }
        self.passwordFile = passwordFile
        self.certificateAuthorities = certificateAuthorities
        let hostLabel = hostname.split(separator: ".").first.map(String.init) ?? "marquee"
        let machine = machineID.map { $0.trimmingCharacters(in: " \t\r\n") }.flatMap { $0.isEmpty ? nil : $0 }
        self.topic = topic ?? "marquee/" + Self.topicWord(hostLabel) + (machine.map { "-" + Self.shortHash($0) } ?? "")
        try Self.check(topic: self.topic)
        self.discovery = discovery
        self.name = name ?? hostLabel
        self.commands = commands
    }

    /// An address as it may be said, parsed or not: whatever stands before its last `@` (a
    /// user and maybe a password, however mistyped: `mqtt:/user:pw@host`, `u:pw@host`) is `…`.
    static func shown(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return address }
        let scheme = address.firstRange(of: "://").flatMap { $0.upperBound <= at ? address[..<$0.upperBound] : nil } ?? ""
        return scheme + "…@" + address[address.index(after: at)...]
    }

    /// Refuses a base topic that would reach other boxes' topics or none: wildcards, an empty
    /// level, `$` (the broker's own), a leading or trailing `/`.
    package static func check(topic: String) throws(MQTTSettingsError) {
        guard !topic.isEmpty, topic.utf8.count <= 200 else { throw MQTTSettingsError("mqtt_topic must be 1 to 200 bytes long") }
        guard !topic.contains("+"), !topic.contains("#") else {
            throw MQTTSettingsError("mqtt_topic \(topic) holds a wildcard (+ or #); name one box: marquee/kitchen")
        }
        guard !topic.hasPrefix("$"), !topic.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty),
              !topic.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw MQTTSettingsError("mqtt_topic \(topic.withControlCharactersEscaped) is not a topic of its own: levels joined "
                + "by /, none empty, not starting with $, no control characters")
        }
    }

    /// The box's id in Home Assistant and on the broker (its client id): the topic in letters,
    /// digits, `-` and `_`, and a hash of the exact topic, so topics that differ only in case or
    /// in letters outside ASCII (`adv/厨房`, `adv/卧室`) are two boxes, never one.
    package var nodeID: String { Self.topicWord(topic) + "_" + Self.shortHash(topic) }

    /// The id earlier versions gave the box (without the hash): what they announced is removed.
    var formerNodeID: String { Self.topicWord(topic) }

    /// Six hexadecimal digits of a stable hash of `text`.
    static func shortHash(_ text: String) -> String {
        let digits = String(stableHash(text) & 0xFF_FFFF, radix: 16)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// A host name as a topic level and an id: letters, digits, `-` and `_`.
    static func topicWord(_ text: String) -> String {
        let word = String(text.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
        return word.isEmpty ? "marquee" : word
    }
}

/// Why the MQTT settings cannot be used.
package struct MQTTSettingsError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
