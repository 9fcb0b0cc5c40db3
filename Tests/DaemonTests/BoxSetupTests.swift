import Foundation
import Support
import TestSupport
import Testing

@testable import Daemon

/// The setup file a carer writes on the card (`marquee-setup.txt`), applied to a box's places in
/// a folder of the test's: what is applied, what is refused with its line, the secrets taken out,
/// and a second run (woken by the file written back) that changes nothing.
struct BoxSetupTests {
    let folder: TemporaryFolder
    var places: BoxSetup.Places {
        BoxSetup.Places(configurationFile: folder.path + "/marquee.toml", stateFolder: folder.path + "/state",
                        networkFolder: folder.path + "/NetworkManager/system-connections")
    }

    init() throws {
        folder = try TemporaryFolder()
        #expect(mkdir(folder.path + "/state", 0o750) == 0)
        try "# Anna's box.\nvolume_day = 70\nsubscriptions = [\"webcal://family.example/cal.ics\"]\n"
            .write(toFile: folder.path + "/marquee.toml", atomically: true, encoding: .utf8)
    }

    private func read(_ name: String) -> String { (try? String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)) ?? "" }

    @Test func aWholeSetupIsAppliedAndItsSecretsTakenOut() throws {
        let setup = """
            # Write what you know; leave out the rest.
            wifi_name = "Anna's Wi-Fi"
            wifi_password = "correct horse battery"
            timezone = "Europe/Berlin"
            language = "de"
            calendar = ["https://calendar.example/ical/anna/private-Zq81xK/basic.ics", "webcal://family.example/cal.ics"]
            page_password = "the carer's secret"
            quiet_night = "21:30-07:15"

            """
        // The service's file (the setup runs as root) in the service's group's folder, as
        // /etc/marquee is root:marquee: it stays the service's.
        #expect(chown(folder.path, 0, 8765) == 0)
        #expect(chown(folder.path + "/marquee.toml", 4321, 8765) == 0)
        let outcome = BoxSetup.apply(setup, path: "/boot/efi/marquee-setup.txt", to: places, day: "2026-11-29")
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        var owner = stat()
        #expect(stat(folder.path + "/marquee.toml", &owner) == 0 && owner.st_uid == 4321 && owner.st_gid == 8765)
        #expect(outcome.applied == ["the time zone Europe/Berlin", "the language de", "the quiet night 21:30–07:15", "1 calendar",
                                    "the page's password", "Wi-Fi \"Anna's Wi-Fi\""])
        #expect(read("marquee.toml") == """
            # Anna's box.
            volume_day = 70
            subscriptions = ["webcal://family.example/cal.ics", "https://calendar.example/ical/anna/private-Zq81xK/basic.ics"]
            timezone = "Europe/Berlin"
            language = "de"
            night = "21:30"
            morning = "07:15"

            """)
        #expect(PagePassword.verify("the carer's secret", against: try #require(try PagePassword.read(at: folder.path + "/state/page-password").get())))
        let wifi = folder.path + "/NetworkManager/system-connections/" + BoxSetup.wifiConnection
        #expect(read("NetworkManager/system-connections/" + BoxSetup.wifiConnection).contains("[wifi]\nmode=infrastructure\nssid=Anna's Wi-Fi\n"))
        #expect(read("NetworkManager/system-connections/" + BoxSetup.wifiConnection).contains("[wifi-security]\nkey-mgmt=wpa-psk\npsk=correct horse battery\n"))
        var info = stat()
        #expect(stat(wifi, &info) == 0 && info.st_mode & 0o777 == 0o600, "NetworkManager reads it only when root alone can")
        let back = try #require(outcome.rewritten)
        #expect(back.hasPrefix("# marquee: applied on 2026-11-29: the time zone Europe/Berlin, the language de"), "\(back)")
        for secret in ["correct horse", "private-Zq81xK", "carer's secret"] { #expect(!back.contains(secret), "\(secret) is gone") }
        #expect(back.contains("# wifi_password: applied on 2026-11-29 and taken out of this file\n"))
        #expect(back.contains("wifi_name = \"Anna's Wi-Fi\"\n") && back.contains("quiet_night = \"21:30-07:15\"\n"))

        // Written back, the file wakes the setup again: nothing new, nothing written, the Wi-Fi kept.
        let again = BoxSetup.apply(back, path: "/boot/efi/marquee-setup.txt", to: places, day: "2026-11-30")
        #expect(again.applied.isEmpty && again.problems.isEmpty && again.rewritten == nil && again.changedSettings.isEmpty, "\(again)")
        #expect(read("NetworkManager/system-connections/" + BoxSetup.wifiConnection).contains("psk=correct horse battery"))
    }

    @Test func whatCannotBeUsedIsSaidWithItsLineAndTheRestApplied() throws {
        let setup = """
            timezone = "Europe/Berln"
            colour = "red"
            page_password = "short"
            quiet_night = "late"
            calendar = "htps://calendar.example/x.ics"
            this line is not a setting
            language = "fr"

            """
        let outcome = BoxSetup.apply(setup, path: "marquee-setup.txt", to: places, day: "2026-11-29")
        #expect(outcome.applied == ["the language fr"])
        #expect(outcome.problems == [
            "marquee-setup.txt:2: colour: not a setting of this file (it knows wifi_name, wifi_password, timezone, language, calendar, page_password, quiet_night)",
            "marquee-setup.txt:6: \"this line is not a setting\": expected `key = value` (a line such as timezone = \"Europe/Berlin\")",
            "marquee-setup.txt:1: timezone: unknown time zone \"Europe/Berln\" (an IANA name such as \"Europe/Berlin\", or a POSIX rule such as \"CET-1CEST,M3.5.0,M10.5.0/3\"; is tzdata installed?)",
            "marquee-setup.txt:4: quiet_night: must be the hours of the night, such as \"22:00-07:00\"",
            "marquee-setup.txt:5: calendar: htps://calendar.example/x.ics is not an https://, http:// or webcal:// address",
            "marquee-setup.txt:3: page_password: the password must have at least 8 characters",
        ], "\(outcome.problems)")
        #expect(access(folder.path + "/state/page-password", F_OK) != 0, "no password kept")
        let back = try #require(outcome.rewritten)
        #expect(back.hasPrefix("# marquee: applied on 2026-11-29: the language fr\n# marquee: not used: colour: not a setting"), "\(back)")
        // A refused secret stays for the carer to mend; once mended, the lines of the box's own say so.
        #expect(back.contains("page_password = \"short\""))
        let mended = back.replacing("page_password = \"short\"", with: "page_password = \"long enough now\"")
        let second = BoxSetup.apply(mended, path: "marquee-setup.txt", to: places, day: "2026-11-29")
        #expect(second.applied == ["the page's password"] && !(second.rewritten ?? "").contains("long enough now"))
    }

    @Test func aSecretThatCouldNotBeAppliedStaysInTheFile() throws {
        // The configuration cannot be read: nothing is applied, and nothing the carer wrote is lost.
        try "not = a = setting\n".write(toFile: folder.path + "/marquee.toml", atomically: true, encoding: .utf8)
        let setup = "calendar = \"https://calendar.example/private-Zq81xK.ics\"\npage_password = \"long enough too\"\n"
        let outcome = BoxSetup.apply(setup, path: "marquee-setup.txt", to: places, day: "2026-11-29")
        #expect(outcome.problems.first?.hasPrefix(folder.path + "/marquee.toml: has lines that are not") == true, "\(outcome.problems)")
        #expect(outcome.rewritten?.contains("private-Zq81xK") == true && outcome.rewritten?.contains("long enough too") == true,
                "\(outcome.rewritten ?? "")")
    }

    @Test func hostileFilesChangeNothing() {
        for hostile in ["", "\u{0}\u{1}garbage", String(repeating: "[", count: 10_000), "wifi_password = \"12345678\"\n",
                        "timezone = \"Europe/Berlin", "calendar = 42\n"] {
            let outcome = BoxSetup.apply(hostile, path: "marquee-setup.txt", to: places, day: "2026-11-29")
            #expect(outcome.applied.isEmpty && read("marquee.toml").hasPrefix("# Anna's box.\nvolume_day = 70\n"), "\(hostile.prefix(30))")
            #expect(access(folder.path + "/NetworkManager", F_OK) != 0)
        }
    }
}
