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

    /// A Wi-Fi that could not be joined (as `marquee setup --join-wifi` found it) is said among
    /// the setup's problems while it is the box's network; a new password, or the network joined,
    /// ends it.
    @Test func aWifiNotJoinedIsSaidUntilItIsMended() throws {
        let setup = "wifi_name = \"KioskNet\"\nwifi_password = \"the wrong password\"\n"
        let first = BoxSetup.apply(setup, path: "marquee-setup.txt", to: places, day: "2026-12-07")
        #expect(first.problems.isEmpty && BoxSetup.wifiName(in: places) == "KioskNet")
        let refused = try #require(BoxSetup.joinProblem(network: "KioskNet", status: 4, said: """
            Passwords or encryption keys are required to access the wireless network 'KioskNet'.
            Error: Connection activation failed: Secrets were required, but not provided

            """))
        #expect(refused.key == "wifi_password" && refused.why.hasPrefix("\"KioskNet\" did not accept the password"))
        #expect(BoxSetup.keepJoinVerdict(refused, network: "KioskNet", in: places) == nil)
        #expect(read("state/" + BoxSetup.wifiNotJoinedFile) == "KioskNet\n\(refused.key)\n\(refused.why)\n")
        // Woken again (the joining's verdict): the file and the screen say it.
        let said = BoxSetup.apply(try #require(first.rewritten), path: "marquee-setup.txt", to: places, day: "2026-12-07")
        #expect(said.problemsSaid == ["wifi_password: " + refused.why], "\(said.problemsSaid)")
        let back = try #require(said.rewritten)
        #expect(back.hasPrefix("# marquee: applied on 2026-12-07: Wi-Fi \"KioskNet\"\n# marquee: not used: wifi_password: \"KioskNet\" did not"),
                "\(back)")
        #expect(BoxSetup.apply(back, path: "marquee-setup.txt", to: places, day: "2026-12-07").rewritten == nil, "said once")
        // The carer writes the password again: a new connection, not yet tried, nothing said.
        let mended = BoxSetup.apply(back + "wifi_password = \"the right password\"\n", path: "marquee-setup.txt", to: places,
                                    day: "2026-12-08")
        #expect(mended.problemsSaid.isEmpty && mended.applied == ["Wi-Fi \"KioskNet\""], "\(mended)")
        #expect(access(folder.path + "/state/" + BoxSetup.wifiNotJoinedFile, F_OK) != 0)
        #expect(!(mended.rewritten ?? "").contains("not used"), "\(mended.rewritten ?? "")")
        // A verdict about another network (the one before) is not this one's.
        let elsewhere = BoxSetup.WifiProblem(key: "wifi_name", why: "no network called \"OtherNet\" is in reach")
        #expect(BoxSetup.keepJoinVerdict(elsewhere, network: "OtherNet", in: places) == nil)
        #expect(BoxSetup.apply(try #require(mended.rewritten), path: "marquee-setup.txt", to: places, day: "2026-12-08").problems.isEmpty)
    }

    /// NetworkManager's answers (`nmcli connection up`, C locale) in the carer's words.
    @Test func whatStoodInTheWayOfTheWifiIsSaidPlainly() {
        let cases: [(Int32, String, String?, String, Bool)] = [
            (0, "Connection successfully activated (D-Bus active path: /org/freedesktop/NetworkManager/ActiveConnection/2)\n", nil, "", false),
            (4, "Error: Connection activation failed: The Wi-Fi network could not be found\n", "wifi_name", "no network called \"Home\"", false),
            (10, "Error: No network with SSID 'Home' found.\n", "wifi_name", "no network called \"Home\"", false),
            (4, "Error: Connection activation failed: No suitable device found for this connection (device lo not available because device is strictly unmanaged).\n",
             "wifi_name", "the box has no Wi-Fi", true),
            (127, "", "wifi_name", "NetworkManager is not on this box", false),
            (8, "Error: NetworkManager is not running.\n", "wifi_name", "NetworkManager does not run", true),
            (4, "Error: Connection activation failed: IP configuration could not be reserved (no available address, timeout, etc.)\n",
             "wifi_name", "\"Home\" was joined but gave the box no address", false),
            (3, "Error: Timeout expired (90 seconds)\n", "wifi_name", "\"Home\" was not joined in time", false),
            (4, "Error: Connection activation failed: \u{1B}[31mSomething new\n", "wifi_name", "\"Home\" was not joined (Connection activation failed: \\e[31mSomething new)", false),
        ]
        for (status, said, key, why, passing) in cases {
            let problem = BoxSetup.joinProblem(network: "Home", status: status, said: said)
            #expect(problem?.key == key && (problem?.why ?? "").hasPrefix(why) && (problem?.passing ?? false) == passing,
                    "\(said): \(String(describing: problem))")
        }
    }
}
