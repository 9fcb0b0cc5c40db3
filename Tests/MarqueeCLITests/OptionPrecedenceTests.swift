import Daemon
import Schedule
import Testing

@testable import MarqueeCLI

/// The command line over the configuration file over the defaults, as the reference promises:
/// the zone, the language, the feeds, the motion; and what only the file sets reaches the
/// schedule and the display.
@Suite struct OptionPrecedenceTests {
    func file(_ text: String) throws -> ConfigurationFile {
        try ConfigurationFile.parse(text, path: "m.toml")
    }

    @Test func theZoneAndTheLanguage() throws {
        let configured = try file("timezone = \"America/New_York\"\nlanguage = \"de\"\nclock = 12")
        let plain = try FeedOptions.parse([])
        #expect(plain.displayZone(configured) == "America/New_York")
        #expect(plain.words(configured) == CalendarWords(locale: "de", twelveHours: true))
        let given = try FeedOptions.parse(["--timezone", "Europe/Berlin", "--language", "fr"])
        #expect(given.displayZone(configured) == "Europe/Berlin")
        #expect(given.words(configured).locale == "fr")
    }

    @Test func theFeeds() throws {
        let configured = try file("feeds = \"/srv/feeds\"\nsubscriptions = [\"https://cloud.example/c.ics\"]")
        let plain = try FeedOptions.parse([]).feedSources(configured)
        #expect(plain.paths == ["/srv/feeds"] && plain.addresses.map(\.given) == ["https://cloud.example/c.ics"])
        let given = try FeedOptions.parse(["--feeds", "examples/feeds"]).feedSources(configured)
        #expect(given.paths == ["examples/feeds"] && given.addresses.isEmpty)
        #expect(try FeedOptions.parse([]).feedSources(try file("")).paths == [defaultFeeds])
        #expect(throws: (any Error).self) { try FeedOptions.parse(["--feeds", "htps://cloud.example/c.ics"]).feedSources(configured) }
    }

    /// What only the file sets: the dark hours, the night's and the television's settings.
    @Test func whatOnlyTheFileSets() throws {
        let configured = try file("screen_off = \"23:00-06:30\"\ncec_standby = true\nspeed = 3\nnight_motion = \"still\"")
        #expect(try FeedOptions.parse([]).scheduleSettings(configured).screenOff == .between(start: 23 * 60, end: 6 * 60 + 30))
        let display = try DisplayOptions.parse([]).settings(configured, path: "m.toml")
        #expect(display.televisionStandby && display.marquee.charactersPerSecond == 3 && display.night.motion == .still)
        #expect(try DisplayOptions.parse(["--speed", "8"]).settings(configured, path: "m.toml").marquee.charactersPerSecond == 8)
    }
}
