import TestSupport
import Testing

@testable import Schedule

/// DST, zones and the RFC 5545 §3.3.5 wall-clock rules.
@Suite(.temporaryFolders) @ICalActor struct TimeZoneTests {
    static let night = "It's night-time right now. You should be in bed."

    /// The nightly 21:00–07:00 reminder is active at 03:00 on both DST nights, ends at 07:00
    /// local time the morning after, and is not active in the afternoon.
    @Test(arguments: [
        ("Europe/Berlin", "2026-03-29T03:00:00+02:00", "2026-03-29T06:59:59+02:00", "2026-03-29T07:00:00+02:00"),
        ("Europe/Berlin", "2026-10-25T03:00:00+01:00", "2026-10-25T06:59:59+01:00", "2026-10-25T07:00:00+01:00"),
        ("America/New_York", "2026-03-08T03:00:00-04:00", "2026-03-08T06:59:59-04:00", "2026-03-08T07:00:00-04:00"),
        ("America/New_York", "2026-11-01T03:00:00-05:00", "2026-11-01T06:59:59-05:00", "2026-11-01T07:00:00-05:00"),
    ])
    func nightlyReminderAcrossDSTNights(zone: String, atThree: String, beforeSeven: String, atSeven: String) throws {
        let feed = calendar(event(
            "DTSTART;TZID=\(zone):20250101T210000", "DTEND;TZID=\(zone):20250102T070000", "RRULE:FREQ=DAILY",
            "SUMMARY:\(Self.night)"))
        let schedule = try schedule(feed, zone: zone)
        #expect(schedule.texts(at: atThree) == [Self.night])
        #expect(schedule.texts(at: beforeSeven) == [Self.night])
        #expect(schedule.texts(at: atSeven) == [])
        #expect(schedule.texts(at: "2026-06-15T15:00:00Z") == [])
    }

    /// A POSIX `TZ` rule (busybox, Buildroot, OpenWrt set one instead of naming a zone) gives
    /// the offsets of the zone it describes, hour by hour across years, both hemispheres, a
    /// change at midnight and half-hour offsets; a rule marquee cannot honour is no zone.
    @Test(arguments: [
        ("CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Berlin"),
        ("EST5EDT,M3.2.0,M11.1.0", "America/New_York"),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "Australia/Sydney"),
        ("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", nil),
        ("<+0530>-5:30", "Asia/Kolkata"),
        ("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "Australia/Lord_Howe"),
        ("GMT0BST,M3.5.0/1,M10.5.0", "Europe/London"),
    ] as [(String, String?)])
    func posixRulesGiveTheirZonesOffsets(rule: String, zone: String?) throws {
        guard let zone else {
            #expect(SystemZones.zone(named: rule) == nil)
            return
        }
        let posix = try #require(SystemZones.zone(named: rule))
        let iana = try #require(SystemZones.zone(named: zone))
        #expect(posix.name == rule)
        var instant = CivilDateTime(2024, 1, 1).secondsAsUTC
        var differences: [String] = []
        while instant < CivilDateTime(2029, 1, 1).secondsAsUTC {
            if posix.offset(atUTC: instant) != iana.offset(atUTC: instant) {
                differences.append(CivilDateTime(secondsAsUTC: instant).rfc3339(utcOffset: 0))
            }
            instant += 1800
        }
        #expect(differences.isEmpty, "\(differences.prefix(5))")
        #expect(posix.instant(of: CivilDateTime(2026, 7, 1, 12)) == iana.instant(of: CivilDateTime(2026, 7, 1, 12)))
    }

    @Test(arguments: ["CET-1CEST", "CET-1CEST,J60,J300", "CET-1CEST,M3.5.0,M10.5.0/25", "CET-1CEST,M13.5.0,M10.5.0",
                      "CE-1", "<+0530", "CET-25", "CET-1CEST,M3.5.0", "CET-1x"])
    func posixRulesMarqueeCannotHonourAreNoZone(rule: String) {
        #expect(SystemZones.zone(named: rule) == nil)
    }

    /// Far-future times follow the zone's yearly rules like near ones (summer time in July,
    /// the switch on the last Sunday of March), and an event ending in 4050 loads: libical
    /// is never asked past 2400, where it expanded the zone again on every question (15 s).
    @Test func farFutureYearsKeepTheZonesRules() throws {
        let berlin = try #require(SystemZones.zone(named: "Europe/Berlin"))
        #expect(berlin.zoned(CivilDateTime(4050, 7, 1).secondsAsUTC).utcOffset == 7200)
        #expect(berlin.zoned(CivilDateTime(4050, 1, 1).secondsAsUTC).utcOffset == 3600)
        #expect(berlin.zoned(CivilDateTime(2400, 7, 1).secondsAsUTC).utcOffset == 7200)
        // 31 March 4052 is a Sunday, the last of the month: clocks go forward at 01:00 UTC.
        let change = CivilDateTime(4052, 3, 31, 1).secondsAsUTC
        #expect(berlin.zoned(change - 1).utcOffset == 3600)
        #expect(berlin.zoned(change).utcOffset == 7200)
        let schedule = try schedule("""
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:long
            DTSTART;TZID=Europe/Berlin:20250101T210000
            DTEND;TZID=Europe/Berlin:40500202T120000
            RRULE:FREQ=DAILY
            SUMMARY:A very long evening
            END:VEVENT
            END:VCALENDAR
            """)
        #expect(schedule.texts(at: "2026-11-24T12:00:00+01:00") == ["A very long evening"])
    }

    /// A daily 02:30 event on spring-forward day happens at 03:30 summer time (the offset
    /// from before the gap) and is back at 02:30 the next day; nothing drifts.
    @Test func gapInstanceShiftsForwardAndLaterOnesDoNotDrift() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20260327T023000", "DURATION:PT10M", "RRULE:FREQ=DAILY;COUNT=5",
            "SUMMARY:Pill"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-03-28T02:30:00+01:00") == ["Pill"])
        #expect(schedule.texts(at: "2026-03-29T01:30:00Z") == ["Pill"])  // 03:30 CEST
        #expect(schedule.texts(at: "2026-03-30T02:30:00+02:00") == ["Pill"])
        #expect(schedule.texts(at: "2026-03-30T03:30:00+02:00") == [])
        #expect(schedule.nextChange(after: instant("2026-03-29T00:00:00Z")) == instant("2026-03-29T01:30:00Z"))
    }

    /// 02:15–03:00 on spring-forward day: the start shifts to 03:15, after the wall-clock end,
    /// so the instance keeps its exact 45 minutes instead of vanishing at zero length.
    @Test func gapInstanceEndingBeforeItsShiftedStartKeepsItsLength() throws {
        let feed = calendar(event(
            "DTSTART;TZID=America/New_York:20260306T021500", "DTEND;TZID=America/New_York:20260306T030000",
            "RRULE:FREQ=DAILY;COUNT=4", "SUMMARY:Night round"))
        let schedule = try schedule(feed, zone: "America/New_York")
        let message = try #require(schedule.messages(at: instant("2026-03-08T03:30:00-04:00")).first)
        #expect(message.start.rfc3339 == "2026-03-08T03:15:00-04:00")
        #expect(message.end.rfc3339 == "2026-03-08T04:00:00-04:00")
        #expect(schedule.texts(at: "2026-03-09T02:30:00-04:00") == ["Night round"])
        #expect(schedule.texts(at: "2026-03-09T03:00:00-04:00") == [])
    }

    /// A one-off time in the autumn overlap means its first occurrence (summer time).
    @Test func repeatedWallTimeMeansFirstOccurrence() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20261025T023000", "DURATION:PT20M", "SUMMARY:Fold"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-10-25T00:30:00Z") == ["Fold"])
        #expect(schedule.texts(at: "2026-10-25T01:30:00Z") == [])
    }

    /// A one-off time inside the spring gap uses the offset from before the gap.
    @Test func oneOffTimeInGap() throws {
        let feed = calendar(event("DTSTART;TZID=America/New_York:20260308T023000", "SUMMARY:Gap"))
        let schedule = try schedule(feed, zone: "America/New_York")
        let message = try #require(schedule.messages(at: instant("2026-03-08T07:30:00Z")).first)
        #expect(message.start.rfc3339 == "2026-03-08T03:30:00-04:00")
        #expect(message.end.rfc3339 == "2026-03-08T04:30:00-04:00")
    }

    /// A weekly 09:00 series created in winter stays at 09:00 local in summer.
    @Test func weeklySeriesKeepsLocalTimeAcrossDST() throws {
        let feed = calendar(event(
            "DTSTART;TZID=Australia/Sydney:20260105T090000", "DTEND;TZID=Australia/Sydney:20260105T100000",
            "RRULE:FREQ=WEEKLY", "SUMMARY:Choir"))
        let schedule = try schedule(feed, zone: "Australia/Sydney")
        #expect(schedule.texts(at: "2026-01-05T09:30:00+11:00") == ["Choir"])
        #expect(schedule.texts(at: "2026-04-06T09:30:00+10:00") == ["Choir"])  // after DST ended on 5 April
        #expect(schedule.texts(at: "2026-04-06T08:30:00+10:00") == [])
    }

    /// A New York event seen from a display in Chicago keeps its absolute time.
    @Test func eventInAnotherZone() throws {
        let feed = calendar(event(
            "DTSTART;TZID=America/New_York:20260701T100000", "DTEND;TZID=America/New_York:20260701T110000",
            "RRULE:FREQ=WEEKLY", "SUMMARY:Call Aunt May"))
        let schedule = try schedule(feed, zone: "America/Chicago")
        let message = try #require(schedule.messages(at: instant("2026-07-08T14:30:00Z")).first)
        #expect(message.start.rfc3339 == "2026-07-08T09:00:00-05:00")
    }

    /// Windows zone names without a VTIMEZONE, Outlook display names and vendor prefixes.
    @Test(arguments: [
        "W. Europe Standard Time", "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
        "/mozilla.org/20050126_1/Europe/Berlin", "\"Europe/Berlin\"",
    ])
    func nonIANAZoneNames(tzid: String) throws {
        let quoted = tzid.contains(",") || tzid.contains(":") ? "\"\(tzid)\"" : tzid
        let feed = calendar(event("DTSTART;TZID=\(quoted):20260701T100000", "SUMMARY:Tea"))
        let schedule = try schedule(feed, zone: "UTC")
        let message = try #require(schedule.messages(at: instant("2026-07-01T08:30:00Z")).first)
        #expect(message.start.rfc3339 == "2026-07-01T08:00:00+00:00")
        #expect(schedule.feeds.flatMap(\.problems).isEmpty)
    }

    /// A TZID nobody knows is reported and read as floating time in the display zone.
    @Test func unknownTZIDIsReportedAndReadAsFloating() throws {
        let feed = calendar(event("DTSTART;TZID=Mars/Olympus_Mons:20260701T100000", "SUMMARY:Rover"))
        let schedule = try schedule(feed, zone: "Europe/Berlin")
        #expect(schedule.texts(at: "2026-07-01T10:30:00+02:00") == ["Rover"])
        let problem = try #require(schedule.feeds.first?.problems.first)
        #expect(problem.severity == .warning)
        #expect(problem.line == 6)
        #expect(problem.message.contains("Mars/Olympus_Mons"))
    }

    /// An in-file VTIMEZONE with a non-IANA name is used for its TZID.
    @Test func embeddedVTIMEZONE() throws {
        let zone = """
            BEGIN:VTIMEZONE\r\nTZID:Customized Time Zone\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
            TZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE
            """
        let feed = calendar(zone, event("DTSTART;TZID=Customized Time Zone:20260701T100000", "SUMMARY:Yoga"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T04:45:00Z") == ["Yoga"])
    }

    /// Floating times use X-WR-TIMEZONE when the calendar names one, else the display's zone.
    @Test func floatingTimes() throws {
        let plain = try schedule(calendar(event("DTSTART:20260701T100000", "SUMMARY:Float")), zone: "Asia/Tokyo")
        #expect(plain.texts(at: "2026-07-01T10:30:00+09:00") == ["Float"])
        let named = try schedule(
            calendar(event("DTSTART:20260701T100000", "SUMMARY:Float"), header: ["X-WR-TIMEZONE:Europe/London"]),
            zone: "Asia/Tokyo")
        #expect(named.texts(at: "2026-07-01T10:30:00+01:00") == ["Float"])
    }

    @Test func unknownDisplayZoneIsAnError() {
        #expect(throws: Schedule.ConfigurationError.self) { try ScheduleState(displayZone: "Nowhere/Land") }
    }
}
