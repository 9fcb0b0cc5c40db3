@testable import Daemon
import Testing

/// Settings changed in the text of marquee.toml as a person would change them: in place, the
/// rest of the file (comments, arrays over several lines, a last line without its break) kept.
struct ConfigurationEditTests {
    private let file = """
        # Anna's box.
        subscriptions = [
          "https://example.org/family.ics",  # the family
          "https://example.org/club.ics",
        ]
        volume_day = 80 # loud
        language = "de"
        """

    @Test func eachSettingIsFoundWithItsLines() throws {
        let found = try #require(ConfigurationEdit.settings(in: file))
        #expect(found["subscriptions"]?.lines == 2..<6)
        #expect(found["volume_day"] == .init(value: .integer(80), lines: 6..<7))
        #expect(found["language"] == .init(value: .string("de"), lines: 7..<8))
        #expect(ConfigurationEdit.settings(in: "volume_day = \n") == nil)
        #expect(ConfigurationEdit.settings(in: "[table]\n") == nil)
    }

    @Test func changedInPlaceTakenAwayAndAdded() throws {
        let edited = try #require(ConfigurationEdit.edited(file, [
            ("language", .string("en_GB")), ("subscriptions", nil), ("night", .string("21:30")), ("volume_day", .integer(50)),
        ]))
        #expect(edited == """
            # Anna's box.
            volume_day = 50
            language = "en_GB"
            night = "21:30"

            """)
        let read = try ConfigurationFile.parse(edited, path: "marquee.toml")
        #expect(read.language == "en_GB")
        #expect(ConfigurationEdit.written(.string("say \"hi\" \\ bye")) == #""say \"hi\" \\ bye""#)
        #expect(ConfigurationEdit.edited("", [("speak", .string("off"))]) == "speak = \"off\"\n")
    }
}
