import Schedule
import Sound
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// One key of `marquee.toml`, declared once: its name, how its value is read into the
/// settings, whether a reload applies it or it waits for a restart, and one line of help.
/// Parsing, a reload's notes and the reference's table of keys (held to it by a test) all
/// come from `ConfigurationKey.all`.
package struct ConfigurationKey: Sendable {
    package let name: String
    /// A change takes effect only after a restart: where the display draws, the socket, the
    /// state folder, the feeds watched and fetched, the broker, the television's adapter.
    package let needsRestart: Bool
    /// What the key sets, in one line a carer understands.
    package let help: String
    /// Reads a value into the settings; a value that is not right says why.
    let read: @Sendable (TOMLValue, inout ConfigurationFile) throws(TOMLError) -> Void
    /// Whether two settings differ in this key.
    let differs: @Sendable (ConfigurationFile, ConfigurationFile) -> Bool

    init<Value: Equatable & Sendable>(
        _ name: String, _ setting: WritableKeyPath<ConfigurationFile, Value> & Sendable, restart: Bool = false,
        _ help: String, _ value: @escaping @Sendable (TOMLValue) throws -> Value
    ) {
        self.name = name
        self.needsRestart = restart
        self.help = help
        // The readers throw only `TOMLError`; a closure written short says `throws` plainly.
        read = { (given: TOMLValue, settings: inout ConfigurationFile) throws(TOMLError) in
            do {
                settings[keyPath: setting] = try value(given)
            } catch let error as TOMLError {
                throw error
            } catch {
                throw TOMLError("\(error)")
            }
        }
        differs = { $0[keyPath: setting] != $1[keyPath: setting] }
    }

    /// The key named `name` (`text_color` is `text_colour` spelled the American way).
    static func named(_ name: String) -> ConfigurationKey? {
        byName[name == "text_color" ? "text_colour" : name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Every key, in the order of `examples/marquee.toml`.
    package static let all: [ConfigurationKey] = [
        ConfigurationKey("feeds", \.feeds, restart: true, "the folder of .ics files marquee reads") { try $0.string() },
        ConfigurationKey("subscriptions", \.subscriptions,
                         "calendars fetched from their addresses (https://, webcal://)") { value in
            guard case .strings(let addresses) = value else { throw TOMLError("must be a list of addresses: [\"https://…\"]") }
            for address in addresses where SubscriptionAddress(address) == nil {
                throw TOMLError("\(SubscriptionAddress.redacted(address)) is not an https://, http:// or webcal:// address "
                                + "(with no spaces inside)")
            }
            return addresses
        },
        ConfigurationKey("subscription_ca_file", \.subscriptionCertificateAuthorities, restart: true,
                         "certificate authorities for the subscriptions' servers instead of the system's") { try $0.string() },
        ConfigurationKey("refresh_minutes", \.refreshMinutes, restart: true, "how often each subscription is fetched, in minutes") {
            try $0.whole(1...1440, "a whole number of minutes from 1 to 1440 (the default is 5)")
        },
        ConfigurationKey("output", \.output, restart: true, "where to draw: auto, kms, framebuffer or terminal") {
            try $0.oneOf(OutputChoice.Request.allCases.map(\.rawValue))
        },
        ConfigurationKey("device", \.device, restart: true, "the DRM card or framebuffer to draw on") { try $0.string() },
        ConfigurationKey("connector", \.connector, restart: true, "the KMS connector to draw on (HDMI-A-1)") { try $0.string() },
        ConfigurationKey("mode", \.mode, restart: true, "the KMS mode (1920x1080@60)") { try $0.displayMode() },
        ConfigurationKey("font", \.font, "the text's font file") { value in
            let path = try value.string()
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
                throw TOMLError("there is no font file to read at \(path) (`fc-list` lists the fonts installed)")
            }
            return path
        },
        ConfigurationKey("text_height", \.textHeight, "the text's size as a share of the screen's height") { value in
            guard let number = value.number, (0.03...0.5).contains(number) else {
                throw TOMLError("must be a share of the screen height from 0.03 to 0.5 (the default is 0.125)")
            }
            return number
        },
        ConfigurationKey("glyph_cache_mb", \.glyphCacheMegabytes, "megabytes of drawn letters the display keeps") {
            try $0.whole(1...256, "a whole number of megabytes from 1 to 256 (the default is 4)")
        },
        ConfigurationKey("timezone", \.timezone, "the display's time zone (the system's by default)") { value in
            let name = try value.string()
            guard isKnownTimeZone(name) else {
                throw TOMLError("unknown time zone \"\(name)\" (an IANA name such as \"Europe/Berlin\", "
                                + "or a POSIX rule such as \"CET-1CEST,M3.5.0,M10.5.0/3\"; is tzdata installed?)")
            }
            return name
        },
        ConfigurationKey("speed", \.speed, "how fast the text moves, in characters per second") { value in
            guard let number = value.number else { throw TOMLError("must be a number of characters per second") }
            guard (1...12).contains(number) else { throw TOMLError("must be between 1 and 12 characters per second") }
            return number
        },
        ConfigurationKey("separator", \.separator, "what goes between two messages") { try $0.string() },
        ConfigurationKey("idle_text", \.idleText, "what is shown when nothing is scheduled") { try $0.string() },
        ConfigurationKey("language", \.language, "the language of the words around the messages") { value in
            let code = try value.string()
            if let problem = CalendarWords.unknownLanguage(code) { throw TOMLError(problem) }
            return code
        },
        ConfigurationKey("orientation", \.orientation, "the line below the band: the day, its part and the date") {
            try $0.boolean()
        },
        ConfigurationKey("orientation_time", \.orientationTime, "the time of day at the end of that line") { try $0.boolean() },
        ConfigurationKey("clock", \.clockHours, "a 12- or 24-hour clock") { value in
            guard case .integer(let hours) = value, hours == 12 || hours == 24 else { throw TOMLError("must be 12 or 24") }
            return hours
        },
        ConfigurationKey("morning", \.partStarts[.morning], "when the morning begins") { try $0.timeOfDay() },
        ConfigurationKey("afternoon", \.partStarts[.afternoon], "when the afternoon begins") { try $0.timeOfDay() },
        ConfigurationKey("evening", \.partStarts[.evening], "when the evening begins") { try $0.timeOfDay() },
        ConfigurationKey("night", \.partStarts[.night], "when the night begins") { try $0.timeOfDay() },
        ConfigurationKey("night_dimming", \.nightDimming, "whether the screen dims at night") { try $0.boolean() },
        ConfigurationKey("night_backlight", \.nightBacklight, "the backlight at night, in percent of the day's") {
            try $0.whole(1...100, "a whole percentage of the day's brightness from 1 to 100")
        },
        ConfigurationKey("night_motion", \.nightMotion, "how the text moves at night: slow, still or normal") { value in
            NightSettings.Motion(rawValue: try value.oneOf(NightSettings.Motion.allCases.map(\.rawValue)))
        },
        ConfigurationKey("text_colour", \.textColour, "the colour of messages without one of their own") { value in
            let name = try value.string()
            guard Colour(css: name) != nil else { throw TOMLError("\"\(name)\" is not a CSS colour name (such as \"gold\") or #rrggbb") }
            return name
        },
        ConfigurationKey("effect", \.effect, "every message shown one way: scroll, typewriter or dance") {
            try $0.oneOf(["scroll", "typewriter", "dance"])
        },
        ConfigurationKey("socket", \.socket, restart: true, "the status and control socket") { try $0.string() },
        ConfigurationKey("socket_group", \.socketGroup, restart: true, "the group whose members may use the socket") {
            value in
            let group = try value.string()
            guard getgrnam(group) != nil else { throw TOMLError("there is no group \"\(group)\" on this machine (see /etc/group)") }
            return group
        },
        ConfigurationKey("state_dir", \.stateDirectory, restart: true, "where what must survive a restart is kept") {
            try $0.string()
        },
        ConfigurationKey("default_event_minutes", \.defaultEventMinutes, "how long a timed event without an end lasts") {
            try $0.whole(1...1440, "a whole number of minutes from 1 to 1440")
        },
        ConfigurationKey("mqtt", \.mqtt, restart: true, "the carers' MQTT broker (mqtts://user@broker.lan:8883)") {
            value in
            let address = try value.string()
            do throws(MQTTSettingsError) {
                _ = try MQTTSettings(address: address, hostname: "marquee")
            } catch {
                throw TOMLError(error.description)
            }
            return address
        },
        ConfigurationKey("mqtt_password_file", \.mqttPasswordFile, restart: true, "the file holding the broker's password") {
            try $0.string()
        },
        ConfigurationKey("mqtt_ca_file", \.mqttCertificateAuthorities, restart: true,
                         "certificate authorities for the broker instead of the system's") { try $0.string() },
        ConfigurationKey("mqtt_topic", \.mqttTopic, restart: true, "the start of every topic of this box") { value in
            let topic = try value.string()
            do throws(MQTTSettingsError) {
                try MQTTSettings.check(topic: topic)
            } catch {
                throw TOMLError(error.description)
            }
            return topic
        },
        ConfigurationKey("mqtt_discovery", \.mqttDiscovery, restart: true, "whether Home Assistant is told of the box") {
            try $0.boolean()
        },
        ConfigurationKey("mqtt_name", \.mqttName, restart: true, "the box's name in Home Assistant") { try $0.string() },
        ConfigurationKey("mqtt_commands", \.mqttCommands, restart: true, "whether the box obeys commands from the broker") {
            try $0.boolean()
        },
        ConfigurationKey("speak", \.speak, "which reminders are heard: alarms, audio-only or off") { value in
            SoundSettings.Speak(rawValue: try value.oneOf(SoundSettings.Speak.allCases.map(\.rawValue)))
        },
        ConfigurationKey("volume_day", \.dayVolume, "how loud by day, 0 to 100") {
            try $0.whole(0...100, "a whole number from 0 (silent) to 100 (the default is 80)")
        },
        ConfigurationKey("volume_night", \.nightVolume, "how loud at night, 0 to 100") {
            try $0.whole(0...100, "a whole number from 0 (silent) to 100 (the default is 30)")
        },
        ConfigurationKey("sound_device", \.soundDevice, "the ALSA device reminders are played on") { value in
            let name = try value.string()
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw TOMLError("must be an ALSA device name such as \"default\" or \"plughw:CARD=PCH\" (`aplay -L` lists them)")
            }
            return name
        },
        ConfigurationKey("repeat_until_acknowledged", \.repeatUntilAcknowledged,
                         "how many times more a reminder sounds until someone acknowledges it") {
            try $0.whole(0...SoundSettings.mostRepeats,
                         "a whole number of repeats from 0 to \(SoundSettings.mostRepeats) (the default is 2)")
        },
        ConfigurationKey("voice", \.voice, "the voice that speaks: espeak, piper:/path/voice.onnx or wyoming://host:10200") {
            value in
            do {
                return try VoiceChoice(parsing: try value.string())
            } catch let failure as Speech.Failure {
                throw TOMLError(failure.description)
            }
        },
        ConfigurationKey("piper_command", \.piperCommand, "the piper program, when it is not on the PATH") { value in
            let command = try value.string()
            guard !command.isEmpty, !command.contains("\0") else { throw TOMLError("must name the piper program, or a path to it") }
            return command
        },
        ConfigurationKey("cec", \.cec, restart: true, "the HDMI-CEC adapter that wakes the television: auto, off or a device") {
            value in
            let text = try value.string()
            switch text {
            case "auto": return .auto
            case "off": return .off
            default:
                guard text.hasPrefix("/dev/") else {
                    throw TOMLError("must be \"auto\" (the default), \"off\" or an adapter such as \"/dev/cec0\"")
                }
                return .device(text)
            }
        },
        ConfigurationKey("reclaim_input", \.reclaimInput, restart: true, "whether the television's input is taken back by day") {
            try $0.boolean()
        },
        ConfigurationKey("screen_off", \.screenOff, "the hours the screen is dark, lit only for a reminder") {
            try darkHours(try $0.string())
        },
        ConfigurationKey("cec_standby", \.cecStandby, "whether the television goes to standby while the screen is dark") {
            try $0.boolean()
        },
        ConfigurationKey("web_listen", \.webListen, restart: true,
                         "where the carer's page is served (host:port), or off") { value in
            let text = try value.string()
            guard text == "off" || listenAddress(text) != nil else {
                throw TOMLError("must be \"off\" or an address and port such as \"0.0.0.0:8080\" or \"[::]:8080\"")
            }
            return text
        },
        ConfigurationKey("web_peers", \.webPeers, restart: true, "who may reach the carer's page: home (the home network) or any") {
            try PagePeers(rawValue: $0.oneOf(PagePeers.allCases.map(\.rawValue)))!
        },
        ConfigurationKey("web_tls", \.webTLS, restart: true,
                         "how the carer's page is encrypted: own (a certificate the box makes) or off (plain HTTP)") {
            try $0.oneOf(["own", "off"])
        },
        ConfigurationKey("web_certificate", \.webCertificate, restart: true,
                         "the carer's own certificate chain for the page (PEM), instead of the box's") { try $0.string() },
        ConfigurationKey("web_certificate_key", \.webCertificateKey, restart: true, "the private key of web_certificate (PEM)") {
            try $0.string()
        },
    ]

    /// The default of `web_listen`: every address of the box, port 8080.
    package static let defaultListen = "0.0.0.0:8080"

    /// `web_listen`'s host and port (`0.0.0.0:8080`, `[::]:8080`, `192.168.1.5:8080`).
    package static func listenAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, PagePeers.isHomeNetwork(host) || host == "0.0.0.0" || host == "::" || isAddress(host) else { return nil }
        return (host, port)
    }

    private static func isAddress(_ host: String) -> Bool {
        var four = in_addr(), six = in6_addr()
        return inet_pton(AF_INET, host, &four) == 1 || inet_pton(AF_INET6, host, &six) == 1
    }

    /// The most hours a day `screen_off` may keep the screen dark: more is a range written the
    /// wrong way round (`06:30-23:00` for the night), and a screen dark all day is a blank one.
    static let mostDarkHours = 16

    /// `screen_off`'s value: `"night"` or a range of local times such as `"23:00-06:30"`.
    static func darkHours(_ text: String) throws(TOMLError) -> DarkHours {
        if text == "night" { return .night }
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { minutesAfterMidnight($0) }
        guard ends.count == 2, let start = ends[0], let end = ends[1] else {
            throw TOMLError("must be \"night\" or the hours the screen is dark, such as \"23:00-06:30\"")
        }
        guard start != end else { throw TOMLError("is empty: it begins and ends at \(text.prefix(5)), so the screen would never be dark") }
        let dark = (end - start + 24 * 60) % (24 * 60)
        guard dark <= mostDarkHours * 60 else {
            let written = "\(dark / 60) hours" + (dark % 60 == 0 ? "" : " \(dark % 60) minutes")
            throw TOMLError("would keep the screen dark \(written) a day (at most \(mostDarkHours)); the first time is when "
                + "it goes dark: did you mean \"\(text.suffix(5))-\(text.prefix(5))\"?")
        }
        return .between(start: start, end: end)
    }
}

/// A time of day written `HH:MM`, in minutes after midnight.
private func minutesAfterMidnight(_ text: Substring) -> Int? {
    let parts = text.split(separator: ":").compactMap { Int($0) }
    guard text.count == 5, parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
    return parts[0] * 60 + parts[1]
}

/// The kinds of value the keys take, each with the words of its mistake.
extension TOMLValue {
    func string() throws(TOMLError) -> String {
        guard case .string(let text) = self else { throw TOMLError("must be a string in quotes") }
        return text
    }

    func boolean() throws(TOMLError) -> Bool {
        guard case .boolean(let on) = self else { throw TOMLError("must be true or false") }
        return on
    }

    /// A whole number in `range`; `meaning` says what it must be.
    func whole(_ range: ClosedRange<Int>, _ meaning: String) throws(TOMLError) -> Int {
        guard case .integer(let number) = self, range.contains(number) else { throw TOMLError("must be " + meaning) }
        return number
    }

    func oneOf(_ choices: [String]) throws(TOMLError) -> String {
        let text = try string()
        guard choices.contains(text) else { throw TOMLError("must be one of " + choices.joined(separator: ", ")) }
        return text
    }

    /// A KMS mode: `1920x1080` or `1920x1080@60`.
    func displayMode() throws(TOMLError) -> String {
        let text = try string()
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count <= 2, size.count == 2, size.allSatisfy({ Int($0).map { $0 > 0 } ?? false }),
              parts.count == 1 || Int(parts[1]).map({ $0 > 0 }) ?? false else {
            throw TOMLError("must be a mode such as \"1920x1080@60\" or \"1920x1080\"")
        }
        return text
    }

    /// A time of day such as `"07:00"`, in minutes after midnight.
    func timeOfDay() throws(TOMLError) -> Int {
        guard let minutes = minutesAfterMidnight(Substring(try string())) else {
            throw TOMLError("must be a time of day such as \"07:00\"")
        }
        return minutes
    }
}
