import Schedule
import Sound
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `/etc/marquee/marquee.toml`: the settings a carer may change, every one optional (flags
/// on the command line override them). Read with a strict parser for the part of TOML these
/// settings need — `key = value` lines with strings, integers, floats, booleans and arrays of
/// strings (which may go on over several lines), and `#` comments; anything else (tables,
/// other arrays, dates, a key twice, an unknown key, a wrong type)
/// is an error naming the file, the line and the key.
package struct ConfigurationFile: Sendable, Hashable {
    package var feeds: String?
    /// Calendars fetched from their addresses (https://, webcal://).
    package var subscriptions: [String] = []
    /// How often a subscription is asked for, in minutes.
    package var refreshMinutes: Int?
    /// Certificate authorities the subscriptions' servers are checked against, instead of
    /// the system's (a Nextcloud with a private one).
    package var subscriptionCertificateAuthorities: String?
    package var output: String?
    package var device: String?
    /// The KMS connector to draw on ("HDMI-A-2") and its mode ("1920x1080@60").
    package var connector: String?
    package var mode: String?
    package var timezone: String?
    package var speed: Double?
    package var separator: String?
    /// Shown when nothing is scheduled; `{date}` is today written out.
    package var idleText: String?
    /// The colour of messages without COLOR (`#rrggbb` or a CSS name).
    package var textColour: String?
    /// Show every message this way (e.g. `scroll` to turn dancing and typing off).
    package var effect: String?
    package var socket: String?
    /// The group the socket belongs to: its members may read the status and pause.
    package var socketGroup: String?
    package var stateDirectory: String?
    package var defaultEventMinutes: Int?
    /// The framebuffer's text font (the default fonts stay as fallbacks).
    package var font: String?
    /// The framebuffer's text size as a share of the screen height.
    package var textHeight: Double?
    /// Megabytes the framebuffer's glyph pictures may take.
    package var glyphCacheMegabytes: Int?
    /// The language of the orientation line, the idle text and dates and times in messages
    /// ("de", "en_GB"); the system's (`LANG`) otherwise.
    package var language: String?
    /// Whether the orientation line is shown below the band (on unless turned off).
    package var orientation: Bool?
    /// Whether the orientation line ends with the time of day.
    package var orientationTime: Bool?
    /// A 12-hour (12) or 24-hour (24) clock; as the language prefers otherwise.
    package var clockHours: Int?
    /// When each part of the day begins, in minutes after midnight.
    package var partStarts: [PartOfDay: Int] = [:]
    /// Whether the screen dims at night, and how the text moves then.
    package var nightDimming: Bool?
    package var nightMotion: NightSettings.Motion?
    /// The backlight's level at night, as a percentage of the day's.
    package var nightBacklight: Int?
    /// The carers' MQTT broker (`mqtts://user@broker.lan:8883`) and the keys beside it.
    package var mqtt: String?
    package var mqttPasswordFile: String?
    package var mqttCertificateAuthorities: String?
    package var mqttTopic: String?
    package var mqttDiscovery: Bool?
    /// The box's name in Home Assistant (the host name otherwise).
    package var mqttName: String?
    /// Whether the box obeys commands from the broker (pause, refresh, a message sent now);
    /// false for a box that only reports.
    package var mqttCommands: Bool?
    /// Which reminders are heard (`alarms`, `audio-only`, `off`), how loud by day and by night
    /// (0–100), on which ALSA device, and how many times more a reminder sounds until someone
    /// acknowledges it.
    package var speak: SoundSettings.Speak?
    package var dayVolume: Int?
    package var nightVolume: Int?
    package var soundDevice: String?
    package var repeatUntilAcknowledged: Int?
    /// `cec`: which HDMI-CEC adapter wakes the television (nil: `auto`).
    package var cec: CECChoice?
    /// `reclaim_input`: whether marquee takes the television's input back by day (nil: yes).
    package var reclaimInput: Bool?
    /// `screen_off`: the hours the screen is dark, lit only for a reminder (nil: never dark).
    package var screenOff: DarkHours?
    /// `cec_standby`: whether the television is put to standby while the screen is dark
    /// (nil: no, the picture alone goes dark).
    package var cecStandby: Bool?

    /// How reminders are heard, in the voice of `language`.
    package func soundSettings(language: String) -> SoundSettings {
        var sound = SoundSettings(language: language)
        sound.isAskedFor = speak != nil || soundDevice != nil
        if let speak { sound.speak = speak }
        if let volume = dayVolume.flatMap(Volume.init(percent:)) { sound.dayVolume = volume }
        if let volume = nightVolume.flatMap(Volume.init(percent:)) { sound.nightVolume = volume }
        if let soundDevice { sound.device = soundDevice }
        if let repeatUntilAcknowledged { sound.repeatUntilAcknowledged = repeatUntilAcknowledged }
        sound.certificateAuthorities = subscriptionCertificateAuthorities
        sound.quietNightIsScreenOff = screenOff != nil
        return sound
    }

    /// The MQTT settings (nil: no broker), `address` given on the command line taking the
    /// file's place.
    package func mqttSettings(address: String? = nil, hostname: String, machineID: String? = nil) throws(MQTTSettingsError)
        -> MQTTSettings? {
        guard let address = address ?? mqtt else { return nil }
        return try MQTTSettings(
            address: address, passwordFile: mqttPasswordFile, certificateAuthorities: mqttCertificateAuthorities,
            topic: mqttTopic, discovery: mqttDiscovery ?? true, name: mqttName, commands: mqttCommands ?? true,
            hostname: hostname, machineID: machineID)
    }

    /// The keys changed since `earlier` that a reload cannot apply, each taking effect after a
    /// restart: where the display draws, the socket, the state folder, the feeds watched and
    /// fetched. Every other key a reload applies.
    package func keysNeedingARestart(since earlier: ConfigurationFile) -> [String] {
        let keys: [(key: String, changed: Bool)] = [
            ("feeds", feeds != earlier.feeds), ("subscriptions", subscriptions != earlier.subscriptions),
            ("refresh_minutes", refreshMinutes != earlier.refreshMinutes), ("output", output != earlier.output),
            ("subscription_ca_file", subscriptionCertificateAuthorities != earlier.subscriptionCertificateAuthorities),
            ("device", device != earlier.device), ("connector", connector != earlier.connector),
            ("mode", mode != earlier.mode), ("socket", socket != earlier.socket),
            ("socket_group", socketGroup != earlier.socketGroup), ("state_dir", stateDirectory != earlier.stateDirectory),
            ("mqtt", mqtt != earlier.mqtt), ("mqtt_password_file", mqttPasswordFile != earlier.mqttPasswordFile),
            ("mqtt_ca_file", mqttCertificateAuthorities != earlier.mqttCertificateAuthorities),
            ("mqtt_topic", mqttTopic != earlier.mqttTopic), ("mqtt_discovery", mqttDiscovery != earlier.mqttDiscovery),
            ("mqtt_name", mqttName != earlier.mqttName), ("mqtt_commands", mqttCommands != earlier.mqttCommands),
            ("cec", cec != earlier.cec), ("reclaim_input", reclaimInput != earlier.reclaimInput),
        ]
        return keys.filter(\.changed).map(\.key)
    }

    /// What the display does at night.
    package var nightSettings: NightSettings {
        var night = NightSettings(dims: nightDimming ?? true, motion: nightMotion ?? .slow)
        if let nightBacklight { night.backlightPercent = nightBacklight }
        return night
    }

    package init() {}

    /// The parts of the day and the orientation line's settings (the line may be turned off;
    /// the parts still decide the night).
    package var orientationSettings: OrientationSettings {
        var parts = DayParts()
        parts.starts.merge(partStarts) { $1 }
        return OrientationSettings(parts: parts, showsLine: orientation ?? true, showsTime: orientationTime ?? false)
    }

    /// The settings at `path`; when the file does not exist and was not asked for by name
    /// (`required` false: the default location), the defaults.
    package static func load(_ path: String, required: Bool) throws(ConfigurationError) -> ConfigurationFile {
        guard required || access(path, F_OK) == 0 else { return ConfigurationFile() }
        return try load(path)
    }

    /// Reads and checks a configuration file.
    package static func load(_ path: String) throws(ConfigurationError) -> ConfigurationFile {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ConfigurationError(path: path, line: nil, key: nil, message: "is a folder, not a configuration file")
        }
        let bytes: [UInt8]
        switch readFile(path, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(let problem): throw ConfigurationError(path: path, line: nil, key: nil, message: problem.message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(path: path, line: nil, key: nil, message: "the file is not UTF-8")
        }
        return try parse(text, path: path)
    }

    /// How many mistakes of a file are said at once.
    static let mistakesSaid = 20

    /// Parses configuration text (`path` names it in errors), in one pass over it. Every
    /// mistake is said (up to `mistakesSaid`): the first one thrown, the others in its `more`.
    package static func parse(_ text: String, path: String) throws(ConfigurationError) -> ConfigurationFile {
        var configuration = ConfigurationFile()
        var seen: Set<String> = []
        var partLines: [PartOfDay: Int] = [:]
        var scanner = TOMLScanner(Substring(text))
        var mistakes: [ConfigurationError] = []
        while mistakes.count < mistakesSaid {
            scanner.skipSpaces()
            if scanner.atEnd { break }
            if scanner.takeLineEnd() { continue }
            do throws(ConfigurationError) {
                if let mistake = try readSetting(&scanner, into: &configuration, seen: &seen, partLines: &partLines,
                                                 path: path) {
                    mistakes.append(mistake)
                }
            } catch {
                mistakes.append(error)
                scanner.skipLine()
            }
        }
        if mistakes.isEmpty, let (part, message) = configuration.partsOutOfOrder() {
            mistakes.append(ConfigurationError(path: path, line: partLines[part], key: part.rawValue, message: message))
        }
        if var first = mistakes.first {
            first.more = Array(mistakes.dropFirst())
            throw first
        }
        return configuration
    }

    /// Reads one `key = value` line (or an array over several) into `configuration`: thrown,
    /// a mistake that stopped the reading of the line; returned, one in a line read whole.
    private static func readSetting(
        _ scanner: inout TOMLScanner, into configuration: inout ConfigurationFile, seen: inout Set<String>,
        partLines: inout [PartOfDay: Int], path: String
    ) throws(ConfigurationError) -> ConfigurationError? {
        let line = scanner.line
        func fail(_ key: String?, _ message: String) -> ConfigurationError {
            ConfigurationError(path: path, line: line, key: key, message: message)
        }
        if scanner.peek == "[" { throw fail(nil, "tables are not used in marquee.toml; write plain `key = value` lines") }
        let key = scanner.bareKey()
        guard !key.isEmpty else { throw fail(nil, "expected `key = value`") }
        scanner.skipSpaces()
        guard scanner.take("=") else { throw fail(key, "expected `=` after the key") }
        scanner.skipSpaces()
        let value: TOMLValue
        do {
            value = try scanner.value()
        } catch {
            throw fail(key, error.message)
        }
        scanner.skipSpaces()
        guard scanner.atEnd || scanner.takeLineEnd() else { throw fail(key, "unexpected text after the value") }
        // `text_color` is `text_colour` spelled the American way: one key.
        guard seen.insert(key == "text_color" ? "text_colour" : key).inserted else {
            return fail(key, key.hasPrefix("text_colo") ? "the key is set twice (text_colour and text_color are one key)"
                                                         : "the key is set twice")
        }
        if let part = PartOfDay(rawValue: key) { partLines[part] = line }
        do {
            try configuration.set(key, value)
        } catch {
            return fail(key, error.message)
        }
        return nil
    }

    /// A part of the day that begins out of order (morning, afternoon, evening, then night
    /// before the next morning), and why; the defaults stand for the parts not set.
    private func partsOutOfOrder() -> (PartOfDay, String)? {
        let starts = orientationSettings.parts.starts
        func clock(_ part: PartOfDay) -> String {
            let minute = starts[part] ?? 0
            return CivilDateTime(2000, 1, 1, minute / 60, minute % 60).clock()
        }
        let day: [PartOfDay] = [.morning, .afternoon, .evening]
        for (earlier, later) in zip(day, day.dropFirst()) where (starts[later] ?? 0) <= (starts[earlier] ?? 0) {
            let blamed = partStarts[later] != nil ? later : earlier
            return (blamed, "\(later.rawValue) (\(clock(later))) must begin after \(earlier.rawValue) (\(clock(earlier)))")
        }
        let night = starts[.night] ?? 0
        if night <= (starts[.evening] ?? 0), night >= (starts[.morning] ?? 0) {
            let blamed = partStarts[.night] != nil ? PartOfDay.night : .evening
            return (blamed, "night (\(clock(.night))) must begin after evening (\(clock(.evening))) "
                + "or after midnight before morning (\(clock(.morning)))")
        }
        return nil
    }

    private mutating func set(_ key: String, _ value: TOMLValue) throws(TOMLError) {
        func string() throws(TOMLError) -> String {
            guard case .string(let text) = value else { throw TOMLError("must be a string in quotes") }
            return text
        }
        func boolean() throws(TOMLError) -> Bool {
            guard case .boolean(let on) = value else { throw TOMLError("must be true or false") }
            return on
        }
        func whole(_ range: ClosedRange<Int>, _ meaning: String) throws(TOMLError) -> Int {
            guard case .integer(let number) = value, range.contains(number) else { throw TOMLError("must be " + meaning) }
            return number
        }
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
        func oneOf(_ choices: [String]) throws(TOMLError) -> String {
            let text = try string()
            guard choices.contains(text) else { throw TOMLError("must be one of " + choices.joined(separator: ", ")) }
            return text
        }
        switch key {
        case "feeds": feeds = try string()
        case "subscriptions":
            guard case .strings(let addresses) = value else { throw TOMLError("must be a list of addresses: [\"https://…\"]") }
            for address in addresses where SubscriptionAddress(address) == nil {
                throw TOMLError("\(SubscriptionAddress.redacted(address)) is not an https://, http:// or webcal:// address "
                                + "(with no spaces inside)")
            }
            subscriptions = addresses
        case "refresh_minutes":
            refreshMinutes = try whole(1...1440, "a whole number of minutes from 1 to 1440 (the default is 5)")
        case "subscription_ca_file": subscriptionCertificateAuthorities = try string()
        case "output": output = try oneOf(OutputChoice.Request.allCases.map(\.rawValue))
        case "connector": connector = try string()
        case "mode": mode = try displayMode()
        case "device": device = try string()
        case "timezone":
            let name = try string()
            guard isKnownTimeZone(name) else {
                throw TOMLError("unknown time zone \"\(name)\" (an IANA name such as \"Europe/Berlin\", "
                                + "or a POSIX rule such as \"CET-1CEST,M3.5.0,M10.5.0/3\"; is tzdata installed?)")
            }
            timezone = name
        case "separator": separator = try string()
        case "idle_text": idleText = try string()
        case "text_colour", "text_color":
            let name = try string()
            guard Colour(css: name) != nil else { throw TOMLError("\"\(name)\" is not a CSS colour name (such as \"gold\") or #rrggbb") }
            textColour = name
        case "effect": effect = try oneOf(["scroll", "typewriter", "dance"])
        case "socket": socket = try string()
        case "socket_group":
            let group = try string()
            guard getgrnam(group) != nil else { throw TOMLError("there is no group \"\(group)\" on this machine (see /etc/group)") }
            socketGroup = group
        case "state_dir": stateDirectory = try string()
        case "font":
            let path = try string()
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
                throw TOMLError("there is no font file to read at \(path) (`fc-list` lists the fonts installed)")
            }
            font = path
        case "speed":
            guard let number = value.number else { throw TOMLError("must be a number of characters per second") }
            guard (1...12).contains(number) else { throw TOMLError("must be between 1 and 12 characters per second") }
            speed = number
        case "text_height":
            guard let number = value.number, (0.03...0.5).contains(number) else {
                throw TOMLError("must be a share of the screen height from 0.03 to 0.5 (the default is 0.125)")
            }
            textHeight = number
        case "glyph_cache_mb":
            glyphCacheMegabytes = try whole(1...256, "a whole number of megabytes from 1 to 256 (the default is 4)")
        case "language":
            let code = try string()
            if let problem = CalendarWords.unknownLanguage(code) { throw TOMLError(problem) }
            language = code
        case "orientation": orientation = try boolean()
        case "orientation_time": orientationTime = try boolean()
        case "clock":
            guard case .integer(let hours) = value, hours == 12 || hours == 24 else { throw TOMLError("must be 12 or 24") }
            clockHours = hours
        case "night_dimming": nightDimming = try boolean()
        case "night_motion":
            nightMotion = NightSettings.Motion(rawValue: try oneOf(NightSettings.Motion.allCases.map(\.rawValue)))
        case "night_backlight":
            nightBacklight = try whole(1...100, "a whole percentage of the day's brightness from 1 to 100")
        case "morning", "afternoon", "evening", "night":
            let text = try string()
            let parts = text.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2, text.count == 5, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else {
                throw TOMLError("must be a time of day such as \"07:00\"")
            }
            partStarts[PartOfDay(rawValue: key)!] = parts[0] * 60 + parts[1]
        case "default_event_minutes":
            defaultEventMinutes = try whole(1...1440, "a whole number of minutes from 1 to 1440")
        case "mqtt":
            let address = try string()
            do throws(MQTTSettingsError) {
                _ = try MQTTSettings(address: address, hostname: "marquee")
            } catch {
                throw TOMLError(error.description)
            }
            mqtt = address
        case "mqtt_password_file": mqttPasswordFile = try string()
        case "mqtt_ca_file": mqttCertificateAuthorities = try string()
        case "mqtt_topic":
            let topic = try string()
            do throws(MQTTSettingsError) {
                try MQTTSettings.check(topic: topic)
            } catch {
                throw TOMLError(error.description)
            }
            mqttTopic = topic
        case "mqtt_discovery": mqttDiscovery = try boolean()
        case "mqtt_name": mqttName = try string()
        case "mqtt_commands": mqttCommands = try boolean()
        case "speak": speak = SoundSettings.Speak(rawValue: try oneOf(SoundSettings.Speak.allCases.map(\.rawValue)))
        case "volume_day": dayVolume = try whole(0...100, "a whole number from 0 (silent) to 100 (the default is 80)")
        case "volume_night": nightVolume = try whole(0...100, "a whole number from 0 (silent) to 100 (the default is 30)")
        case "sound_device":
            let name = try string()
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw TOMLError("must be an ALSA device name such as \"default\" or \"plughw:CARD=PCH\" (`aplay -L` lists them)")
            }
            soundDevice = name
        case "cec":
            let text = try string()
            switch text {
            case "auto": cec = .auto
            case "off": cec = .off
            default:
                guard text.hasPrefix("/dev/") else {
                    throw TOMLError("must be \"auto\" (the default), \"off\" or an adapter such as \"/dev/cec0\"")
                }
                cec = .device(text)
            }
        case "reclaim_input": reclaimInput = try boolean()
        case "screen_off": screenOff = try Self.darkHours(try string())
        case "cec_standby": cecStandby = try boolean()
        case "repeat_until_acknowledged":
            repeatUntilAcknowledged = try whole(
                0...SoundSettings.mostRepeats, "a whole number of repeats from 0 to \(SoundSettings.mostRepeats) (the default is 2)")
        default:
            let nearest = Self.keys.min { editDistance($0, key) < editDistance($1, key) }
            let hint = nearest.flatMap { editDistance($0, key) <= 2 ? "; did you mean `\($0)`?" : nil } ?? ""
            throw TOMLError("unknown key\(hint) (every setting is described in the commented marquee.toml: "
                + "/etc/marquee/marquee.toml on a box, examples/marquee.toml in marquee's source)")
        }
    }

    /// Every key `set` takes.
    static let keys = [
        "feeds",
        "subscriptions",
        "refresh_minutes",
        "subscription_ca_file",
        "output",
        "connector",
        "mode",
        "device",
        "timezone",
        "separator",
        "idle_text",
        "text_colour",
        "effect",
        "socket",
        "socket_group",
        "state_dir",
        "font",
        "speed",
        "text_height",
        "glyph_cache_mb",
        "language",
        "orientation",
        "orientation_time",
        "clock",
        "night_dimming",
        "night_motion",
        "night_backlight",
        "morning",
        "afternoon",
        "evening",
        "night",
        "default_event_minutes",
        "mqtt",
        "mqtt_password_file",
        "mqtt_ca_file",
        "mqtt_topic",
        "mqtt_discovery",
        "mqtt_name",
        "mqtt_commands",
        "speak",
        "volume_day",
        "volume_night",
        "sound_device",
        "repeat_until_acknowledged",
        "cec",
        "reclaim_input",
        "screen_off",
        "cec_standby",
    ]

    /// The most hours a day `screen_off` may keep the screen dark: more is a range written the
    /// wrong way round (`06:30-23:00` for the night), and a screen dark all day is a blank one.
    static let mostDarkHours = 16

    /// `screen_off`'s value: `"night"` or a range of local times such as `"23:00-06:30"`.
    static func darkHours(_ text: String) throws(TOMLError) -> DarkHours {
        if text == "night" { return .night }
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { end -> Int? in
            let parts = end.split(separator: ":").compactMap { Int($0) }
            guard end.count == 5, parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
            return parts[0] * 60 + parts[1]
        }
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

/// A problem in the configuration file, with where it is.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var line: Int?
    package var key: String?
    package var message: String
    /// The file's further mistakes, in order: a carer mends them all at once.
    package var more: [ConfigurationError] = []

    package init(path: String, line: Int?, key: String?, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.message = message
    }

    package var description: String {
        let location = line.map { "\(path):\($0)" } ?? path
        return (["\(location): " + (key.map { "`\($0)` " } ?? "") + message] + more.map(\.description))
            .joined(separator: "\n")
    }
}

enum TOMLValue: Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case strings([String])

    /// An integer or a float as a number.
    var number: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .float(let float): float
        default: nil
        }
    }
}

struct TOMLError: Error {
    var message: String
    init(_ message: String) {
        self.message = message
    }
}

/// Reads the TOML subset from the whole text, counting lines as it goes.
struct TOMLScanner {
    private var rest: Substring

    /// The line being read (from 1).
    private(set) var line = 1

    init(_ text: Substring) {
        rest = text
    }

    var peek: Character? { rest.first }
    var atEnd: Bool { rest.isEmpty }

    mutating func skipSpaces() {
        rest = rest.drop { $0 == " " || $0 == "\t" }
    }

    /// Skips a comment, then takes the line break that ends the line; false when the line
    /// goes on with something else.
    mutating func takeLineEnd() -> Bool {
        if rest.first == "#" { rest = rest.drop { !$0.isLineBreak } }
        guard rest.first?.isLineBreak == true else { return rest.isEmpty }
        rest.removeFirst()
        line += 1
        return true
    }

    /// Skips what is left of the line and its line break (after a mistake in it).
    mutating func skipLine() {
        rest = rest.drop { !$0.isLineBreak }
        _ = takeLineEnd()
    }

    mutating func take(_ character: Character) -> Bool {
        guard rest.first == character else { return false }
        rest.removeFirst()
        return true
    }

    mutating func bareKey() -> String {
        let key = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        rest = rest.dropFirst(key.count)
        return String(key)
    }

    mutating func value() throws(TOMLError) -> TOMLValue {
        switch rest.first {
        case "[":
            rest.removeFirst()
            return .strings(try stringArray())
        case "\"":
            rest.removeFirst()
            return .string(try basicString())
        case "'":
            rest.removeFirst()
            guard let end = rest.firstIndex(where: { $0 == "'" || $0.isLineBreak }), rest[end] == "'" else {
                throw TOMLError("the string has no closing '")
            }
            defer { rest = rest[rest.index(after: end)...] }
            return .string(String(rest[..<end]))
        default:
            let word = String(rest.prefix { !$0.isWhitespace && $0 != "#" })
            rest = rest.dropFirst(word.count)
            if word == "true" { return .boolean(true) }
            if word == "false" { return .boolean(false) }
            let digits = word.replacing("_", with: "")
            if let integer = Int(digits) { return .integer(integer) }
            if let float = Double(digits), digits.contains(where: { ".eE".contains($0) }), digits.first != "n",
                digits.first != "i"
            {
                return .float(float)
            }
            throw TOMLError(word.isEmpty ? "the value is missing" : "`\(word)` is not a value marquee understands (quote strings)")
        }
    }

    /// The strings of an array after its `[`: `"a", "b"`, a trailing comma allowed, and line
    /// breaks and comments between the items.
    private mutating func stringArray() throws(TOMLError) -> [String] {
        var items: [String] = []
        while true {
            skipBlanksAndComments()
            guard let next = rest.first else { throw TOMLError("the list has no closing ]") }
            if next == "]" {
                rest.removeFirst()
                return items
            }
            guard next == "\"" || next == "'", case .string(let item) = try value() else {
                throw TOMLError("a list here holds only strings in quotes")
            }
            items.append(item)
            skipBlanksAndComments()
            if !take(",") {
                skipBlanksAndComments()
                guard rest.first == "]" || rest.isEmpty else { throw TOMLError("expected , or ] in the list") }
            }
        }
    }

    private mutating func skipBlanksAndComments() {
        repeat {
            skipSpaces()
        } while !rest.isEmpty && takeLineEnd()
    }

    private mutating func basicString() throws(TOMLError) -> String {
        var result = ""
        while let character = rest.first {
            guard !character.isLineBreak else { break }
            rest.removeFirst()
            switch character {
            case "\"":
                return result
            case "\\":
                guard let escape = rest.first else { break }
                rest.removeFirst()
                switch escape {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "u", "U":
                    let length = escape == "u" ? 4 : 8
                    let hex = rest.prefix(length)
                    guard hex.count == length, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                        throw TOMLError("bad \\\(escape) escape in the string")
                    }
                    rest = rest.dropFirst(length)
                    result.unicodeScalars.append(scalar)
                default:
                    throw TOMLError("unknown escape \\\(escape) in the string")
                }
            default:
                result.append(character)
            }
        }
        throw TOMLError("the string has no closing \"")
    }
}

extension Character {
    /// Ends a line in the configuration file ("\r\n" is one Character).
    var isLineBreak: Bool { self == "\n" || self == "\r\n" || self == "\r" }
}
