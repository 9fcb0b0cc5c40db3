import Foundation
import Schedule
import Sound
import TestSupport
import Testing

@testable import Daemon

/// The configuration file: every setting read, every mistake named with its line and key.
@Suite struct ConfigurationFileTests {
    /// A file of the source tree, by its path from the top.
    static func sourceFile(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(path).path
    }

    @Test func theExampleFileIsValid() throws {
        let file = try ConfigurationFile.load(Self.sourceFile("examples/marquee.toml"))
        #expect(file.feeds == "/etc/marquee/feeds.d")
        #expect(file.speed == 5)
        #expect(file.separator == " • ")
        #expect(file.idleText == "{date}")
        #expect(file.defaultEventMinutes == 60)
        #expect(file.timezone == nil)
        let sound = file.soundSettings(language: "de")
        #expect(sound == SoundSettings(speak: .alarms, dayVolume: Volume(percent: 80)!, nightVolume: Volume(percent: 30)!,
                                       device: "default", repeatUntilAcknowledged: 2, language: "de"))
    }

    /// Every key, changed: a reload applies it, or — where the display draws, the socket, the
    /// state folder, the feeds watched and fetched — says it takes effect after a restart.
    /// Nothing is kept silently.
    @Test(arguments: [
        ("feeds", "\"/srv/a\"", "\"/srv/b\"", true),
        ("subscriptions", "[\"https://a.example/c.ics\"]", "[\"https://b.example/c.ics\"]", false),
        ("refresh_minutes", "5", "15", true), ("output", "\"kms\"", "\"framebuffer\"", true),
        ("connector", "\"HDMI-A-1\"", "\"HDMI-A-2\"", true), ("mode", "\"1920x1080\"", "\"1280x720@60\"", true),
        ("device", "\"/dev/fb0\"", "\"/dev/fb1\"", true),
        ("font", "\"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf\"",
         "\"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf\"", false),
        ("text_height", "0.125", "0.2", false), ("glyph_cache_mb", "4", "8", false),
        ("socket", "\"/run/marquee/a.sock\"", "\"/run/marquee/b.sock\"", true),
        ("socket_group", "\"video\"", "\"audio\"", true), ("state_dir", "\"/var/lib/a\"", "\"/var/lib/b\"", true),
        ("timezone", "\"Europe/Berlin\"", "\"America/New_York\"", false), ("speed", "5", "3", false),
        ("separator", "\" • \"", "\" + \"", false), ("idle_text", "\"{date}\"", "\"Hello\"", false),
        ("text_colour", "\"gold\"", "\"white\"", false), ("effect", "\"scroll\"", "\"dance\"", false),
        ("language", "\"en_GB\"", "\"de\"", false), ("orientation", "true", "false", false),
        ("orientation_time", "false", "true", false), ("clock", "24", "12", false),
        ("night_dimming", "true", "false", false), ("night_motion", "\"slow\"", "\"still\"", false),
        ("night_backlight", "40", "20", false), ("morning", "\"07:00\"", "\"06:30\"", false),
        ("afternoon", "\"12:00\"", "\"13:00\"", false), ("evening", "\"17:00\"", "\"18:00\"", false),
        ("night", "\"22:00\"", "\"21:00\"", false), ("default_event_minutes", "60", "30", false),
        ("speak", "\"alarms\"", "\"off\"", false), ("volume_day", "80", "60", false), ("volume_night", "30", "10", false),
        ("sound_device", "\"default\"", "\"plughw:CARD=PCH\"", false), ("repeat_until_acknowledged", "2", "0", false),
        ("voice", "\"espeak\"", "\"wyoming://homeassistant.local:10200\"", false),
        ("piper_command", "\"piper\"", "\"/opt/piper/bin/piper\"", false),
        ("screen_off", "\"23:00-06:30\"", "\"night\"", false), ("cec_standby", "false", "true", false),
    ])
    func everyKeyReloadedOrToldToRestart(key: String, before: String, after: String, restarts: Bool) throws {
        let earlier = try ConfigurationFile.parse("\(key) = \(before)", path: "m.toml")
        let later = try ConfigurationFile.parse("\(key) = \(after)", path: "m.toml")
        #expect(earlier != later)
        #expect(later.keysNeedingARestart(since: earlier) == (restarts ? [key] : []))
        #expect(later.keysNeedingARestart(since: later).isEmpty)
    }

    @Test func valuesAndComments() throws {
        let text = """
            # a comment
            speed = 4.5   # trailing comment
            separator = "  \\u2022 \\"x\\" "
            idle_text = 'C:\\literal'
            text_colour = "gold"
            effect = "scroll"\r
            default_event_minutes = 1_440
            font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
            text_height = 0.2
            """
        let file = try ConfigurationFile.parse(text, path: "m.toml")
        #expect(file.speed == 4.5)
        #expect(file.separator == "  • \"x\" ")
        #expect(file.idleText == "C:\\literal")
        #expect(file.textColour == "gold")
        #expect(file.effect == "scroll")
        #expect(file.defaultEventMinutes == 1440)
        #expect(file.font == "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        #expect(file.textHeight == 0.2)
    }

    /// Subscriptions are a list of addresses, on one line or over several, with comments.
    @Test func subscriptionList() throws {
        let text = """
            subscriptions = [
                "https://calendar.google.com/calendar/ical/x/private-abc123/basic.ics",  # Mum's
                # iCloud, shared by Anna
                'webcal://p42-caldav.icloud.com/published/2/MTIzNDU2',
            ]
            refresh_minutes = 10
            feeds = "/srv/feeds"
            """
        let file = try ConfigurationFile.parse(text, path: "m.toml")
        #expect(file.subscriptions == [
            "https://calendar.google.com/calendar/ical/x/private-abc123/basic.ics",
            "webcal://p42-caldav.icloud.com/published/2/MTIzNDU2",
        ])
        #expect(file.refreshMinutes == 10 && file.feeds == "/srv/feeds")
        #expect(try ConfigurationFile.parse("subscriptions = []", path: "m.toml").subscriptions.isEmpty)
        // A mistake after a list is named on its own line.
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse(text + "\nspeed = 99", path: "m.toml") }
        do {
            _ = try ConfigurationFile.parse(text + "\nspeed = 99", path: "m.toml")
        } catch {
            #expect(error.description.hasPrefix("m.toml:8: `speed`"))
        }
    }

    /// The keys are declared once, in `ConfigurationKey.all`: the commented example file shows
    /// each of them (set or commented out) and no other, in the same order, and the reference's
    /// table lists each with whether a reload applies it and its line of help, word for word.
    @Test func theExampleAndTheReferenceListEveryKey() throws {
        let example = try String(contentsOfFile: Self.sourceFile("examples/marquee.toml"), encoding: .utf8)
        let shown = example.split(separator: "\n").compactMap { line -> String? in
            let setting = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard let equals = setting.range(of: " = "),
                  setting[..<equals.lowerBound].allSatisfy({ $0.isLowercase || $0 == "_" }) else { return nil }
            return String(setting[..<equals.lowerBound])
        }
        #expect(shown == ConfigurationKey.all.map(\.name))
        let reference = try String(contentsOfFile: Self.sourceFile("docs/reference.md"), encoding: .utf8)
        let rows = reference.split(separator: "\n").filter { $0.hasPrefix("| `") && $0.hasSuffix(" |") }.map(String.init)
        let expected = ConfigurationKey.all.map { key in
            "| `\(key.name)` | \(key.needsRestart ? "a restart" : "a reload") | \(key.help) |"
        }
        let keyRows = rows.filter { $0.contains("` | a restart | ") || $0.contains("` | a reload | ") }
        #expect(keyRows == expected, "the table of keys in docs/reference.md:\n\(expected.joined(separator: "\n"))")
    }

    /// Every key the file takes is among those an unknown key is compared with ("did you
    /// mean"), and none of them is unknown.
    @Test func everyKeyIsKnown() {
        for key in ConfigurationKey.all.map(\.name) {
            do {
                _ = try ConfigurationFile.parse("\(key) = 0", path: "m.toml")
            } catch {
                #expect(!error.description.contains("unknown key"), "\(key): \(error.description)")
            }
        }
    }

    @Test(arguments: [
        ("speed = 20", "m.toml:1: `speed` must be between 1 and 12 characters per second"),
        ("spede = 5", "m.toml:1: `spede` unknown key; did you mean `speed`? (every setting is described in the commented "
            + "marquee.toml: /etc/marquee/marquee.toml on a box, examples/marquee.toml in marquee's source)"),
        ("speeed = 5", "m.toml:1: `speeed` unknown key; did you mean `speed`? (every setting is described in the commented "
            + "marquee.toml: /etc/marquee/marquee.toml on a box, examples/marquee.toml in marquee's source)"),
        ("colour_of_text = 5", "m.toml:1: `colour_of_text` unknown key (every setting is described in the commented "
            + "marquee.toml: /etc/marquee/marquee.toml on a box, examples/marquee.toml in marquee's source)"),
        ("speed = 1e308", "m.toml:1: `speed` must be between 1 and 12 characters per second"),
        ("speed = \"fast\"", "m.toml:1: `speed` must be a number of characters per second"),
        ("separator = \"open", "m.toml:1: `separator` the string has no closing \""),
        ("[display]", "m.toml:1: tables are not used in marquee.toml; write plain `key = value` lines"),
        ("effect = \"flash\"", "m.toml:1: `effect` must be one of scroll, typewriter, dance"),
        ("feeds = /etc/x", "m.toml:1: `feeds` `/etc/x` is not a value marquee understands (quote strings)"),
        ("speed = 5\nspeed = 6", "m.toml:2: `speed` the key is set twice"),
        ("speed 5", "m.toml:1: `speed` expected `=` after the key"),
        ("speed = 5 6", "m.toml:1: `speed` unexpected text after the value"),
        ("= 5", "m.toml:1: expected `key = value`"),
        ("separator = \"\\q\"", "m.toml:1: `separator` unknown escape \\q in the string"),
        ("text_height = 2", "m.toml:1: `text_height` must be a share of the screen height from 0.03 to 0.5 (the default is 0.125)"),
        ("font = 12", "m.toml:1: `font` must be a string in quotes"),
        ("clock = 13", "m.toml:1: `clock` must be 12 or 24"),
        ("morning = \"7\"", "m.toml:1: `morning` must be a time of day such as \"07:00\""),
        ("orientation = \"yes\"", "m.toml:1: `orientation` must be true or false"),
        ("night_motion = \"fast\"", "m.toml:1: `night_motion` must be one of slow, still, normal"),
        ("night_backlight = 0", "m.toml:1: `night_backlight` must be a whole percentage of the day's brightness from 1 to 100"),
        ("night_backlight = 40.5", "m.toml:1: `night_backlight` must be a whole percentage of the day's brightness from 1 to 100"),
        ("subscriptions = \"https://a.example/x.ics\"", "m.toml:1: `subscriptions` must be a list of addresses: [\"https://…\"]"),
        ("subscriptions = [\"/etc/x.ics\"]", "m.toml:1: `subscriptions` /etc/x.ics is not an https://, http:// or webcal:// address (with no spaces inside)"),
        ("subscriptions = [\"https://a.example/x.ics\"", "m.toml:1: `subscriptions` the list has no closing ]"),
        ("subscriptions = [\n  \"https://a.example/x.ics\",\n", "m.toml:1: `subscriptions` the list has no closing ]"),
        ("subscriptions = [1]", "m.toml:1: `subscriptions` a list here holds only strings in quotes"),
        ("subscriptions = [\"https://a.example/x.ics\" \"https://b.example/y.ics\"]",
         "m.toml:1: `subscriptions` expected , or ] in the list"),
        ("speed = [\"5\"]", "m.toml:1: `speed` must be a number of characters per second"),
        ("refresh_minutes = 0", "m.toml:1: `refresh_minutes` must be a whole number of minutes from 1 to 1440 (the default is 5)"),
        ("timezone = \"Nowhere/Land\"", "m.toml:1: `timezone` unknown time zone \"Nowhere/Land\" (an IANA name such as "
            + "\"Europe/Berlin\", or a POSIX rule such as \"CET-1CEST,M3.5.0,M10.5.0/3\"; is tzdata installed?)"),
        ("text_colour = \"blurple\"", "m.toml:1: `text_colour` \"blurple\" is not a CSS colour name (such as \"gold\") or #rrggbb"),
        ("text_colour = \"gold\"\ntext_color = \"red\"",
         "m.toml:2: `text_color` the key is set twice (text_colour and text_color are one key)"),
        ("socket_group = \"no-such-group-here\"", "m.toml:1: `socket_group` there is no group \"no-such-group-here\" on this machine (see /etc/group)"),
        ("font = \"/nonexistent/Font.ttf\"", "m.toml:1: `font` there is no font file to read at /nonexistent/Font.ttf (`fc-list` lists the fonts installed)"),
        ("language = \"klingon\"", "m.toml:1: `language` unknown language \"klingon\" (a code such as \"de\", \"en_GB\" or \"zh\")"),
        ("language = \"germn\"", "m.toml:1: `language` unknown language \"germn\" (a code such as \"de\", \"en_GB\" or \"zh\"); did you mean \"de\" (German)?"),
        ("morning = \"09:00\"\nafternoon = \"08:00\"", "m.toml:2: `afternoon` afternoon (08:00) must begin after morning (09:00)"),
        ("night = \"15:00\"", "m.toml:1: `night` night (15:00) must begin after evening (17:00) or after midnight before morning (07:00)"),
        ("speak = \"loud\"", "m.toml:1: `speak` must be one of alarms, audio-only, off"),
        ("volume_day = 101", "m.toml:1: `volume_day` must be a whole number from 0 (silent) to 100 (the default is 80)"),
        ("volume_night = -1", "m.toml:1: `volume_night` must be a whole number from 0 (silent) to 100 (the default is 30)"),
        ("sound_device = \"\"", "m.toml:1: `sound_device` must be an ALSA device name such as \"default\" or "
            + "\"plughw:CARD=PCH\" (`aplay -L` lists them)"),
        ("sound_device = \"hw:0 ; rm\"", "m.toml:1: `sound_device` must be an ALSA device name such as \"default\" or "
            + "\"plughw:CARD=PCH\" (`aplay -L` lists them)"),
        ("repeat_until_acknowledged = 100000", "m.toml:1: `repeat_until_acknowledged` must be a whole number of repeats "
            + "from 0 to 10 (the default is 2)"),
        ("screen_off = \"06:30-06:30\"", "m.toml:1: `screen_off` is empty: it begins and ends at 06:30, so the screen "
            + "would never be dark"),
        ("screen_off = \"06:30-23:00\"", "m.toml:1: `screen_off` would keep the screen dark 16 hours 30 minutes a day "
            + "(at most 16); the first time is when it goes dark: did you mean \"23:00-06:30\"?"),
        ("screen_off = \"00:00-23:59\"", "m.toml:1: `screen_off` would keep the screen dark 23 hours 59 minutes a day "
            + "(at most 16); the first time is when it goes dark: did you mean \"23:59-00:00\"?"),
        ("screen_off = \"23:00\"", "m.toml:1: `screen_off` must be \"night\" or the hours the screen is dark, such as "
            + "\"23:00-06:30\""),
        ("screen_off = \"23:00-24:00\"", "m.toml:1: `screen_off` must be \"night\" or the hours the screen is dark, such as "
            + "\"23:00-06:30\""),
        ("screen_off = \"11pm-6am\"", "m.toml:1: `screen_off` must be \"night\" or the hours the screen is dark, such as "
            + "\"23:00-06:30\""),
        ("screen_off = \"23:00-06:30-07:00\"", "m.toml:1: `screen_off` must be \"night\" or the hours the screen is dark, "
            + "such as \"23:00-06:30\""),
        ("screen_off = true", "m.toml:1: `screen_off` must be a string in quotes"),
        ("cec_standby = \"yes\"", "m.toml:1: `cec_standby` must be true or false"),
    ])
    func mistakesAreNamed(text: String, message: String) {
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse(text, path: "m.toml") }
        do {
            _ = try ConfigurationFile.parse(text, path: "m.toml")
        } catch {
            #expect(error.description == message)
        }
    }

    /// Every mistake of a file is said at once, each on its own line (only the first was), a
    /// mistake in a line's value or after it costs only that line, and at most
    /// `mistakesSaid` are said.
    @Test func everyMistakeIsSaid() {
        let text = """
            speeed = 5
            speed = "fast"
            text_height = 0.1 0.2
            timezone = "Europe/Berlin"
            timezone = "UTC"
            language = "de"
            """
        #expect {
            try ConfigurationFile.parse(text, path: "m.toml")
        } throws: { error in
            (error as? ConfigurationError)?.description.split(separator: "\n").map { String($0.prefix(22)) } == [
                "m.toml:1: `speeed` unk", "m.toml:2: `speed` must", "m.toml:3: `text_height",
                "m.toml:5: `timezone` t",
            ]
        }
        let many = String(repeating: "nonsense = 1\n", count: 100)
        #expect {
            try ConfigurationFile.parse(many, path: "m.toml")
        } throws: { error in
            (error as? ConfigurationError)?.description.split(separator: "\n").count == 20
        }
    }

    /// A list left open is read in one pass (it was read again for every line: a 40,000-line
    /// file took 22 s), and a mistake is named on its key's line whatever the line breaks.
    @Test func anOpenListIsReadOnce() throws {
        let open = "subscriptions = [\n" + String(repeating: "  \"https://a.example/calendar.ics\",\n", count: 40_000)
        do {
            _ = try ConfigurationFile.parse("speed = 5\r\n" + open, path: "m.toml")
            Issue.record("an open list was taken")
        } catch {
            #expect(error.description == "m.toml:2: `subscriptions` the list has no closing ]")
        }
        let mixed = "# windows\r\nspeed = 5\r\n\rsubscriptions = [ # mine\r\n 'https://a.example/x.ics' ,\n]\nclock = 25"
        do {
            _ = try ConfigurationFile.parse(mixed, path: "m.toml")
            Issue.record("clock = 25 was taken")
        } catch {
            #expect(error.description == "m.toml:7: `clock` must be 12 or 24")
        }
        for broken in ["separator = \"a\nb\"", "separator = 'a\nb'"] {
            #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse(broken, path: "m.toml") }
        }
    }

    /// The orientation line's settings: its language, on or off, with the time, the clock, and
    /// when each part of the day begins (the others keep the Day Clock's hours).
    /// `screen_off`: a range of local times (across midnight, or within a day) or the night.
    @Test func darkHours() throws {
        #expect(try ConfigurationFile.parse("screen_off = \"23:00-06:30\"", path: "m.toml").screenOff
            == .between(start: 23 * 60, end: 6 * 60 + 30))
        #expect(try ConfigurationFile.parse("screen_off = \"13:00-15:00\"", path: "m.toml").screenOff
            == .between(start: 13 * 60, end: 15 * 60))
        #expect(try ConfigurationFile.parse("screen_off = \"night\"", path: "m.toml").screenOff == .night)
        #expect(try ConfigurationFile.parse("speed = 5", path: "m.toml").screenOff == nil)
        #expect(try ConfigurationFile.parse("cec_standby = true", path: "m.toml").cecStandby == true)
    }

    @Test func orientationSettings() throws {
        let file = try ConfigurationFile.parse("""
            language = "de"
            orientation_time = true
            clock = 12
            morning = "06:30"
            night = "21:00"
            """, path: "m.toml")
        #expect(file.language == "de" && file.clockHours == 12)
        let settings = file.orientationSettings
        #expect(settings.showsTime && settings.showsLine)
        #expect(settings.parts.starts == [.morning: 6 * 60 + 30, .afternoon: 12 * 60, .evening: 17 * 60, .night: 21 * 60])
        #expect(try !ConfigurationFile.parse("orientation = false", path: "m.toml").orientationSettings.showsLine)
        #expect(ConfigurationFile().orientationSettings == OrientationSettings())
        let night = try ConfigurationFile.parse(
            "night_dimming = false\nnight_motion = \"still\"\nnight_backlight = 25", path: "m.toml")
        #expect(night.nightSettings == NightSettings(dims: false, motion: .still, backlightPercent: 25))
        #expect(ConfigurationFile().nightSettings == NightSettings(dims: true, motion: .slow, backlightPercent: 40))
    }

    @Test func hostileFiles() throws {
        let temporary = try TemporaryFolder()
        let folder = URL(fileURLWithPath: temporary.path)
        let binary = folder.appendingPathComponent("binary.toml")
        try Data([0x73, 0x70, 0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(binary.path) }
        let huge = folder.appendingPathComponent("huge.toml")
        try Data(repeating: 0x23, count: 2 << 20).write(to: huge)
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(huge.path) }
        #expect {
            try ConfigurationFile.load(folder.path)
        } throws: { error in
            "\(error)" == "\(folder.path): is a folder, not a configuration file"
        }
        let missing = folder.appendingPathComponent("none").path
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(missing) }
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(missing, required: true) }
        #expect(try ConfigurationFile.load(missing, required: false) == ConfigurationFile())
    }
}
