import TestSupport
import Testing

@testable import Schedule

/// `screen_off`: the hours the screen is dark, in the display zone's local time, and the
/// snapshot's promise to change no later than they begin or end — across midnight, on the
/// nights the clocks change, and by the parts of the day.
@Suite(.temporaryFolders) @ICalActor struct DarkHoursTests {
    func snapshot(at time: String, _ hours: DarkHours?, zone: String = "Europe/Berlin",
                  parts: DayParts = .init()) throws -> ScheduleSnapshot {
        let schedule = try ScheduleState(
            displayZone: zone, orientation: OrientationSettings(parts: parts, showsLine: false), screenOff: hours)
        schedule.load([try feedFolder([:])])
        return schedule.snapshot(at: instant(time))
    }

    static let overnight = DarkHours.between(start: 23 * 60, end: 6 * 60 + 30)

    /// 23:00–06:30 through a day: lit until 23:00, dark from 23:00 exactly until 06:30 the next
    /// morning (past midnight), lit again at 06:30 exactly.
    @Test(arguments: [
        ("2026-11-23T22:59:59+01:00", nil, "2026-11-23T23:00:00+01:00"),
        ("2026-11-23T23:00:00+01:00", "2026-11-24T06:30:00+01:00", "2026-11-24T00:00:00+01:00"),
        ("2026-11-24T00:00:00+01:00", "2026-11-24T06:30:00+01:00", "2026-11-24T06:30:00+01:00"),
        ("2026-11-24T06:29:59+01:00", "2026-11-24T06:30:00+01:00", "2026-11-24T06:30:00+01:00"),
        ("2026-11-24T06:30:00+01:00", nil, "2026-11-24T07:00:00+01:00"),
        ("2026-11-24T15:00:00+01:00", nil, "2026-11-24T17:00:00+01:00"),
    ] as [(String, String?, String)])
    func overnightThroughADay(time: String, darkUntil: String?, validUntil: String) throws {
        let snapshot = try snapshot(at: time, Self.overnight)
        #expect(snapshot.darkUntil?.rfc3339 == darkUntil)
        #expect(snapshot.validUntil.rfc3339 == validUntil)
    }

    /// Hours within a day (a nap, 13:00–15:00): dark between them, never across midnight.
    @Test func withinADay() throws {
        let nap = DarkHours.between(start: 13 * 60, end: 15 * 60)
        #expect(try snapshot(at: "2026-11-23T12:30:00+01:00", nap).validUntil.rfc3339 == "2026-11-23T13:00:00+01:00")
        #expect(try snapshot(at: "2026-11-23T14:00:00+01:00", nap).darkUntil?.rfc3339 == "2026-11-23T15:00:00+01:00")
        #expect(try snapshot(at: "2026-11-23T15:00:00+01:00", nap).darkUntil == nil)
        #expect(try snapshot(at: "2026-11-23T23:30:00+01:00", nap).darkUntil == nil)
    }

    /// "night": from the night's start to the morning's, as the parts of the day are set.
    @Test func theNightPart() throws {
        #expect(try snapshot(at: "2026-11-23T21:59:00+01:00", .night).darkUntil == nil)
        #expect(try snapshot(at: "2026-11-23T22:00:00+01:00", .night).darkUntil?.rfc3339 == "2026-11-24T07:00:00+01:00")
        #expect(try snapshot(at: "2026-11-24T03:00:00+01:00", .night).darkUntil?.rfc3339 == "2026-11-24T07:00:00+01:00")
        let late = DayParts(starts: [.morning: 8 * 60, .afternoon: 12 * 60, .evening: 17 * 60, .night: 30])
        #expect(try snapshot(at: "2026-11-23T23:30:00+01:00", .night, parts: late).darkUntil == nil)
        #expect(try snapshot(at: "2026-11-24T00:30:00+01:00", .night, parts: late).darkUntil?.rfc3339
            == "2026-11-24T08:00:00+01:00")
    }

    /// On the night the clocks go forward (02:00 → 03:00 in Berlin), a range ending in the
    /// skipped hour ends at the shifted time (RFC 5545 §3.3.5), never dropped; on the night they
    /// go back, a range ending in the repeated hour ends at its first occurrence.
    @Test func clockChangeNights() throws {
        let intoTheGap = DarkHours.between(start: 23 * 60, end: 2 * 60 + 30)
        let spring = try snapshot(at: "2027-03-28T01:00:00+01:00", intoTheGap)
        #expect(spring.darkUntil?.rfc3339 == "2027-03-28T03:30:00+02:00")
        #expect(try snapshot(at: "2027-03-28T03:30:00+02:00", intoTheGap).darkUntil == nil)
        let autumn = try snapshot(at: "2026-10-25T01:00:00+02:00", intoTheGap)
        #expect(autumn.darkUntil?.rfc3339 == "2026-10-25T02:30:00+02:00")
        // Overnight 23:00–06:30 lasts an hour more on the autumn night, an hour less in spring.
        let long = try snapshot(at: "2026-10-24T23:00:00+02:00", Self.overnight)
        #expect(long.darkUntil?.rfc3339 == "2026-10-25T06:30:00+01:00")
        let short = try snapshot(at: "2027-03-27T23:00:00+01:00", Self.overnight)
        #expect(short.darkUntil?.rfc3339 == "2027-03-28T06:30:00+02:00")
    }

    /// Without `screen_off` the screen is never dark, and the hours promise no change.
    @Test func neverByDefault() throws {
        let snapshot = try snapshot(at: "2026-11-24T02:00:00+01:00", nil)
        #expect(snapshot.darkUntil == nil)
        #expect(snapshot.validUntil.rfc3339 == "2026-11-24T07:00:00+01:00")
    }

    /// In another zone the hours are that zone's local times.
    @Test func inTheDisplayZone() throws {
        let snapshot = try snapshot(at: "2026-11-24T04:30:00Z", Self.overnight, zone: "America/New_York")
        #expect(snapshot.darkUntil?.rfc3339 == "2026-11-24T06:30:00-05:00")
    }
}
