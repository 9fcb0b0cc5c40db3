import TestSupport
import Support
import Testing

@testable import Schedule

/// What a message says, in which order, and the display alarms leading up to events.
@Suite(.temporaryFolders) @ICalActor struct MessageTests {
    @Test func textPriorityOrderAndDuplicates() throws {
        let feed = calendar(
            event("DTSTART:20260701T080000Z", "DTEND:20260701T120000Z", "SUMMARY:B later start"),
            event("DTSTART:20260701T070000Z", "DTEND:20260701T120000Z", "SUMMARY:Zebra early start"),
            event("DTSTART:20260701T090000Z", "DTEND:20260701T120000Z", "SUMMARY:Urgent", "PRIORITY:1"),
            event("DTSTART:20260701T090000Z", "DTEND:20260701T120000Z", "SUMMARY:Low", "PRIORITY:9"),
            event("DTSTART:20260701T090000Z", "DTEND:20260701T120000Z", "SUMMARY:Calendar entry",
                  "X-MARQUEE-TEXT:Marquee text wins"),
            event("DTSTART:20260701T080000Z", "DTEND:20260701T120000Z", "SUMMARY:B later start"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T10:00:00Z") == [
            "Urgent", "Zebra early start", "B later start", "Marquee text wins", "Low",
        ])
    }

    @Test func colourEffectAndJSONFields() throws {
        let feed = calendar(
            event("UID:cake", "DTSTART;VALUE=DATE:20260303", "SUMMARY:Cake", "COLOR:turquoise",
                  "X-MARQUEE-EFFECT:dance", "PRIORITY:2"),
            header: ["COLOR:#112233"])
        let schedule = try schedule(feed, zone: "Europe/Berlin")
        let message = try #require(schedule.messages(at: instant("2026-03-03T12:00:00+01:00")).first)
        #expect(message.color == Colour(red: 0x40, green: 0xE0, blue: 0xD0))
        #expect(message.effect == .dance)
        #expect(message.uid == "cake")
        #expect(message.kind == .event)
        #expect(message.priority == 2)
        #expect(message.start.rfc3339 == "2026-03-03T00:00:00+01:00")
        #expect(message.end.rfc3339 == "2026-03-04T00:00:00+01:00")
        #expect(message.source.hasSuffix("/feed.ics"))
        let plain = try ScheduleTests.schedule(calendar(event("DTSTART;VALUE=DATE:20260303", "SUMMARY:Cake"), header: ["COLOR:#112233"]))
        #expect(plain.messages(at: instant("2026-03-03T12:00:00+01:00")).first?.color?.description == "#112233")
    }

    /// `{age}` counts years from the first occurrence, `{start}`/`{end}` are local clock
    /// times, `{date}` the local date; unknown placeholders stay as written.
    @Test func placeholders() throws {
        let feed = calendar(
            event("DTSTART;VALUE=DATE:19500303", "RRULE:FREQ=YEARLY", "SUMMARY:Johnny turns {age} today! {unknown}"),
            event("DTSTART;TZID=Europe/Berlin:20260303T093000", "DTEND;TZID=Europe/Berlin:20260303T101500",
                  "SUMMARY:Dentist {start}–{end} on {date}"))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-03-03T09:45:00+01:00") == [
            "Johnny turns 76 today! {unknown}", "Dentist 09:30–10:15 on Tuesday, 3 March",
        ])
    }

    /// An alarm shows its DESCRIPTION from its trigger until the event starts; a
    /// trigger after the start shows until the event ends; RELATED=END counts from the end.
    @Test func displayAlarms() throws {
        let alarm = { (trigger: String, text: String) in
            "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER\(trigger)\r\nDESCRIPTION:\(text)\r\nEND:VALARM"
        }
        let feed = calendar(
            event("DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Dentist at {start}",
                  alarm(":-PT30M", "Leave for the dentist: it is at {start}"),
                  alarm(";RELATED=END:-PT10M", "Dentist ends soon"),
                  alarm(":PT5M", "You should be at the dentist"),
                  "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT1H\r\nEND:VALARM"),
            event("DTSTART:20260702T100000Z", "SUMMARY:Absolute",
                  alarm(";VALUE=DATE-TIME:20260702T080000Z", "Absolute alarm")))
        let schedule = try schedule(feed, zone: "UTC")
        // The audio alarm, which has no text, shows the event's.
        #expect(schedule.texts(at: "2026-07-01T09:00:00Z") == ["Dentist at 10:00"])
        #expect(schedule.texts(at: "2026-07-01T09:30:00Z") == ["Dentist at 10:00", "Leave for the dentist: it is at 10:00"])
        #expect(schedule.texts(at: "2026-07-01T10:06:00Z") == ["Dentist at 10:00", "You should be at the dentist"])
        #expect(schedule.texts(at: "2026-07-01T10:55:00Z") == [
            "Dentist at 10:00", "You should be at the dentist", "Dentist ends soon",
        ])
        let kinds = schedule.messages(at: instant("2026-07-01T09:45:00Z")).map(\.kind)
        #expect(kinds == [.alarm, .alarm])
        #expect(schedule.texts(at: "2026-07-02T09:00:00Z") == ["Absolute alarm"])
    }

    /// An event of no length (DTEND = DTSTART) is shown for one minute, and `messages`, the next
    /// change and the agenda all say so (the screen kept it until the next change).
    @Test func eventOfNoLengthIsShownForAMinute() throws {
        let schedule = try schedule(calendar(event(
            "DTSTART:20260701T080000Z", "DTEND:20260701T080000Z", "SUMMARY:Take the pills")), zone: "UTC")
        let message = try #require(schedule.messages(at: instant("2026-07-01T08:00:30Z")).first)
        #expect(message.end.rfc3339 == "2026-07-01T08:01:00+00:00")
        #expect(schedule.texts(at: "2026-07-01T08:01:00Z") == [])
        #expect(schedule.nextChange(after: instant("2026-07-01T08:00:00Z")) == instant("2026-07-01T08:01:00Z"))
        let agenda = schedule.agenda(from: instant("2026-07-01T07:00:00Z"), to: instant("2026-07-01T09:00:00Z"))
        #expect(agenda.entries.map(\.at.rfc3339) == ["2026-07-01T08:00:00+00:00", "2026-07-01T08:01:00+00:00"])
    }

    /// Google's placeholder reminder text, and an empty one, show the event's title instead.
    @Test func placeholderReminderShowsTheTitle() throws {
        let alarm = { (text: String) in
            "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT30M\r\nDESCRIPTION:\(text)\r\nEND:VALARM"
        }
        let feed = calendar(
            event("DTSTART:20260701T100000Z", "SUMMARY:Physiotherapy", alarm("This is an event reminder")),
            event("DTSTART:20260701T120000Z", "SUMMARY:Lunch with Anna", alarm("")))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T09:45:00Z") == ["Physiotherapy"])
        #expect(schedule.texts(at: "2026-07-01T11:45:00Z") == ["Lunch with Anna"])
        #expect(schedule.messages(at: instant("2026-07-01T11:45:00Z")).map(\.kind) == [.alarm])
    }

    /// The placeholder each calendar app writes into a reminder nobody named shows the event's
    /// title instead; a reminder with words of its own keeps them.
    @Test(arguments: [
        ("Google Calendar", "This is an event reminder"), ("Nextcloud Calendar", "This is an event reminder."),
        ("Outlook", "Reminder"), ("Proton Calendar", "Reminder"), ("Fastmail", "reminder"),
        ("Apple Calendar", "Event reminder"), ("Apple Calendar on iOS", "Alert"), ("Apple Calendar, older macOS", "Alarm"),
        ("Thunderbird", "Default Mozilla Description"), ("DAVx⁵", "Notification"),
    ])
    func eachAppsPlaceholderShowsTheTitle(app: String, placeholder: String) throws {
        let alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT30M\r\nDESCRIPTION:\(placeholder)\r\nEND:VALARM"
        let feed = calendar(
            event("DTSTART:20260701T100000Z", "SUMMARY:Physiotherapy", alarm),
            event("DTSTART:20260701T120000Z", "SUMMARY:Lunch", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT30M\r\n"
                + "DESCRIPTION:Reminder: bring the photos\r\nEND:VALARM"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T09:45:00Z") == ["Physiotherapy"], "\(app)")
        #expect(schedule.texts(at: "2026-07-01T11:45:00Z") == ["Reminder: bring the photos"])
    }

    /// Alarms of a weekly series come before every occurrence, including a moved one.
    @Test func alarmOnRecurringSeries() throws {
        let alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT30M\r\nDESCRIPTION:Leave now\r\nEND:VALARM"
        let feed = calendar(event(
            "DTSTART;TZID=Europe/Berlin:20260106T100000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY", "SUMMARY:Physio",
            alarm))
        let schedule = try schedule(feed)
        #expect(schedule.texts(at: "2026-11-24T09:40:00+01:00") == ["Leave now"])
        #expect(schedule.texts(at: "2026-11-24T09:29:59+01:00") == [])
    }

    /// Line breaks, tabs and control characters in a SUMMARY do not reach the ticker.
    @Test func textIsOneCleanLine() throws {
        let feed = calendar(event("DTSTART:20260701T100000Z", "SUMMARY:  Line one\\nline\ttwo\u{7}  "))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T10:00:00Z") == ["Line one line two"])
    }

    /// A letter with 400,000 combining marks keeps 30 of them (HarfBuzz spent minutes shaping
    /// it at every picture); an emoji sequence and text in scripts with marks stay whole.
    @Test func aCharacterKeepsAtMostThirtyMarks() throws {
        let piled = "Z" + String(repeating: "\u{301}", count: 400_000) + " tea"
        let feed = calendar(event("DTSTART:20260701T100000Z", "SUMMARY:" + piled),
                            event("DTSTART:20260701T100000Z", "SUMMARY:नमस्ते 👨‍👩‍👧‍👦 Ünïcödé"))
        let schedule = try schedule(feed, zone: "UTC")
        let texts = schedule.texts(at: "2026-07-01T10:00:00Z")
        #expect(texts.contains("Z" + String(repeating: "\u{301}", count: 30) + " tea"))
        #expect(texts.contains("नमस्ते 👨‍👩‍👧‍👦 Ünïcödé"))
    }

    /// Explicit direction overrides, embeddings and isolates go: the glass showed "Pay 1000
    /// EUR" where the status and the journal said "0001".
    @Test func directionOverridesGo() throws {
        let feed = calendar(event("DTSTART:20260701T100000Z", "SUMMARY:Pay \u{202E}0001\u{202C} EUR \u{2067}x\u{2069}"))
        let schedule = try schedule(feed, zone: "UTC")
        #expect(schedule.texts(at: "2026-07-01T10:00:00Z") == ["Pay 0001 EUR x"])
    }
}

/// When the active set changes, and the agenda of changes.
@Suite(.temporaryFolders) @ICalActor struct ChangeTests {
    @Test func nextChangeAndAgenda() throws {
        let feed = calendar(
            event("DTSTART;TZID=Europe/Berlin:20260101T210000", "DTEND;TZID=Europe/Berlin:20260102T070000",
                  "RRULE:FREQ=DAILY", "SUMMARY:Night"),
            event("DTSTART;VALUE=DATE:19900303", "RRULE:FREQ=YEARLY", "SUMMARY:Birthday"))
        let schedule = try schedule(feed)
        #expect(schedule.nextChange(after: instant("2026-11-22T03:00:00+01:00")) == instant("2026-11-22T07:00:00+01:00"))
        #expect(schedule.nextChange(after: instant("2026-11-22T07:00:00+01:00")) == instant("2026-11-22T21:00:00+01:00"))
        let agenda = schedule.agenda(from: instant("2027-03-02T12:00:00+01:00"), to: instant("2027-03-04T12:00:00+01:00"))
        let lines = agenda.entries.map { "\($0.at.wallClock.clock()) \($0.change.rawValue) \($0.message.text)" }
        #expect(lines == [
            "21:00 start Night", "00:00 start Birthday", "07:00 end Night", "21:00 start Night",
            "00:00 end Birthday", "07:00 end Night",
        ])
    }

    /// A load expands only its day: walking from change to change past it finds what an
    /// agenda, which expands its whole stretch at once, finds.
    @Test func walkingPastTheLoadedDayMissesNothing() throws {
        let folder = try feedFolder(["f.ics": calendar(
            event("DTSTART;TZID=Europe/Berlin:20261103T093000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;BYDAY=TU,FR",
                  "SUMMARY:Physio"),
            event("DTSTART;VALUE=DATE:19500301", "RRULE:FREQ=YEARLY", "SUMMARY:Birthday"),
            event("DTSTART:20261224T170000Z", "DURATION:PT2H", "SUMMARY:Carols"))])
        let start = instant("2026-11-23T12:00:00+01:00")
        let end = instant("2027-03-10T00:00:00+01:00")
        let walking = try ScheduleState(displayZone: "Europe/Berlin")
        walking.load([folder], around: start)
        var changes: [Instant] = []
        while let next = walking.nextChange(after: changes.last ?? start), next < end { changes.append(next) }
        let whole = try ScheduleState(displayZone: "Europe/Berlin")
        whole.load([folder], around: start)
        let agenda = whole.agenda(from: start, to: end).entries.filter { $0.change != .active }.map(\.at.instant)
        #expect(changes == agenda.reduce(into: []) { if $0.last != $1 { $0.append($1) } })
        #expect(changes.count == 2 * (16 + 15) + 2 + 2)  // 16 Tuesdays and 15 Fridays, the birthday, carols
    }

    /// A yearly birthday is found as the next change months ahead; nothing at all gives nil.
    @Test func nextChangeFarAhead() throws {
        let schedule = try schedule(calendar(event("DTSTART;VALUE=DATE:19900303", "RRULE:FREQ=YEARLY", "SUMMARY:B")))
        #expect(schedule.nextChange(after: instant("2026-03-05T00:00:00Z")) == instant("2027-03-03T00:00:00+01:00"))
        let empty = try ScheduleTests.schedule(calendar(event("DTSTART:20200101T100000Z", "SUMMARY:Past")))
        #expect(empty.nextChange(after: instant("2026-01-01T00:00:00Z")) == nil)
    }
}

/// Times typed on the command line.
@Suite struct TimeArgumentTests {
    @Test(arguments: [
        ("2026-12-24T21:30:00+01:00", TimeArgument.instant(Instant(secondsSinceEpoch: 1_798_144_200))),
        ("2026-12-24T20:30:00Z", .instant(Instant(secondsSinceEpoch: 1_798_144_200))),
        ("2026-12-24T21:30:00.250+01:00", .instant(Instant(secondsSinceEpoch: 1_798_144_200))),
        ("2026-12-24 21:30", .local(CivilDateTime(2026, 12, 24, 21, 30))),
        ("2026-12-24T21:30:15", .local(CivilDateTime(2026, 12, 24, 21, 30, 15))),
        ("2026-12-24", .local(CivilDateTime(2026, 12, 24))),
    ])
    func accepted(text: String, expected: TimeArgument) {
        #expect(TimeArgument(text) == expected)
    }

    @Test(arguments: ["", "tomorrow", "2026-13-01", "2026-02-30 10:00", "2026-12-24 25:00", "2026-12-24T21:30+1", "2026-12-24 21:30 x"])
    func rejected(text: String) {
        #expect(TimeArgument(text) == nil)
    }

    @Test func civilCalendarArithmetic() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            #expect(CivilDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekday == 4)
        #expect(CivilDate(year: 2026, month: 11, day: 22).weekday == 0)
        #expect(CivilDateTime(secondsAsUTC: -1).rfc3339(utcOffset: 0) == "1969-12-31T23:59:59+00:00")
    }
}
