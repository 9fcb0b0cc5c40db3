import CLibical
import TestSupport
import Testing

@testable import Schedule

/// All-day dates, durations, exceptions, overrides and cancellations.
@Suite(.temporaryFolders) @ICalActor struct RecurrenceTests {
    /// An all-day date covers its local day wherever the display is, east or west of UTC.
    @Test(arguments: [
        ("Pacific/Auckland", "2026-03-03T00:00:00+13:00", "2026-03-03T23:59:59+13:00"),
        ("America/Los_Angeles", "2026-03-03T00:00:00-08:00", "2026-03-03T23:59:59-08:00"),
        ("Asia/Kolkata", "2026-03-03T00:00:00+05:30", "2026-03-03T23:59:59+05:30"),
    ])
    func allDayEventIsTheLocalDay(zone: String, first: String, last: String) throws {
        let feed = calendar(event("DTSTART;VALUE=DATE:20260303", "DTEND;VALUE=DATE:20260304", "SUMMARY:Trash day"))
        let schedule = try schedule(feed, zone: zone)
        #expect(schedule.texts(at: first) == ["Trash day"])
        #expect(schedule.texts(at: last) == ["Trash day"])
        #expect(schedule.messages(at: instant(first) - 1).isEmpty)
        #expect(schedule.messages(at: instant(last) + 1).isEmpty)
    }

    /// No DTEND on a date means one day; a multi-day event is active on its last day.
    @Test func allDayLengths() throws {
        let feed = calendar(
            event("DTSTART;VALUE=DATE:20260303", "SUMMARY:One day"),
            event("DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260313", "SUMMARY:Holiday"),
            event("DTSTART;VALUE=DATE:20260320", "DURATION:P2D", "SUMMARY:Visit"))
        let schedule = try schedule(feed, zone: "Europe/Berlin")
        #expect(schedule.texts(at: "2026-03-03T23:00:00+01:00") == ["One day"])
        #expect(schedule.texts(at: "2026-03-04T00:00:00+01:00") == [])
        #expect(schedule.texts(at: "2026-03-12T23:59:00+01:00") == ["Holiday"])
        #expect(schedule.texts(at: "2026-03-13T00:00:00+01:00") == [])
        #expect(schedule.texts(at: "2026-03-21T12:00:00+01:00") == ["Visit"])
        #expect(schedule.texts(at: "2026-03-22T00:00:00+01:00") == [])
    }

    /// A yearly 29 February birthday follows RFC 5545: it happens in leap years only.
    @Test func leapDayBirthday() throws {
        let feed = calendar(event(
            "DTSTART;VALUE=DATE:19840229", "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
            "SUMMARY:Leah turns {age}"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2028-02-29T12:00:00+01:00") == ["Leah turns 44"])
        #expect(schedule.texts(at: "2027-02-28T12:00:00+01:00") == [])
        #expect(schedule.texts(at: "2027-03-01T12:00:00+01:00") == [])
    }

    /// DURATION: days are nominal (a P1D across spring-forward is 23 hours), hours exact.
    @Test func nominalAndExactDurations() throws {
        let feed = calendar(
            event("DTSTART;TZID=Europe/Berlin:20260328T120000", "DURATION:P1D", "SUMMARY:Day"),
            event("DTSTART;TZID=Europe/Berlin:20260328T120000", "DURATION:PT24H", "SUMMARY:Hours"))
        let schedule = try schedule(feed)
        let messages = schedule.messages(at: instant("2026-03-28T13:00:00+01:00"))
        #expect(messages.first { $0.text == "Day" }?.end.rfc3339 == "2026-03-29T12:00:00+02:00")
        #expect(messages.first { $0.text == "Hours" }?.end.rfc3339 == "2026-03-29T13:00:00+02:00")
    }

    /// A timed event without DTEND or DURATION lasts the default hour.
    @Test func defaultDuration() throws {
        let schedule = try schedule(calendar(event("DTSTART:20260701T100000Z", "SUMMARY:Call")), zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T10:59:59Z") == ["Call"])
        #expect(schedule.texts(at: "2026-07-01T11:00:00Z") == [])
    }

    /// EXDATE;VALUE=DATE removes the instance on that local date, not on its UTC date.
    @Test func dateExceptionOnSeriesJustAfterMidnight() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20240101T003000", "DURATION:PT15M", "RRULE:FREQ=DAILY;COUNT=5",
            "EXDATE;VALUE=DATE:20240102", "SUMMARY:Night pill"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2024-01-01T00:35:00+01:00") == ["Night pill"])
        #expect(schedule.texts(at: "2024-01-02T00:35:00+01:00") == [])
        #expect(schedule.texts(at: "2024-01-03T00:35:00+01:00") == ["Night pill"])
    }

    /// EXDATE in another zone and in UTC, and several values on one line, match as instants.
    @Test func exceptionsInOtherZones() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20260706T100000", "RRULE:FREQ=DAILY;COUNT=6", "SUMMARY:Walk",
            "EXDATE:20260707T080000Z", "EXDATE;TZID=America/New_York:20260708T040000,20260709T040000"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-07-06T10:30:00+02:00") == ["Walk"])
        #expect(schedule.texts(at: "2026-07-07T10:30:00+02:00") == [])
        #expect(schedule.texts(at: "2026-07-08T10:30:00+02:00") == [])
        #expect(schedule.texts(at: "2026-07-09T10:30:00+02:00") == [])
        #expect(schedule.texts(at: "2026-07-10T10:30:00+02:00") == ["Walk"])
    }

    /// An override moves an occurrence out of its slot and into another day; the newest
    /// SEQUENCE of an override wins; a cancelled override removes the occurrence.
    @Test func overridesMoveAndCancelOccurrences() throws {
        let uid = "UID:weekly-physio"
        let feed = calendar(
            event(uid, "DTSTART;TZID=Europe/Berlin:20261103T100000", "DTEND;TZID=Europe/Berlin:20261103T103000",
                  "RRULE:FREQ=WEEKLY", "SUMMARY:Physio"),
            event(uid, "RECURRENCE-ID;TZID=Europe/Berlin:20261110T100000", "SEQUENCE:1",
                  "DTSTART;TZID=Europe/Berlin:20261111T150000", "DTEND;TZID=Europe/Berlin:20261111T153000",
                  "SUMMARY:Physio (old move)"),
            event(uid, "RECURRENCE-ID;TZID=Europe/Berlin:20261110T100000", "SEQUENCE:2",
                  "DTSTART;TZID=Europe/Berlin:20261112T150000", "DTEND;TZID=Europe/Berlin:20261112T153000",
                  "SUMMARY:Physio (moved)"),
            event(uid, "RECURRENCE-ID:20261117T090000Z", "SEQUENCE:1", "STATUS:CANCELLED",
                  "DTSTART;TZID=Europe/Berlin:20261117T100000", "SUMMARY:Physio"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-11-03T10:15:00+01:00") == ["Physio"])
        #expect(schedule.texts(at: "2026-11-10T10:15:00+01:00") == [])
        #expect(schedule.texts(at: "2026-11-11T15:15:00+01:00") == [])
        #expect(schedule.texts(at: "2026-11-12T15:15:00+01:00") == ["Physio (moved)"])
        #expect(schedule.texts(at: "2026-11-17T10:15:00+01:00") == [])
        #expect(schedule.texts(at: "2026-11-24T10:15:00+01:00") == ["Physio"])
    }

    /// An override can move an occurrence of another day into the queried instant.
    @Test func overrideMovesIntoQueriedInstant() throws {
        let uid = "UID:standup"
        let feed = calendar(
            event(uid, "DTSTART:20260701T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", "SUMMARY:Standup"),
            event(uid, "RECURRENCE-ID:20260705T090000Z", "DTSTART:20260703T200000Z", "DURATION:PT1H",
                  "SUMMARY:Late standup"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-03T20:30:00Z") == ["Late standup"])
        #expect(schedule.texts(at: "2026-07-05T09:30:00Z") == [])
    }

    /// An all-day series with a DATE-TIME RECURRENCE-ID (as Outlook writes it) matches on the date.
    @Test func dateTimeRecurrenceIDOnAllDaySeries() throws {
        let uid = "UID:bins"
        let feed = calendar(
            event(uid, "DTSTART;VALUE=DATE:20260706", "RRULE:FREQ=WEEKLY", "SUMMARY:Bins out"),
            event(uid, "RECURRENCE-ID:20260713T000000Z", "DTSTART;VALUE=DATE:20260714", "SUMMARY:Bins out (late)"))
        let schedule = try schedule(feed, zone: "Europe/London")
        #expect(schedule.texts(at: "2026-07-13T12:00:00+01:00") == [])
        #expect(schedule.texts(at: "2026-07-14T12:00:00+01:00") == ["Bins out (late)"])
        #expect(schedule.texts(at: "2026-07-20T12:00:00+01:00") == ["Bins out"])
    }

    /// RANGE=THISANDFUTURE moves every later occurrence.
    @Test func thisAndFutureOverride() throws {
        let uid = "UID:lunch"
        let feed = calendar(
            event(uid, "DTSTART:20260701T120000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", "SUMMARY:Lunch"),
            event(uid, "RECURRENCE-ID;RANGE=THISANDFUTURE:20260705T120000Z", "DTSTART:20260705T130000Z",
                  "DURATION:PT1H", "SUMMARY:Lunch"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-04T12:30:00Z") == ["Lunch"])
        #expect(schedule.texts(at: "2026-07-05T12:30:00Z") == [])
        #expect(schedule.texts(at: "2026-07-05T13:30:00Z") == ["Lunch"])
        #expect(schedule.texts(at: "2026-07-09T12:30:00Z") == [])
        #expect(schedule.texts(at: "2026-07-09T13:30:00Z") == ["Lunch"])
    }

    /// RDATE with its own TZID, a PERIOD, and several RRULEs on one event.
    @Test func recurrenceDatesAndSeveralRules() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20260706T100000", "DURATION:PT30M", "SUMMARY:Coffee",
            "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2", "RRULE:FREQ=WEEKLY;BYDAY=FR;COUNT=1",
            "RDATE;TZID=America/New_York:20260722T040000", "RDATE;VALUE=PERIOD:20260801T080000Z/PT3H"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-07-13T10:15:00+02:00") == ["Coffee"])
        #expect(schedule.texts(at: "2026-07-10T10:15:00+02:00") == ["Coffee"])
        #expect(schedule.texts(at: "2026-07-20T10:15:00+02:00") == [])
        #expect(schedule.texts(at: "2026-07-22T10:15:00+02:00") == ["Coffee"])
        #expect(schedule.texts(at: "2026-08-01T12:30:00+02:00") == ["Coffee"])
    }

    /// DTSTART is an occurrence even when the RRULE does not match it; a cancelled series
    /// and instances after UNTIL are not shown.
    @Test func dtstartUntilAndCancelledSeries() throws {
        let feed = calendar(
            event("DTSTART:20260701T100000Z", "RRULE:FREQ=WEEKLY;BYDAY=FR;UNTIL=20260710T100000Z", "SUMMARY:Odd"),
            event("DTSTART:20260701T100000Z", "RRULE:FREQ=DAILY", "STATUS:CANCELLED", "SUMMARY:Gone"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T10:30:00Z") == ["Odd"])  // a Wednesday
        #expect(schedule.texts(at: "2026-07-03T10:30:00Z") == ["Odd"])
        #expect(schedule.texts(at: "2026-07-10T10:30:00Z") == ["Odd"])
        #expect(schedule.texts(at: "2026-07-17T10:30:00Z") == [])
    }

    /// An occurrence that started yesterday is still active (expansion looks back).
    @Test func ongoingOccurrenceFromLongAgo() throws {
        let feed = calendar(event(
            "DTSTART;VALUE=DATE:20200101", "DTEND;VALUE=DATE:20200201", "RRULE:FREQ=YEARLY", "SUMMARY:Winter"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2031-01-31T23:00:00+01:00") == ["Winter"])
        #expect(schedule.texts(at: "2031-02-01T00:00:00+01:00") == [])
    }

    /// A rule whose instances repeat evenly: its instances are where libical puts them, so it is
    /// iterated without libical, and its COUNT is read as the UNTIL of its last one.
    @Test(arguments: [
        ("FREQ=DAILY;COUNT=40", false), ("FREQ=WEEKLY;INTERVAL=2;COUNT=30", false),
        ("FREQ=WEEKLY;BYDAY=TU;COUNT=12", false), ("FREQ=MONTHLY;COUNT=25", false),
        ("FREQ=YEARLY;INTERVAL=4;COUNT=6", false), ("FREQ=HOURLY;INTERVAL=5;COUNT=100", false),
        ("FREQ=MINUTELY;INTERVAL=7;COUNT=500", false), ("FREQ=DAILY;INTERVAL=3;COUNT=9", true),
        ("FREQ=MONTHLY;INTERVAL=5;COUNT=14", true), ("FREQ=YEARLY;COUNT=30", true),
        // The same weekdays every week or run of days, WKST and the start's week respected.
        ("FREQ=WEEKLY;BYDAY=TU,TH;COUNT=60", false), ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,FR;COUNT=45", false),
        ("FREQ=WEEKLY;INTERVAL=3;BYDAY=SU,TU,SA;WKST=SU;COUNT=40", true),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,TU;WKST=MO;COUNT=30", false),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,TU;WKST=SU;COUNT=30", false),
        ("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=100", false), ("FREQ=DAILY;INTERVAL=3;BYDAY=TU,SA,SU;COUNT=30", true),
        // The n-th weekday of the month (27 February 2024 is the fourth and the last Tuesday).
        ("FREQ=MONTHLY;BYDAY=4TU;COUNT=30", false), ("FREQ=MONTHLY;BYDAY=-1TU;COUNT=30", false),
        ("FREQ=MONTHLY;INTERVAL=3;BYDAY=-1TU;COUNT=20", true),
        // A start that is not the rule's weekday of its month: before it (skipped), after it.
        ("FREQ=MONTHLY;BYDAY=2TU;COUNT=30", false), ("FREQ=MONTHLY;INTERVAL=3;BYDAY=1FR;COUNT=20", true),
        ("FREQ=MONTHLY;INTERVAL=2;BYDAY=4WE;COUNT=20", false), ("FREQ=MONTHLY;BYDAY=-1TH;COUNT=20", true),
    ])
    func evenRuleMatchesLibical(rule text: String, isDate: Bool) throws {
        let start = CivilDateTime(2024, 2, 27, isDate ? 0 : 9, isDate ? 0 : 15)  // a Tuesday
        let counted = icalrecurrencetype_from_string(text)
        let even = try #require(EvenRule(counted, start: start))
        func instances(_ rule: icalrecurrencetype) throws -> [CivilDateTime] {
            let iterator = try #require(RecurrenceIterator(rule: rule, start: start, isDate: isDate))
            var result: [CivilDateTime] = []
            while result.count <= 1_000, let next = iterator.next() { result.append(next) }
            return result
        }
        let expected = try instances(counted)
        #expect(expected.count == Int(counted.count))
        #expect(expected.indices.map { even.instance(Int64($0)) } == expected)
        var bounded = counted
        bounded.count = 0
        bounded.until = icaltimetype(civil: try #require(even.instance(Int64(counted.count) - 1)), isDate: isDate)
        #expect(try instances(bounded) == expected)
        // Between, on and just after instances, and before the start.
        var probes = [start.adding(seconds: -86_400 * 40)]
        for instance in expected {
            probes += [instance.adding(seconds: -1), instance, instance.adding(seconds: 1), instance.adding(seconds: 86_399)]
        }
        for probe in probes {
            let fromLibical = expected.first { $0 >= probe }
            if let fromLibical { #expect(even.firstInstance(atOrAfter: probe) == fromLibical, "after \(probe)") }
        }
        // Iterated from any probe to an UNTIL on an instance or just after it.
        for last in [expected[3], expected[3].adding(seconds: 1)] {
            for probe in probes {
                let next = even.instances(atOrAfter: probe, through: last)
                var iterated: [CivilDateTime] = []
                while iterated.count <= expected.count, let instance = next() { iterated.append(instance) }
                #expect(iterated == expected.filter { $0 >= probe && $0 <= last }, "from \(probe) through \(last)")
            }
        }
    }

    /// Rules whose steps can hold no instance or several are left to libical alone.
    @Test(arguments: [
        ("FREQ=WEEKLY;BYDAY=MO;COUNT=5", CivilDateTime(2024, 2, 27, 9)),
        ("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5", CivilDateTime(2024, 2, 27, 9)),
        ("FREQ=DAILY;BYDAY=1TU,WE;COUNT=5", CivilDateTime(2024, 2, 27, 9)),
        ("FREQ=DAILY;BYDAY=MO,WE;COUNT=5", CivilDateTime(2024, 2, 27, 9)),
        ("FREQ=MONTHLY;COUNT=5", CivilDateTime(2024, 1, 31, 9)),
        ("FREQ=YEARLY;COUNT=5", CivilDateTime(2024, 2, 29, 9)),
        ("FREQ=DAILY;BYMONTH=3;COUNT=5", CivilDateTime(2024, 3, 1, 9)),
        ("FREQ=MONTHLY;BYDAY=5FR;COUNT=5", CivilDateTime(2024, 3, 29, 9)),
        ("FREQ=MONTHLY;BYDAY=2TU,4TU;COUNT=5", CivilDateTime(2024, 2, 13, 9)),
        ("FREQ=WEEKLY;BYDAY=2TU", CivilDateTime(2024, 2, 27, 9)),
    ])
    func unevenRulesAreLeftToLibical(rule: String, start: CivilDateTime) {
        #expect(EvenRule(icalrecurrencetype_from_string(rule), start: start) == nil)
    }

    /// A sub-daily rule with BY* parts gives the same instances wherever its expansion starts:
    /// those libical finds iterating from DTSTART. libical's own skip ahead lost the INTERVAL's
    /// phase (every 5 hours from 10:17 moved by 3 hours) and the rest of the day it landed in.
    @Test(arguments: [
        "FREQ=HOURLY;INTERVAL=5;BYDAY=MO,TU,WE,TH,FR", "FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10",
        "FREQ=MINUTELY;INTERVAL=7;BYDAY=TH;BYHOUR=18", "FREQ=HOURLY;BYDAY=TH;BYHOUR=18",
    ])
    func subDailyRuleKeepsItsPhase(rule: String) throws {
        let start = CivilDateTime(2026, 7, 1, 10, 17, 30)
        let iterator = try #require(RecurrenceIterator(rule: icalrecurrencetype_from_string(rule), start: start, isDate: false))
        let end = CivilDateTime(2026, 9, 1)
        var expected: [Int64] = [start.secondsAsUTC]
        while let next = iterator.next(), next < end {
            if next != start { expected.append(next.secondsAsUTC) }
        }
        let stamp = "DTSTART:20260701T101730Z"
        let folder = try feedFolder(["feed.ics": calendar(event(stamp, "DURATION:PT1S", "SUMMARY:Often", "RRULE:" + rule))])
        for day in [9, 23, 38, 52] {
            let from = start.secondsAsUTC + Int64(day) * 86_400 + 3_600 * Int64(day % 7)
            let to = from + 3 * 86_400
            let schedule = try ScheduleState(displayZone: "UTC")
            schedule.load([folder], around: Instant(secondsSinceEpoch: from))
            let agenda = schedule.agenda(from: Instant(secondsSinceEpoch: from), to: Instant(secondsSinceEpoch: to))
            let starts = agenda.entries.filter { $0.change == .start }.map(\.at.instant.secondsSinceEpoch)
            #expect(starts == expected.filter { $0 > from && $0 < to }, "\(day) days after DTSTART")
        }
    }

    /// The master with the highest SEQUENCE wins; several VCALENDARs in one file all count.
    @Test func sequenceAndSeveralCalendarsInOneFile() throws {
        let text = calendar(
            event("UID:tea", "SEQUENCE:2", "DTSTART:20260701T150000Z", "SUMMARY:Tea at three"),
            event("UID:tea", "SEQUENCE:1", "DTSTART:20260701T140000Z", "SUMMARY:Tea at two"))
            + calendar(event("DTSTART:20260701T150000Z", "SUMMARY:Biscuits"))
        let schedule = try schedule(text, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T14:30:00Z") == [])
        #expect(schedule.texts(at: "2026-07-01T15:30:00Z") == ["Biscuits", "Tea at three"])
    }

    /// `DTSTART;VALUE=DATE:20251222T000000` (seen from some producers) is read as a date.
    @Test func lenientDateWithTime() throws {
        let schedule = try schedule(calendar(event("DTSTART;VALUE=DATE:20251222T000000", "SUMMARY:Party")))
        #expect(schedule.texts(at: "2025-12-22T23:00:00+01:00") == ["Party"])
        #expect(schedule.feeds.first?.problems.first?.message.contains("VALUE=DATE") == true)
    }
}
