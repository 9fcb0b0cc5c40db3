@testable import Daemon
import Support
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Written over by root (the setup service), the file takes the folder's group and 0640:
    /// /etc/marquee is root:marquee, so the packaged root:root marquee.toml stays readable by the
    /// display's user (it was not: the first boot of the ready image), and no one else reads
    /// the calendars' private addresses in it.
    @Test(.tier(.unit, needs: [.root])) func theFileStaysTheFoldersGroups() throws {
        let folder = try TemporaryFolder()
        #expect(chown(folder.path, 0, 4) == 0)
        let path = folder.path + "/marquee.toml"
        #expect(writeFileAtomically(Array("language = \"de\"\n".utf8), to: path) == nil)
        #expect(chown(path, 0, 0) == 0 && chmod(path, 0o644) == 0)
        #expect(ConfigurationEdit.write([("language", .string("fr"))], to: "language = \"de\"\n", at: path,
                                        unreadable: "unreadable") == nil)
        var after = stat()
        #expect(stat(path, &after) == 0 && after.st_mode & 0o7777 == 0o640 && after.st_uid == 0 && after.st_gid == 4)
        #expect(try ConfigurationFile.parse(String(decoding: readFile(path, limit: 4096).get(), as: UTF8.self),
                                            path: path).language == "fr")
    }
}
