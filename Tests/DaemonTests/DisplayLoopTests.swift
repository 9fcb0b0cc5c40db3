import DaemonTestKit
import Display
import Foundation
import Marquee
import Schedule
import TestSupport
import Support
import Synchronization
import Testing

@testable import Daemon

/// The display loop through the test kit: a manual clock, a recording screen, real feed files.
@Suite struct DisplayLoopTests {
    static let long = "Leave for the dentist at half past ten, take the blue bag and the letter"

    /// An event in Berlin's time.
    static func event(_ uid: String, _ summary: String, start: String, end: String, rule: String? = nil) -> String {
        TestSupport.event(["UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Berlin:\(start)",
                           "DTEND;TZID=Europe/Berlin:\(end)"] + (rule.map { ["RRULE:\($0)"] } ?? []) + ["SUMMARY:\(summary)"])
    }

    static let dailyLong = calendar(event("d", long, start: "20261101T080000", end: "20261101T200000", rule: "FREQ=DAILY"))
    /// A calendar with nothing in these days (the box has calendars: nothing says how to add one).
    static let nothingSoon = ["later.ics": calendar(event("l", "Summer", start: "20270601T100000", end: "20270601T110000"))]

    /// Setting the wall clock back (or on) never blanks a moving line: motion runs on the
    /// steady clock, and the messages are recomputed for the new time at once.
    @Test(arguments: [-120, -86_400, 86_400, 3_600 * 24 * 400])
    func aClockStepKeepsTextOnScreen(seconds: Int64) async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        await kit.advance(seconds: 10)
        #expect(kit.screen.shown.last?.isMoving == true)
        let before = kit.screen.shown.count
        kit.clock.stepWall(by: seconds * 1_000_000_000)
        await kit.post(.clockStepped)
        await kit.advance(seconds: 30)
        let after = kit.screen.shown.dropFirst(before)
        #expect(after.count > 100)
        #expect(after.allSatisfy { $0.line.contains { $0 != " " } })
        #expect(kit.state.report.showing == [Self.long])
    }

    /// On a paced screen (a framebuffer) the loop has the next frame made ready before its
    /// deadline, and a wakeup a little late still draws the deadline's frame, the one made
    /// ready: motion as even as the frame grid.
    @Test func theNextFrameIsMadeReadyAndDrawnOnItsDeadline() async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        let paced = RecordingScreen(clock: kit.clock, cells: 40, unitsPerCell: 64)
        paced.framePeriod = 16_666_667
        await kit.replaceScreen(with: paced)
        await kit.advance(seconds: 2)
        for lateness: Nanoseconds in [0, 3_000_000, 9_000_000] {
            let ready = try #require(paced.prepared.last)
            await kit.wakeLate(by: lateness)
            let shown = try #require(paced.frames.last)
            #expect(shown.glyphs.map(\.x) == ready.frame.glyphs.map(\.x), "woken \(lateness) ns late")
            #expect(paced.prepared.last?.steady == kit.clock.steadyTime(), "the next one is made ready at once")
        }
        let moved = try #require(paced.frames.dropLast().last)
        #expect(moved.glyphs.first?.x != paced.frames.last?.glyphs.first?.x)
    }

    /// A wall clock that jumps without the watcher noticing (no timerfd) is noticed by the loop.
    @Test func anUnannouncedClockStepIsNoticed() async throws {
        let kit = try await DisplayLoopKit(
            files: ["e.ics": calendar(Self.event("e", "Lunch", start: "20261123T120000", end: "20261123T130000"))],
            at: "2026-11-23T10:00:00+01:00")
        #expect(kit.screen.line == "Monday, 23 November 2026")
        kit.clock.stepWall(by: 2 * 3_600_000_000_000 + 60_000_000_000)
        await kit.advance(seconds: 1)
        // The still picture sleeps until 12:00 by the old clock; the next wakeup notices the step.
        await kit.post(.resized)
        #expect(kit.screen.line == "Lunch")
    }

    /// The idle date changes at local midnight, and a still picture wakes for nothing else.
    @Test func theDateChangesAtMidnightAndNothingElseWakesIt() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T23:59:00+01:00")
        #expect(kit.screen.line == "Monday, 23 November 2026")
        await kit.advance(seconds: 59)
        #expect(kit.screen.line == "Monday, 23 November 2026")
        await kit.advance(seconds: 2)
        #expect(kit.screen.line == "Tuesday, 24 November 2026")
        await kit.advance(seconds: 3_600)
        let start = kit.screen.shown[0].steady
        #expect(kit.screen.shown.dropFirst().map { $0.steady - start }.allSatisfy { $0 == 60_000_000_000 })
    }

    /// On the night the clocks go forward, an event at 02:30 (a time that does not exist)
    /// appears at 03:30 summer time, exactly then.
    @Test func aMessageInTheSpringGapAppearsAtTheShiftedTime() async throws {
        let kit = try await DisplayLoopKit(
            files: ["n.ics": calendar(Self.event("n", "Night medicine", start: "20270328T023000", end: "20270328T030000"))],
            at: "2027-03-28T01:00:00+01:00")
        await kit.advance(seconds: 89 * 60 + 59)
        #expect(kit.screen.line == "Sunday, 28 March 2027")
        await kit.advance(seconds: 1)
        #expect(kit.screen.line == "Night medicine")
        #expect(kit.state.report.messages.first?.start == "2027-03-28T03:30:00+02:00")
        #expect(kit.state.report.updatedAt == "2027-03-28T03:30:00+02:00")
    }

    /// A new feed file is shown once the watcher reports it.
    @Test func aChangedFeedIsShown() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00")
        try kit.feeds.write("new.ics", calendar(Self.event("x", "Tea with Rosa", start: "20261123T090000", end: "20261123T180000")))
        await kit.post(.feedsChanged)
        #expect(kit.screen.line == "Tea with Rosa")
        #expect(kit.state.report.feeds.map(\.state) == ["loaded"])
    }

    /// Started by hand on the terminal it draws on, marquee shows a feed's error on the screen
    /// (its log is silent there) until the file is mended; the ticker keeps its line.
    @Test func problemsAreShownUntilMended() async throws {
        let kit = try await DisplayLoopKit(files: ["broken.ics": "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n"],
                                           at: "2026-11-23T10:00:00+01:00", showsProblems: true)
        #expect(kit.screen.problems == [
            "marquee: \(kit.feeds.path)/broken.ics:1: error: the file is truncated: BEGIN:VCALENDAR is never closed (the file ends at line 2)",
            "marquee: \(kit.feeds.path)/broken.ics:2: error: the file is truncated: BEGIN:VEVENT is never closed (the file ends at line 2)",
        ])
        #expect(kit.screen.line == "Monday, 23 November 2026")
        try kit.feeds.write("broken.ics", calendar(Self.event("x", "Tea with Rosa", start: "20261123T090000", end: "20261123T180000")))
        await kit.post(.feedsChanged)
        #expect(kit.screen.problems.isEmpty)
        #expect(kit.screen.shown.last?.fullRepaint == true)
        #expect(kit.screen.line == "Tea with Rosa")
    }

    /// A subscription that cannot be fetched is shown on the problem rows like a feed file's
    /// error, until it is fetched again.
    @Test func aSubscriptionsErrorIsShownUntilMended() async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00", showsProblems: true)
        let address = "https://calendar.example.org/…1a2b3c/basic.ics"
        kit.state.update { $0.subscriptions = [SubscriptionStatus(address: address, error: "Could not resolve host")] }
        await kit.post(.subscriptionsChanged)
        #expect(kit.screen.problems == ["marquee: \(address): error: Could not resolve host"])
        kit.state.update { $0.subscriptions = [SubscriptionStatus(address: address, error: nil)] }
        await kit.post(.subscriptionsChanged)
        #expect(kit.screen.problems.isEmpty)
    }

    /// Under systemd the problems go to the journal, never onto the screen people look at.
    @Test func problemsStayOffTheScreenByDefault() async throws {
        let kit = try await DisplayLoopKit(files: ["broken.ics": "garbage"], at: "2026-11-23T10:00:00+01:00")
        #expect(kit.state.report.feeds.map(\.state) == ["error"])
        #expect(kit.screen.problems.isEmpty)
    }

    /// Pause stills everything, resume moves on from where the text stood.
    @Test func pauseAndResume() async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        await kit.advance(seconds: 3)
        await kit.post(.control(.pause))
        let paused = kit.screen.line
        let count = kit.screen.shown.count
        await kit.advance(seconds: 60)
        // Still: the words of the message, page by page, each shown for seconds.
        let stood = kit.screen.shown[count...]
        #expect(stood.count <= 60 / 3 + 1 && stood.allSatisfy { !$0.isMoving })
        #expect(stood.allSatisfy { Self.long.contains($0.line.trimmingCharacters(in: .whitespaces)) })
        #expect(Self.long.hasPrefix(paused))
        #expect(kit.state.report.paused)
        #expect(!kit.state.report.moving)
        await kit.post(.control(.resume))
        await kit.advance(seconds: 1)
        #expect(kit.screen.line != paused)
        #expect(kit.state.report.moving)
    }

    /// The status is made when asked: uptime, frame rate and time are those of the moment,
    /// in the display's zone, the idle text is the configured one, and the screen's glyph
    /// cache is as the screen last said.
    @Test func theStatusIsComputedWhenAsked() async throws {
        var settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        settings.idleText = "Nothing today. {date}"
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00", settings: settings)
        let cache = GlyphCacheFigures(bytes: 1_500_000, budget: 4 << 20, lookups: 1000, found: 990)
        kit.screen.glyphCache = cache
        await kit.post(.resized)
        await kit.advance(seconds: 30)
        let report = kit.state.report
        #expect(report.glyphCache == cache)
        #expect(report.updatedAt == "2026-11-23T10:00:30+01:00")
        #expect(report.uptimeSeconds == 30)
        #expect(report.showing == ["Nothing today. Monday, 23 November 2026"])
        #expect(report.framesPerSecond == 0)
        #expect(report.output == "recording screen 40x1")
        #expect(!report.moving)
    }

    /// The carers' picture is the screen's own, of the frame last shown: asked while the band
    /// moves and while it is paused, it has letters where the screen has them.
    @Test func aPictureIsOfTheFrameLastShown() async throws {
        let feed = calendar(Self.event("tea", "Tea at four with Anna and the neighbours", start: "20261101T080000",
                                       end: "20261101T200000", rule: "FREQ=DAILY"))
        let kit = try await DisplayLoopKit(files: ["d.ics": feed], at: "2026-11-23T10:00:00+01:00")
        for pause in [false, true] {
            if pause { await kit.post(.control(.pause)) }
            await kit.advance(seconds: 3.3)
            let request = PictureRequest()
            await kit.post(.pictureWanted(request))
            let image = try #require(request.answered ?? nil).picture(width: kit.screen.cells)
            let lit = stride(from: 0, to: image.rgb.count, by: 3).map { image.rgb[$0] > 0 }
            #expect(lit == kit.screen.line.map { $0 != " " }, "\(kit.screen.line)")
        }
    }

    /// The status says which messages have a letter on the screen now and which are only
    /// next on the band, and follows the motion and a pause: two messages each wider than the
    /// screen, one of a's and one of b's, so the screen's line tells which is in view.
    @Test func theStatusSaysWhatIsOnScreenNow() async throws {
        let a = Array(repeating: "aaaa", count: 12).joined(separator: " ")
        let b = Array(repeating: "bbbb", count: 12).joined(separator: " ")
        let feed = calendar(Self.event("a", a, start: "20261101T080000", end: "20261101T200000", rule: "FREQ=DAILY"),
                                Self.event("b", b, start: "20261101T080000", end: "20261101T200000", rule: "FREQ=DAILY"))
        let kit = try await DisplayLoopKit(files: ["d.ics": feed], at: "2026-11-23T10:00:00+01:00")
        var seen: Set<[String]> = []
        for _ in 0..<40 {
            await kit.advance(seconds: 0.5)
            let report = kit.state.report
            #expect(Set(report.showing) == [a, b])
            #expect(report.onScreen.contains(a) == kit.screen.line.contains("a"), "\(report.onScreen) for \(kit.screen.line)")
            #expect(report.onScreen.contains(b) == kit.screen.line.contains("b"), "\(report.onScreen) for \(kit.screen.line)")
            seen.insert(report.onScreen)
        }
        #expect(seen.count >= 3, "\(seen)")
        await kit.post(.control(.pause))
        await kit.advance(seconds: 1)
        #expect(!kit.state.report.onScreen.isEmpty)
        #expect(kit.state.report.onScreen.allSatisfy { kit.screen.line.contains($0.prefix(1)) })
    }

    /// SIGINT/SIGTERM end the run; SIGHUP too outside systemd (the terminal went away).
    @Test(arguments: [DisplayEvent.stop(signal: 15), .hangUp])
    func signalsEndTheRun(event: DisplayEvent) async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00")
        await kit.post(event)
        #expect(kit.ending == .finished(0))
    }

    /// A resize is passed to the screen and the next frame is drawn in full.
    @Test func aResizeRepaintsInFull() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00")
        kit.screen.cells = 30
        await kit.post(.resized)
        #expect(kit.screen.shown.last?.fullRepaint == true)
        #expect(kit.screen.shown.last?.line.count == 30)
        #expect(kit.screen.line == "Monday, 23 November 2026")
    }

    /// A terminal made narrower while the line moves keeps the marquee: the letter at the
    /// left edge before the resize is at the left edge after it, and the line goes on from there.
    @Test func aResizedTerminalGoesOnFromTheLetterAtItsLeftEdge() async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        await kit.advance(seconds: 3)
        let before = try #require(kit.screen.shown.last?.line)
        kit.screen.cells = 25
        await kit.post(.resized)
        #expect(kit.screen.shown.last?.fullRepaint == true)
        #expect(kit.screen.shown.last?.line == String(before.prefix(25)))
        await kit.advance(seconds: 1)
        #expect(kit.screen.shown.last?.line == String(before.dropFirst(5).prefix(25)))
    }

    /// A screen that knows when a frame will be seen (KMS: the vertical blank its flip lands on)
    /// gets the frame of that instant, not of the instant it was drawn.
    @Test func aFrameIsComputedForTheInstantItIsSeen() async throws {
        let seenLater = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        seenLater.screen.presentationDelay = 1_000_000_000
        let plain = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        await seenLater.advance(seconds: 3)
        await plain.advance(seconds: 4)
        #expect(seenLater.screen.line == plain.screen.line)
        #expect(!seenLater.screen.line.isEmpty)
    }

    /// A screen whose device goes away (a DRM driver replacing the firmware framebuffer) is
    /// replaced: the text goes on from the letter it was at, in the new screen's units and
    /// width, at the same speed in characters; the old screen is not given back (that would
    /// show the console's text for a moment), and the status names the new screen.
    @Test func aReplacedScreenGoesOnWhereTheTextWas() async throws {
        let kit = try await DisplayLoopKit(files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00")
        await kit.advance(seconds: 3)
        let before = try #require(kit.screen.shown.last?.line)
        #expect(Self.long.contains(before))
        kit.screen.isGone = true
        await kit.post(.screenDeviceChanged)
        #expect(kit.ending == .screenGone)
        let next = RecordingScreen(clock: kit.clock, cells: 30, unitsPerCell: 64)
        await kit.replaceScreen(with: next)
        #expect(next.tookOver && !kit.screen.gaveBack)
        #expect(next.shown.first?.fullRepaint == true)
        #expect(next.shown.first?.line == String(before.prefix(30)))
        await kit.advance(seconds: 1)
        #expect(next.shown.last?.line == String(before.dropFirst(5).prefix(30)))
        #expect(kit.state.report.output == "recording screen 30x1")
    }

    /// The watchdog hears from the loop all through a screen replacement, however long the new
    /// device takes to appear: systemd stops a display that has been silent for WatchdogSec.
    @Test func theWatchdogIsPingedAcrossAScreenReplacement() async throws {
        let watchdog: Nanoseconds = 30_000_000_000
        let kit = try await DisplayLoopKit(
            files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00", watchdog: watchdog)
        let start = kit.clock.steadyTime()
        await kit.advance(seconds: 29)
        kit.screen.isGone = true
        await kit.post(.screenDeviceChanged)
        await kit.replaceScreen(with: RecordingScreen(clock: kit.clock), opening: 8_000_000_000)
        await kit.advance(seconds: 60)
        let pings = [start] + kit.notifications.filter { $0.message == "WATCHDOG=1" }.map(\.steady)
        #expect(pings.count >= 7)
        #expect(zip(pings.dropFirst(), pings).allSatisfy { $0 - $1 <= watchdog / 2 }, "\(pings.map { ($0 - start) / 1_000_000 })")
        #expect(kit.notifications.filter { $0.message == "READY=1" }.count == 1)
    }

    /// A reload reads the configuration file off the render thread: while a huge file or a slow
    /// disk holds the reading, the text keeps moving and the watchdog is fed; the settings read
    /// show when the reading ends.
    @Test func aSlowConfigurationFileNeverStopsTheDisplay() async throws {
        let reading = DispatchSemaphore(value: 0)
        var fresh = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        fresh.idleText = "Read again"
        let watchdog: Nanoseconds = 10_000_000_000
        let kit = try await DisplayLoopKit(
            at: "2026-11-23T10:00:00+01:00", watchdog: watchdog,
            reloadSettings: { [fresh] in
                // The test opens the gate; the time-out only keeps a broken loop from hanging it
                // (long: the kit waits for the schedule's actor, which every suite shares).
                _ = reading.wait(timeout: .now() + 900)
                return ReloadedSettings(display: fresh)
            })
        await kit.post(.control(.reload))
        let reloaded = kit.clock.steadyTime()
        await kit.advance(seconds: 30)
        #expect(kit.state.report.showing == ["Monday, 23 November 2026"])
        #expect(kit.notifications.filter { $0.message == "WATCHDOG=1" && $0.steady > reloaded }.count >= 5)
        reading.signal()
        while kit.state.report.showing != ["Read again"] {
            await kit.mailbox.nextPost()
            await kit.settle()
        }
    }

    /// A reload applies the language, the zone and the orientation line the file says now,
    /// with the display running on: the idle date and the line are written anew.
    @Test func aReloadAppliesTheLanguageAndTheZone() async throws {
        let display = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        let german = ScheduleSettings(
            displayZone: "America/New_York", words: CalendarWords(locale: "de"),
            orientation: OrientationSettings(showsTime: true), defaultEventDuration: 3600)
        let kit = try await DisplayLoopKit(
            files: Self.nothingSoon, at: "2026-11-23T03:00:00+01:00",
            reloadSettings: { ReloadedSettings(display: display, schedule: german) })
        #expect(kit.state.report.showing == ["Monday, 23 November 2026"])
        await kit.post(.control(.reload))
        // In New York it is still Sunday evening; nothing is scheduled, so the band carries
        // the orientation line's words (the date once).
        while kit.state.report.showing != ["Sonntagabend · 22. November 2026 · 21:00"] {
            await kit.mailbox.nextPost()
            await kit.settle()
        }
        #expect(kit.state.report.orientation == nil)
    }

    /// A reload with a larger text size draws on a new layout of the same screen, taken over,
    /// from the next frame on, the messages going on.
    @Test func aReloadWithALargerTextDrawsANewLayout() async throws {
        let display = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        var larger = FramebufferStyle()
        larger.textHeight = 0.25
        let kit = try await DisplayLoopKit(
            at: "2026-11-23T10:00:00+01:00", reloadSettings: { [larger] in ReloadedSettings(display: display, style: larger) })
        let first = kit.screen
        await kit.post(.control(.reload))
        while first.restyledAs == nil {
            await kit.mailbox.nextPost()
            await kit.settle()
        }
        let next = try #require(first.restyledAs)
        await kit.advance(seconds: 1)
        #expect(next.tookOver && next.cells == 20)
        #expect(next.shown.first?.fullRepaint == true)
        // The date no longer fits the 20 cells: a window of it goes by.
        let line = next.shown.last?.line ?? ""
        #expect(["Monday", "November", "2026"].contains { line.contains($0) }, "\(line)")
    }

    /// When no new screen can be opened the replacement says so (the run then ends).
    @Test func noNewScreenEndsTheRun() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00")
        kit.screen.isGone = true
        await kit.post(.screenDeviceChanged)
        #expect(kit.ending == .screenGone)
        #expect(!kit.loop.replaceScreen { nil })
    }

    /// A character of the messages that no font of the screen has is told in the journal,
    /// once, with its code points (it is left out of the picture).
    @Test func aCharacterNoFontHasIsToldOnce() async throws {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let kit = try await DisplayLoopKit(
            files: ["d.ics": Self.dailyLong], at: "2026-11-23T10:00:00+01:00", missing: ["ᚠ"], log: log)
        await kit.post(.feedsChanged)
        await kit.advance(seconds: 5)
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.contains("no font") } == ["<4>no font has \"ᚠ\" (U+16A0); it is left out of the messages"])
    }

    /// At night the screen dims gradually (ten minutes, in small steps, never brighter), and in
    /// the morning it brightens gradually (a quarter of an hour); in between it does not change,
    /// and a still picture wakes only for the steps.
    @Test func theScreenDimsAtNightAndBrightensInTheMorning() async throws {
        let kit = try await DisplayLoopKit(files: Self.nothingSoon, at: "2026-11-23T21:50:00+01:00",
                                           orientation: OrientationSettings())
        let start = kit.clock.steadyTime()
        func minutes(_ steady: SteadyInstant) -> Double { Double(steady - start) / 60e9 }
        await kit.advance(seconds: 30 * 60)
        // The screen is told of each change: nothing before 22:00, then sixteen steps.
        let dimming = kit.screen.shades
        #expect(dimming.count == 16)
        #expect(minutes(dimming[0].steady) >= 10 && minutes(dimming.last!.steady) <= 20.01)
        #expect(dimming.last?.shade == 1)
        #expect(zip(dimming.dropFirst(), dimming).allSatisfy { $0.shade > $1.shade && $0.shade - $1.shade <= 1.0 / 16 })
        let framesAtNight = kit.screen.shown.count
        await kit.advance(seconds: 9 * 3600)
        // 07:00 to 07:15: brighter in steps, back to day.
        let morning = kit.screen.shades.dropFirst(dimming.count)
        #expect(morning.count == 16)
        #expect(morning.last?.shade == 0)
        #expect(zip(morning.dropFirst(), morning).allSatisfy { $0.shade < $1.shade && $1.shade - $0.shade <= 1.0 / 16 })
        #expect(morning.allSatisfy { minutes($0.steady) >= 9 * 60 + 10 && minutes($0.steady) <= 9 * 60 + 25.01 })
        // The night itself: only the date changing at midnight and the lines of the new parts.
        #expect(kit.screen.shown.count - framesAtNight < 40)
        // Nothing scheduled: the band carries the line's words, the date once.
        #expect(kit.screen.line == "Tuesday morning · 24 November 2026")
        #expect(kit.screen.orientation == nil)
    }

    /// Nothing scheduled in an empty folder: the date once (the band showed it and the line
    /// below again), the band in the line's words, and the folder's emptiness on the problem
    /// rows and in the status. A message brings the line back below it.
    @Test func anEmptyFolderShowsTheDateOnceAndSaysWhy() async throws {
        let network = Mutex<String?>(nil)
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00", showsProblems: true,
                                           orientation: OrientationSettings(), homeAddress: { network.withLock { $0 } })
        await kit.advance(seconds: 1)
        #expect(kit.screen.line == "Monday morning · 23 November 2026")
        // Below the band, how to add calendars: into the folder, while there is no page.
        let intoTheFolder = "To add calendars, copy calendar files (.ics) into \(kit.feeds.path)"
        #expect(kit.screen.orientation == intoTheFolder)
        let report = kit.state.report
        #expect(report.showing == ["Monday morning · 23 November 2026"] && report.orientation == intoTheFolder)
        #expect(report.feeds.map(\.problems) == [["\(kit.feeds.path): error: no calendar files (*.ics) in it"]])
        #expect(kit.screen.problems == ["marquee: \(kit.feeds.path): error: no calendar files (*.ics) in it"])
        // The page comes up later (a password set) on every address, before the network: the
        // row still names the folder, and looks again every ten seconds until the box has an
        // address on the home network; then it names the page, and looks no more.
        kit.state.update { $0.page = .init(address: "0.0.0.0:8080", peers: "home", scheme: "https") }
        await kit.post(.pageChanged)
        #expect(kit.screen.orientation == intoTheFolder)
        network.withLock { $0 = "192.168.1.20" }
        await kit.advance(seconds: 10)
        let onThePage = "To add calendars, open https://192.168.1.20:8080 on a phone or computer"
        #expect(kit.screen.orientation == onThePage)
        #expect(kit.state.report.orientation == onThePage)
        let frames = kit.screen.shown.count
        await kit.advance(seconds: 60)
        #expect(kit.screen.shown.count == frames, "nothing moves, nothing wakes it")
        try kit.feeds.write("d.ics", Self.dailyLong)
        await kit.post(.feedsChanged)
        await kit.advance(seconds: 1)
        #expect(kit.screen.orientation == "Monday morning · 23 November 2026")
        #expect(kit.state.report.orientation == "Monday morning · 23 November 2026")
        #expect(kit.screen.problems.isEmpty)
    }

    /// A box started with a setup file it could not wholly use says so below the band, instead
    /// of how to add calendars, until a calendar is there.
    @Test func aSetupMistakeIsSaidBelowTheBand() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T10:00:00+01:00", orientation: OrientationSettings())
        kit.state.update { $0.setupProblems = ["wifi_pasword: not a setting of this file (it knows wifi_name, wifi_password, timezone, language, calendar, page_password, quiet_night)"] }
        await kit.post(.pageChanged)
        await kit.advance(seconds: 1)
        let said = "Please check marquee-setup.txt: wifi_pasword: not a setting of this file (it knows wifi_name, wifi_password, timezone, language, calendar, page_password, quiet_night)"
        #expect(kit.screen.orientation == said)
        #expect(kit.state.report.orientation == said)
        try kit.feeds.write("d.ics", Self.dailyLong)
        await kit.post(.feedsChanged)
        await kit.advance(seconds: 1)
        #expect(kit.screen.orientation == "Monday morning · 23 November 2026")
    }

    /// A screen opened at night (a driver replaced the framebuffer) is as dim as the one before.
    @Test func aScreenOpenedAtNightIsDimmedAtOnce() async throws {
        let kit = try await DisplayLoopKit(at: "2026-11-23T23:00:00+01:00", orientation: OrientationSettings())
        #expect(kit.screen.shades.last?.shade == 1)
        let next = RecordingScreen(clock: kit.clock)
        await kit.replaceScreen(with: next)
        #expect(next.shades.map(\.shade) == [1])
    }

    /// At night the text moves at half the speed (by default), or not at all (`still`), and
    /// the morning sets it going again; a carer's pause lasts through the morning.
    @Test func theTextSlowsOrStandsAtNight() async throws {
        func framesInTenSeconds(_ kit: DisplayLoopKit) async -> Int {
            let before = kit.screen.shown.count
            await kit.advance(seconds: 10)
            return kit.screen.shown.count - before
        }
        let slow = try await DisplayLoopKit(files: ["d.ics": Self.allDay], at: "2026-11-23T21:59:00+01:00",
                                            orientation: OrientationSettings())
        let day = await framesInTenSeconds(slow)
        await slow.advance(seconds: 60)
        let night = await framesInTenSeconds(slow)
        #expect(abs(day - 2 * night) <= 2, "\(day) frames by day, \(night) at night")

        var settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        settings.night.motion = .still
        settings.night.dims = false
        let still = try await DisplayLoopKit(files: ["d.ics": Self.allDay], at: "2026-11-23T21:59:50+01:00",
                                             settings: settings, orientation: OrientationSettings())
        await still.advance(seconds: 20)
        #expect(await framesInTenSeconds(still) <= 10 / 3 + 1, "standing still, a page of words at most every 3 s")
        #expect(still.state.report.paused)
        #expect(still.screen.shades.allSatisfy { $0.shade == 0 })
        await still.advance(seconds: 9 * 3600)
        #expect(await framesInTenSeconds(still) > 30)
        // Paused by the carer in the night: the morning leaves it paused.
        await still.post(.control(.pause))
        await still.advance(seconds: 24 * 3600)
        #expect(await framesInTenSeconds(still) <= 10 / 3 + 1)
        #expect(still.screen.shown.suffix(3).allSatisfy { !$0.isMoving })
    }

    /// However many messages are active, the status lists the first 200 and says how many more
    /// there are: a reply stays small and quick.
    @Test func theStatusListsAtMostTwoHundredMessages() async throws {
        let events = (0..<300).map { Self.event("m\($0)", "Message \($0)", start: "20261101T080000", end: "20261101T200000",
                                          rule: "FREQ=DAILY") }
        let kit = try await DisplayLoopKit(files: ["many.ics": calendar(events)], at: "2026-11-23T10:00:00+01:00")
        let report = kit.state.report
        #expect(report.messages.count == 200 && report.messagesNotListed == 100)
        #expect(report.showing.count == 200)
        #expect(kit.state.statusReply.count < 100_000)
    }

    /// A folder of 300 files lists 200 in the status, the broken one among them, and a count.
    @Test func theStatusListsAtMostTwoHundredFeedsProblemsFirst() async throws {
        var files: [String: String] = ["zz-broken.ics": "garbage"]
        for index in 0..<299 {
            files["f\(index).ics"] = calendar(Self.event("f\(index)", "F \(index)", start: "20261101T080000", end: "20261101T090000"))
        }
        let kit = try await DisplayLoopKit(files: files, at: "2026-11-23T10:00:00+01:00")
        let report = kit.state.report
        #expect(report.feeds.count == 200 && report.feedsNotListed == 100)
        #expect(report.feeds.first?.path.hasSuffix("/zz-broken.ics") == true && report.feeds.first?.state == "error")
    }

    static let evening = "Good evening, supper is ready in the kitchen and the tea is warm"
    static let night = "It's night-time right now. You should be in bed."
    static let eveningAndNight = calendar(
        event("e", evening, start: "20261101T180000", end: "20261101T220000", rule: "FREQ=DAILY"),
        event("n", night, start: "20261101T220000", end: "20261102T070000", rule: "FREQ=DAILY"))

    /// Standing still for the night, or paused by the carer, the screen tells the truth: when
    /// the evening's message ends and the night's begins, the night's shows at once, in whole
    /// words, and the evening's is gone (it stayed, cut mid-word, before).
    @Test(arguments: [false, true]) func standingStillShowsTheMessagesOfNow(pausedByTheCarer: Bool) async throws {
        var settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5))
        settings.night.motion = pausedByTheCarer ? .slow : .still
        settings.night.dims = false
        let kit = try await DisplayLoopKit(files: ["n.ics": Self.eveningAndNight], at: "2026-11-23T21:59:53+01:00",
                                           settings: settings, orientation: OrientationSettings())
        kit.screen.cells = 60
        await kit.post(.resized)
        if pausedByTheCarer {
            await kit.advance(seconds: 2)
            await kit.post(.control(.pause))
        }
        await kit.advance(seconds: 14)
        let line = kit.screen.line
        #expect(kit.state.report.showing == [Self.night])
        #expect(!line.isEmpty && Self.night.hasPrefix(line), "shown: \(line)")
        #expect(!kit.screen.shown.last!.isMoving)
    }

    static let allDay = calendar(TestSupport.event(
        ["UID:a", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:20261101", "RRULE:FREQ=DAILY", "SUMMARY:\(long)"]))
}
