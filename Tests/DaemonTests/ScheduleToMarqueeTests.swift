import Foundation
import Marquee
import Schedule
import TestSupport
import Support
import Testing

@testable import Daemon

/// What the render loop takes from the schedule: messages, how long they hold, the idle date.
@Suite struct ScheduleToMarqueeTests {
    func schedule(_ text: String?) async throws -> Schedule {
        let folder = try TemporaryFolder()
        if let text { try folder.write("feed.ics", text) }
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        await schedule.load([folder.path])
        return schedule
    }

    /// Nothing scheduled: the date, written out, until local midnight.
    @Test func idleShowsTheDateUntilMidnight() async throws {
        let snapshot = try await schedule(nil).snapshot(at: instant("2026-11-22T17:10:00+01:00"))
        #expect(snapshot.marqueeMessages() == [MarqueeMessage(text: "Sunday, 22 November 2026")])
        #expect(snapshot.validUntil.rfc3339 == "2026-11-23T00:00:00+01:00")
        #expect(snapshot.marqueeMessages(idleTemplate: "Today is {date}. Nothing else.").first?.text
            == "Today is Sunday, 22 November 2026. Nothing else.")
    }

    /// With the orientation line on and nothing scheduled, the band carries the line's words
    /// and the line is not shown (the date once) — but not before the feeds are read, when a
    /// start shows the date and the line as always.
    @Test func theDateOnceOnlyOnceTheFeedsAreRead() async throws {
        let at = instant("2026-11-22T17:10:00+01:00")
        let unread = try await Schedule(displayZone: "Europe/Berlin", orientation: OrientationSettings())
        let before = await unread.snapshot(at: at)
        #expect(before.marqueeMessages().map(\.text) == ["Sunday, 22 November 2026"])
        #expect(before.orientationShown(idleTemplate: "{date}") { nil } == "Sunday evening · 22 November 2026")
        #expect(before.addingCalendars == nil)
        let folder = try TemporaryFolder()
        try folder.write("later.ics", calendar(event("UID:l", "DTSTART;VALUE=DATE:20261224", "SUMMARY:Christmas Eve")))
        await unread.load([folder.path])
        let read = await unread.snapshot(at: at)
        #expect(read.marqueeMessages().map(\.text) == ["Sunday evening · 22 November 2026"])
        #expect(read.orientationShown(idleTemplate: "{date}") { nil } == nil)
        #expect(read.orientationShown(idleTemplate: "A quiet day") { nil } == "Sunday evening · 22 November 2026")
    }

    /// Read, with no calendar in the folder and no subscription, the band carries the line
    /// and the row below says how to add calendars: on the page where it is served, else into
    /// the folder; in German too. A calendar copied in ends it; one subscribed to as well.
    @Test func aBoxWithoutCalendarsSaysHowToAddThem() async throws {
        let at = instant("2026-11-22T17:10:00+01:00")
        let folder = try TemporaryFolder()
        let english = try await Schedule(displayZone: "Europe/Berlin", orientation: OrientationSettings())
        await english.load([folder.path])
        let empty = await english.snapshot(at: at)
        #expect(empty.marqueeMessages().map(\.text) == ["Sunday evening · 22 November 2026"])
        #expect(empty.orientationShown(idleTemplate: "{date}") { "https://192.168.1.20:8080" }
            == "To add calendars, open https://192.168.1.20:8080 on a phone or computer")
        #expect(empty.orientationShown(idleTemplate: "{date}") { nil }
            == "To add calendars, copy calendar files (.ics) into \(folder.path)")
        let german = try await Schedule(displayZone: "Europe/Berlin", words: CalendarWords(locale: "de_DE"),
                                        orientation: OrientationSettings())
        await german.load([folder.path + "/"])
        #expect(await german.snapshot(at: at).orientationShown(idleTemplate: "{date}") { "https://box:8080" }
            == "Kalender hinzufügen: https://box:8080 auf einem Handy oder Computer öffnen")
        // A folder that does not exist is named all the same: it is where calendars go.
        await german.load([folder.path + "/feeds.d"])
        #expect(await german.snapshot(at: at).orientationShown(idleTemplate: "{date}") { nil }
            == "Kalender hinzufügen: Kalenderdateien (.ics) nach \(folder.path)/feeds.d kopieren")
        await english.load([folder.path], fetched: [FetchedFeed(name: "https://example.org/family.ics", file: nil)])
        #expect(await english.snapshot(at: at).addingCalendars == nil)
        try folder.write("later.ics", calendar(event("UID:l", "DTSTART;VALUE=DATE:20261224", "SUMMARY:Christmas Eve")))
        await english.load([folder.path])
        let read = await english.snapshot(at: at)
        #expect(read.addingCalendars == nil)
        #expect(read.orientationShown(idleTemplate: "{date}") { Issue.record("the page was asked for"); return nil } == nil)
    }

    /// What the carer's setup file could not use is said on that row first, in the display's
    /// language, while the box has no calendar (the carer setting it up looks then); with a
    /// calendar the row is the orientation line again (the file and the page still say it).
    @Test func aSetupMistakeIsSaidWhileThereIsNoCalendar() async throws {
        let at = instant("2026-11-22T17:10:00+01:00")
        let folder = try TemporaryFolder()
        let mistake = "page_password: must be at least 8 characters"
        let english = try await Schedule(displayZone: "Europe/Berlin", orientation: OrientationSettings())
        await english.load([folder.path])
        #expect(await english.snapshot(at: at).orientationShown(idleTemplate: "{date}", setupProblem: mistake) {
            Issue.record("the page was asked for")
            return nil
        } == "Please check marquee-setup.txt: page_password: must be at least 8 characters")
        let german = try await Schedule(displayZone: "Europe/Berlin", words: CalendarWords(locale: "de"),
                                        orientation: OrientationSettings())
        await german.load([folder.path])
        #expect(await german.snapshot(at: at).orientationShown(idleTemplate: "{date}", setupProblem: mistake) { nil }
            == "marquee-setup.txt prüfen: page_password: must be at least 8 characters")
        try folder.write("later.ics", calendar(event("UID:l", "DTSTART;VALUE=DATE:20261224", "SUMMARY:Christmas Eve")))
        await english.load([folder.path])
        #expect(await english.snapshot(at: at).orientationShown(idleTemplate: "A quiet day", setupProblem: mistake) { nil }
            == "Sunday evening · 22 November 2026")
    }

    /// The page's address as a carer types it: the box's home address where it listens on
    /// every address (none yet: no address), the one it listens on otherwise; none unserved.
    @Test func thePageIsReachedAtTheBoxsAddress() {
        let served = StatusReport.PageStatus(address: "0.0.0.0:8080", peers: "home", scheme: "https")
        #expect(served.reachableAt { "192.168.1.20" } == "https://192.168.1.20:8080")
        #expect(served.reachableAt { nil } == nil)
        let one = StatusReport.PageStatus(address: "10.0.0.7:8443", peers: "home", scheme: "http")
        #expect(one.reachableAt { Issue.record("asked"); return nil } == "http://10.0.0.7:8443")
        let unserved = StatusReport.PageStatus(address: nil, peers: "home", problem: "no password is set")
        #expect(unserved.reachableAt { "192.168.1.20" } == nil)
        // This machine's own: one in the home network's ranges, or none.
        if let own = homeNetworkAddress() { #expect(PagePeers.isHomeNetwork(own) && !own.hasPrefix("127."), "\(own)") }
    }

    /// Messages carry their colour and effect; they hold until the next change.
    @Test func messagesHoldUntilTheNextChange() async throws {
        let feed = calendar(event("UID:a", "DTSTART;TZID=Europe/Berlin:20261122T170000", "DTEND;TZID=Europe/Berlin:20261122T180000",
                                  "SUMMARY:Supper", "COLOR:gold", "X-MARQUEE-EFFECT:dance"))
        let snapshot = try await schedule(feed).snapshot(at: instant("2026-11-22T17:10:00+01:00"))
        #expect(snapshot.marqueeMessages() == [
            MarqueeMessage(text: "Supper", colour: Colour(red: 255, green: 215, blue: 0), effect: .dance),
        ])
        #expect(snapshot.validUntil.rfc3339 == "2026-11-22T18:00:00+01:00")
    }
}
