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
    /// `voice`: the engine that speaks (nil: eSpeak NG); `piper_command`: Piper's program
    /// (nil: `piper` on the PATH).
    package var voice: VoiceChoice?
    package var piperCommand: String?
    /// `cec`: which HDMI-CEC adapter wakes the television (nil: `auto`).
    package var cec: CECChoice?
    /// `reclaim_input`: whether marquee takes the television's input back by day (nil: yes).
    package var reclaimInput: Bool?
    /// `screen_off`: the hours the screen is dark, lit only for a reminder (nil: never dark).
    package var screenOff: DarkHours?
    /// `cec_standby`: whether the television is put to standby while the screen is dark
    /// (nil: no, the picture alone goes dark).
    package var cecStandby: Bool?
    /// `web_listen`: where the carer's page is served, `off` (nil: `0.0.0.0:8080`).
    package var webListen: String?
    /// `web_peers`: who may reach it (nil: the home network).
    package var webPeers: PagePeers?
    /// `web_tls`: `own` (the box's own certificate) or `off` (plain HTTP) (nil: `own`, or the
    /// carer's certificate when `web_certificate` names one).
    package var webTLS: String?
    /// `web_certificate`, `web_certificate_key`: the carer's own certificate chain and key (PEM).
    package var webCertificate: String?
    package var webCertificateKey: String?

    /// How the carer's page is encrypted, its own certificate kept in `stateFolder` (nil: not
    /// at all).
    package func pageTLS(stateFolder: String) -> PageTLS? {
        if webTLS == "off" { return nil }
        if let webCertificate, let webCertificateKey { return .given(certificate: webCertificate, key: webCertificateKey) }
        return .own(folder: stateFolder + "/page-tls")
    }

    /// A certificate without its key, or a key without its certificate: the key and what it lacks.
    private var certificateWithoutKey: (key: String, message: String)? {
        switch (webCertificate, webCertificateKey) {
        case (.some, nil): ("web_certificate", "needs web_certificate_key, the file of its private key")
        case (nil, .some): ("web_certificate_key", "needs web_certificate, the file of its certificate")
        default: nil
        }
    }

    /// How reminders are heard, in the voice of `language`.
    package func soundSettings(language: String) -> SoundSettings {
        var sound = SoundSettings(language: language)
        sound.isAskedFor = speak != nil || soundDevice != nil
        if let speak { sound.speak = speak }
        if let volume = dayVolume.flatMap(Volume.init(percent:)) { sound.dayVolume = volume }
        if let volume = nightVolume.flatMap(Volume.init(percent:)) { sound.nightVolume = volume }
        if let soundDevice { sound.device = soundDevice }
        if let repeatUntilAcknowledged { sound.repeatUntilAcknowledged = repeatUntilAcknowledged }
        if let voice { sound.voice = voice }
        if let piperCommand { sound.piperCommand = piperCommand }
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
        ConfigurationKey.all.filter { $0.needsRestart && $0.differs(self, earlier) }.map(\.name)
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
        if let (key, message) = configuration.certificateWithoutKey {
            mistakes.append(ConfigurationError(path: path, line: nil, key: key, message: message))
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
        // A key spelled two ways (`text_color`, `text_colour`) is one key.
        guard seen.insert(ConfigurationKey.named(key)?.name ?? key).inserted else {
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

    /// Sets `key` (one of `ConfigurationKey.all`) from its value; an unknown key is named
    /// with the nearest known one.
    private mutating func set(_ key: String, _ value: TOMLValue) throws(TOMLError) {
        guard let known = ConfigurationKey.named(key) else {
            let names = ConfigurationKey.all.map(\.name)
            let nearest = names.min { editDistance($0, key) < editDistance($1, key) }
            let hint = nearest.flatMap { editDistance($0, key) <= 2 ? "; did you mean `\($0)`?" : nil } ?? ""
            throw TOMLError("unknown key\(hint) (every setting is described in the commented marquee.toml: "
                + "/etc/marquee/marquee.toml on a box, examples/marquee.toml in marquee's source)")
        }
        try known.read(value, &self)
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
