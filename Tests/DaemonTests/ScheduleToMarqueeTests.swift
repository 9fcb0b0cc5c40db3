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
        #expect(before.orientationShown(idleTemplate: "{date}") == "Sunday evening · 22 November 2026")
        let folder = try TemporaryFolder()
        await unread.load([folder.path])
        let read = await unread.snapshot(at: at)
        #expect(read.marqueeMessages().map(\.text) == ["Sunday evening · 22 November 2026"])
        #expect(read.orientationShown(idleTemplate: "{date}") == nil)
        #expect(read.orientationShown(idleTemplate: "A quiet day") == "Sunday evening · 22 November 2026")
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
