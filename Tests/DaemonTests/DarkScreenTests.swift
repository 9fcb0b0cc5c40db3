import DaemonTestKit
import Foundation
import Marquee
import Schedule
import Sound
import TestSupport
import Testing

@testable import Daemon

/// `screen_off`: the screen dark for the hours a carer set, lit within them for a reminder, a
/// key or a request, and what the status and the television are told — on the loop kit's
/// manual clock, with a screen that records when it went dark.
@Suite struct DarkScreenTests {
    static let overnight = DarkHours.between(start: 23 * 60, end: 6 * 60 + 30)
    static let standing = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5), televisionStandby: true)

    func message(ending end: String) -> Message {
        Message(text: "Pills", start: ZonedTime(instant: instant("2026-11-24T02:00:00+01:00"), utcOffset: 3600),
                end: ZonedTime(instant: instant(end), utcOffset: 3600), source: "a.ics", uid: "pills", kind: .alarm,
                priority: 0, color: nil, effect: nil)
    }

    /// The rules alone: a key lights for five minutes; a reminder while its message shows and a
    /// minute more, at most ten minutes and that minute; a later light is kept; nothing lights
    /// the day, and what lit the dark goes with it.
    @Test func whatLightsTheDark() {
        var lighting = ScreenLighting()
        let now = instant("2026-11-24T02:00:00+01:00")
        lighting.lightByHand(because: "a key", at: now)
        #expect(!lighting.isDark(at: now) && lighting.litUntil == nil)
        lighting.follow(darkUntil: ZonedTime(instant: instant("2026-11-24T06:30:00+01:00"), utcOffset: 3600))
        #expect(lighting.isDark(at: now))
        lighting.lightByHand(because: "a key", at: now)
        #expect(!lighting.isDark(at: now + 299) && lighting.isDark(at: now + 300))
        #expect(lighting.nextChange(after: now) == now + 300)
        lighting.light(for: message(ending: "2026-11-24T02:02:00+01:00"), because: "a reminder", at: now)
        #expect(lighting.litUntil == now + 300 && lighting.litBecause == "a key")
        lighting.light(for: message(ending: "2026-11-24T04:00:00+01:00"), because: "a reminder", at: now)
        #expect(lighting.litUntil == now + 660 && lighting.litBecause == "a reminder")
        #expect(lighting.nextChange(after: now + 660) == nil)
        lighting.follow(darkUntil: nil)
        #expect(lighting.litUntil == nil && !lighting.isDark(at: now))
    }

    @Test(arguments: [
        (ScreenStatus(state: .on), "on"),
        (ScreenStatus(state: .dark, darkUntil: "2026-11-24T06:30:00+01:00", darkBy: "powered down (DPMS)"),
         "dark until 06:30 (screen_off)"),
        (ScreenStatus(state: .lit, until: "2026-11-24T02:11:00+01:00", litBecause: "a reminder",
                      darkUntil: "2026-11-24T06:30:00+01:00"),
         "lit for a reminder until 02:11, then dark until 06:30 (screen_off)"),
        (ScreenStatus(state: .lit, until: "2026-11-24T06:30:00+01:00", litBecause: "a key",
                      darkUntil: "2026-11-24T06:30:00+01:00"),
         "lit for a key; screen_off ends at 06:30"),
    ])
    func theStatusLine(status: ScreenStatus, line: String) {
        #expect(status.summary == line)
    }

    /// Through a night: dark at 23:00 (the television to standby, no frames drawn, systemd's
    /// watchdog still fed), lit by a key for five minutes and by a request, then dark again,
    /// and lit at 06:30 with the television woken.
    @Test func throughANight() async throws {
        let kit = try await DisplayLoopKit(
            files: ["a.ics": calendar(event("UID:d", "DTSTART:20261123T120000Z", "DURATION:PT48H", "SUMMARY:Visit on Sunday"))],
            at: "2026-11-23T22:59:58+01:00", settings: Self.standing, watchdog: 30_000_000_000,
            orientation: OrientationSettings(), screenOff: Self.overnight)
        #expect(!kit.screen.isDark && kit.state.report.screen?.state == .on)
        await kit.advance(seconds: 3)
        #expect(kit.screen.isDark)
        #expect(kit.television.woken == ["standby: screen_off"])
        let report = kit.state.report
        #expect(report.screen?.summary == "dark until 06:30 (screen_off)")
        #expect(report.screen?.darkBy == "powered down (recording)")
        #expect(report.onScreen.isEmpty && !report.moving && report.showing == ["Visit on Sunday"])
        let frames = kit.screen.shown.count
        let pings = kit.notifications.filter { $0.message == "WATCHDOG=1" }.count
        await kit.advance(seconds: 3_600)
        #expect(kit.screen.shown.count == frames)
        #expect(kit.notifications.filter { $0.message == "WATCHDOG=1" }.count >= pings + 100)

        await kit.post(.keyPressed)
        #expect(!kit.screen.isDark && kit.television.woken.last == "a key")
        #expect(kit.state.report.screen?.summary == "lit for a key until 00:05, then dark until 06:30 (screen_off)")
        await kit.advance(seconds: 1)
        #expect(kit.screen.shown.count > frames && kit.screen.line.contains("Visit on Sunday"))
        #expect(kit.screen.shown[frames].fullRepaint)
        await kit.advance(seconds: 299)
        #expect(kit.screen.isDark && kit.television.woken.last == "standby: screen_off")

        await kit.post(.control(.wake))
        #expect(!kit.screen.isDark && kit.television.woken.last == "a request")
        #expect(kit.state.report.screen?.litBecause == "a request")

        // Lit by hand as the hours end: the status follows the end all the same.
        await kit.advance(seconds: 6 * 3_600 + 22 * 60)
        #expect(kit.screen.isDark)
        await kit.post(.control(.wake))
        #expect(kit.state.report.screen?.summary == "lit for a request; screen_off ends at 06:30")
        await kit.advance(seconds: 10 * 60)
        #expect(!kit.screen.isDark)
        #expect(kit.state.report.screen?.state == .on)
        #expect(kit.screen.darkChanges.map(\.dark) == [true, false, true, false, true, false])
        // The end of the hours wakes the television when it was dark then.
        await kit.advance(seconds: 16 * 3_600 + 30 * 60)
        #expect(kit.screen.isDark && kit.television.woken.last == "standby: screen_off")
        await kit.advance(seconds: 7 * 3_600 + 30 * 60)
        #expect(!kit.screen.isDark && kit.television.woken.last == "the end of screen_off")
    }

    /// Started within the dark hours: dark from the first turn, nothing drawn, ready for
    /// systemd all the same, the television not woken; and the carer's picture is black.
    @Test func startedInTheDark() async throws {
        let kit = try await DisplayLoopKit(
            at: "2026-11-24T02:00:00+01:00", settings: Self.standing, watchdog: 30_000_000_000,
            orientation: OrientationSettings(), screenOff: Self.overnight)
        #expect(kit.screen.isDark && kit.screen.shown.isEmpty)
        #expect(kit.notifications.contains { $0.message == "READY=1" })
        #expect(kit.television.woken == ["standby: screen_off"])
        #expect(kit.state.report.screen?.state == .dark)
        // What is shown is known (dark): the broker hears it without waiting for a frame.
        #expect(kit.state.hasDrawn)
    }

    /// A panel's backlight is switched off with the screen, and on again when it is lit.
    @Test func theBacklightGoesOffWithTheScreen() async throws {
        let devices = try BacklightTests.Devices([("acpi_video0", "firmware", "100", "80")])
        let power = devices.path + "/acpi_video0/bl_power"
        try Data("0\n".utf8).write(to: URL(fileURLWithPath: power))
        let backlight = try Backlight.find(in: devices.path, notePath: nil)
        let kit = try await DisplayLoopKit(at: "2026-11-24T02:00:00+01:00", orientation: OrientationSettings(),
                                           backlight: backlight, screenOff: Self.overnight)
        #expect(kit.screen.isDark && kit.state.report.screen?.darkBy == "powered down (recording), the backlight off")
        #expect((try? String(contentsOfFile: power, encoding: .utf8)) == "4\n")
        await kit.post(.keyPressed)
        #expect(!kit.screen.isDark && (try? String(contentsOfFile: power, encoding: .utf8)) == "0\n")
    }

    /// A screen or a backlight that does not come on again is said (the box's problems), tried
    /// again every 10 s, and said again when it works.
    @Test func aScreenThatStaysOffIsSaidAndTriedAgain() async throws {
        let devices = try BacklightTests.Devices([("acpi_video0", "firmware", "100", "80")])
        let power = devices.path + "/acpi_video0/bl_power"
        // Not writable: a directory in its place.
        try FileManager.default.createDirectory(atPath: power, withIntermediateDirectories: false)
        let backlight = try Backlight.find(in: devices.path, notePath: nil)
        let kit = try await DisplayLoopKit(at: "2026-11-24T02:00:00+01:00", orientation: OrientationSettings(),
                                           backlight: backlight, screenOff: Self.overnight)
        #expect(kit.screen.isDark)
        kit.screen.failsToPowerOn = true
        await kit.post(.keyPressed)
        let problems = kit.state.report.boxProblems
        #expect(problems.count == 1 && problems[0].hasPrefix("the screen could not be powered on (recording: EIO); "
                    + "backlight acpi_video0: cannot switch it on (Is a directory)"), "\(problems)")
        #expect(problems.first?.hasSuffix(": what is shown may be seen by nobody") == true)
        kit.screen.failsToPowerOn = false
        try FileManager.default.removeItem(atPath: power)
        try Data("4\n".utf8).write(to: URL(fileURLWithPath: power))
        await kit.advance(seconds: 9)
        #expect(kit.state.report.boxProblems == problems, "tried again after 10 s, not before")
        await kit.advance(seconds: 1.5)
        #expect(kit.state.report.boxProblems.isEmpty)
        #expect((try? String(contentsOfFile: power, encoding: .utf8)) == "0\n")
        // Failing again, then dark again when the key's five minutes end: dark is what is
        // wanted, so the problem goes with it.
        kit.screen.failsToPowerOn = true
        await kit.advance(seconds: 200)
        await kit.post(.keyPressed)
        #expect(kit.state.report.boxProblems.isEmpty, "lit already: nothing was switched on")
        await kit.advance(seconds: 310)
        #expect(kit.screen.isDark)
        await kit.post(.keyPressed)
        #expect(kit.state.report.boxProblems.count == 1)
        await kit.advance(seconds: 301)
        #expect(kit.screen.isDark && kit.state.report.boxProblems.isEmpty)
    }

    /// A backlight left off by a run that stopped in the dark hours (a crash, a power cut) is
    /// switched on when marquee starts by day; started in the dark hours it stays off.
    @Test(arguments: ["2026-11-24T10:00:00+01:00", "2026-11-24T02:00:00+01:00"])
    func aBacklightLeftOffIsSwitchedOn(at start: String) async throws {
        let devices = try BacklightTests.Devices([("acpi_video0", "firmware", "100", "80")])
        let power = devices.path + "/acpi_video0/bl_power"
        try Data("4\n".utf8).write(to: URL(fileURLWithPath: power))
        let backlight = try Backlight.find(in: devices.path, notePath: nil)
        let kit = try await DisplayLoopKit(at: start, orientation: OrientationSettings(), backlight: backlight,
                                           screenOff: Self.overnight)
        let byDay = start.contains("T10:")
        #expect((try? String(contentsOfFile: power, encoding: .utf8)) == (byDay ? "0\n" : "4\n"))
        #expect(kit.screen.isDark == !byDay && kit.state.report.boxProblems.isEmpty)
    }

    /// Without `cec_standby` the picture goes dark and the television is left alone.
    @Test func theTelevisionLeftOnUnlessAsked() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-24T02:00:00+01:00", orientation: OrientationSettings(),
                                           screenOff: Self.overnight)
        #expect(kit.screen.isDark && kit.television.woken.isEmpty)
    }

    /// A reload that sets `screen_off` takes effect at once; one that removes it lights the
    /// screen.
    @Test func aReloadChangesTheHours() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-24T02:00:00+01:00", orientation: OrientationSettings(),
                                           screenOff: Self.overnight)
        #expect(kit.screen.isDark)
        let settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        await kit.post(.settingsRead(ReloadedSettings(display: settings, schedule: ScheduleSettings(
            displayZone: "Europe/Berlin", words: CalendarWords(), orientation: OrientationSettings(),
            defaultEventDuration: 3_600))))
        #expect(!kit.screen.isDark && kit.state.report.screen?.state == .on)
        await kit.post(.settingsRead(ReloadedSettings(display: settings, schedule: ScheduleSettings(
            displayZone: "Europe/Berlin", words: CalendarWords(), orientation: OrientationSettings(),
            defaultEventDuration: 3_600, screenOff: .night))))
        #expect(kit.screen.isDark && kit.state.report.screen?.summary == "dark until 07:00 (screen_off)")
    }
}

/// A reminder heard within the dark hours (an urgent one: the night keeps the others for the
/// morning) lights the screen while its message shows and a minute more, and wakes the
/// television; then the screen is dark again.
@Suite(.tier(.live)) struct DarkScreenReminderTests {
    @Test func aReminderLightsTheDark() async throws {
        let folder = try TemporaryFolder()
        let feed = calendar(event("UID:pills", "DTSTART:20261124T010000Z", "DURATION:PT5M", "SUMMARY:Pills",
                                  "PRIORITY:1", "X-MARQUEE-SPEAK:YES"))
        var sound = SoundSettings(device: "file:FILE=\(folder.path)/played.wav,FORMAT=wav", repeatUntilAcknowledged: 0)
        sound.language = "en"
        let kit = try await DisplayLoopKit(
            files: ["a.ics": feed], at: "2026-11-24T01:59:58+01:00", settings: DarkScreenTests.standing,
            orientation: OrientationSettings(), sound: sound, stateFolder: folder.path, screenOff: DarkScreenTests.overnight)
        #expect(kit.screen.isDark)
        await kit.advance(seconds: 3)
        #expect(!kit.screen.isDark)
        #expect(kit.television.woken == ["standby: screen_off", "a reminder"])
        #expect(kit.state.report.screen?.summary == "lit for a reminder until 02:06, then dark until 06:30 (screen_off)")
        await kit.advance(seconds: 1)
        #expect(kit.screen.line.contains("Pills"))
        await kit.advance(seconds: 6 * 60)
        #expect(kit.screen.isDark && kit.television.woken.last == "standby: screen_off")
        kit.voice?.finish()
    }
}
