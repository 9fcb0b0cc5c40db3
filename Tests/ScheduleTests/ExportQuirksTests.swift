import TestSupport
import Testing

@testable import Schedule

/// What real exports (Google, Outlook, holiday calendars from public sites) write that RFC
/// 5545 does not quite allow: read the way calendar apps read it, with what was repaired said.
@Suite(.temporaryFolders) @ICalActor struct ExportQuirksTests {
    /// Each quirk, one event: it shows at `shownAt`, and the warning (if any) names its line.
    @Test(arguments: [
        (["DTSTART:20261124"], "2026-11-24T20:00:00Z", nil as String?),
        (["DTSTART;VALUE=DATE:20261124", "DTEND;VALUE=DATE:20261124"], "2026-11-24T20:00:00Z", nil),
        (["DTSTART:20261124T080000Z", "RRULE:"], "2026-11-24T08:30:00Z", "No value for RRULE"),
        (["DTSTART:20261120T080000Z", "DURATION:PT10H", "RRULE:FREQ=DAILY;COUNT=-1;UNTIL=20261130T000000Z"],
         "2026-11-24T10:00:00Z", "invalid COUNT; read without it"),
        (["DTSTART:20261124T080000Z", "DTEND:20261124T070000Z"], "2026-11-24T08:30:00Z", "ends before it starts"),
        (["DTSTART:20261117T080000Z", "DURATION:PT10H", "RRULE:FREQ=WEEKLY", "RECURRENCE-ID:20261117T080000Z"],
         "2026-11-24T10:00:00Z", "read as the series"),
    ])
    func quirk(lines: [String], shownAt: String, warning: String?) throws {
        let schedule = try schedule(calendar(event(["UID:q", "SUMMARY:Quirk"] + lines)), zone: "UTC")
        let status = try #require(schedule.feeds.first)
        #expect(status.state == .loaded)
        #expect(schedule.texts(at: shownAt) == ["Quirk"])
        if let warning {
            #expect(status.problems.count == 1 && status.problems[0].message.contains(warning), "\(status.problems)")
            #expect((4...9).contains(status.problems[0].line ?? 0))
        } else {
            #expect(status.problems.isEmpty, "\(status.problems)")
        }
    }

    /// Google writes an empty DESCRIPTION and LOCATION on every event: forty events said
    /// "80 warning(s)" of libical's raw text, burying real problems in check, the status, the
    /// journal and MQTT. An empty property marquee does not use is not worth a word; an empty
    /// one it uses (RRULE, SUMMARY) still is.
    @Test func emptyPropertiesAsGoogleWritesThemAreNoProblem() throws {
        let events = (0..<40).map { index in
            event(["UID:g\(index)", "DTSTART:20261124T\(String(format: "%02d", index % 24))0000Z", "DURATION:PT1H",
                   "SUMMARY:Event \(index)", "DESCRIPTION:", "LOCATION:", "CLASS:PUBLIC", "STATUS:CONFIRMED", "TRANSP:OPAQUE"])
        }
        let schedule = try schedule(calendar(events + [event(["UID:e", "DTSTART:20261124T080000Z", "SUMMARY:", "RRULE:"])]),
                                    zone: "UTC")
        let status = try #require(schedule.feeds.first)
        #expect(status.state == .loaded && status.eventCount == 40)
        #expect(status.problems.map(\.message).allSatisfy { $0.contains("SUMMARY") || $0.contains("RRULE") }, "\(status.problems)")
        #expect(status.problems.count == 3, "\(status.problems)")
    }

    /// A birthday whose year is not known — Apple's `X-APPLE-OMIT-YEAR` (the year written is a
    /// stand-in), a yearly all-day date before 1900 — has no age: `{age}` is left out with its
    /// ordinal ending ("she turns 423" before), and the file says so once. A known year counts.
    @Test(arguments: [
        (["DTSTART;VALUE=DATE;X-APPLE-OMIT-YEAR=1604:16040305", "RRULE:FREQ=YEARLY"], "Happy {age}th birthday, Anna!",
         "Happy birthday, Anna!", true),
        (["DTSTART;VALUE=DATE:18900305", "RRULE:FREQ=YEARLY"], "Grandpa turns {age} today!", "Grandpa turns today!", true),
        (["DTSTART;VALUE=DATE;X-APPLE-OMIT-YEAR=1604:16040305", "RRULE:FREQ=YEARLY"], "Anna's birthday",
         "Anna's birthday", false),
        (["DTSTART;VALUE=DATE:19500305", "RRULE:FREQ=YEARLY"], "Anna turns {age} today!", "Anna turns 77 today!", false),
    ])
    func birthdaysWithoutAYear(lines: [String], summary: String, shown: String, warned: Bool) throws {
        let schedule = try schedule(calendar(event(["UID:birthday", "SUMMARY:\(summary)"] + lines)), zone: "UTC")
        #expect(schedule.texts(at: "2027-03-05T12:00:00Z") == [shown])
        let warnings = schedule.feeds.first?.problems.map(\.message) ?? []
        #expect(warnings == (warned ? ["VEVENT \"birthday\": the year of its date (\(lines[0].suffix(8).prefix(4))) stands for "
                                        + "an unknown year, so {age} is left out"] : []), "\(warnings)")
    }

    /// A day without a year as vCard writes a birthday (`--0305`, `--03-05`, refused by libical)
    /// comes back every year, with or without an RRULE, and has no age; 29 February is kept.
    @Test(arguments: [
        (["DTSTART;VALUE=DATE:--0305", "RRULE:FREQ=YEARLY"], "2027-03-05"),
        (["DTSTART;VALUE=DATE:--03-05"], "2027-03-05"),
        (["DTSTART:--0305"], "2027-03-05"),
        (["DTSTART;VALUE=DATE:--0229"], "2028-02-29"),
    ])
    func vCardDaysWithoutAYear(lines: [String], day: String) throws {
        let schedule = try schedule(calendar(event(["UID:anna", "SUMMARY:Anna turns {age} today!"] + lines)), zone: "UTC")
        #expect(schedule.texts(at: "\(day)T12:00:00Z") == ["Anna turns today!"])
        #expect(schedule.texts(at: "2026-11-25T12:00:00Z") == [])
        let written = String(lines[0].split(separator: ":").last!)
        #expect(schedule.feeds.first?.problems.map(\.message)
            == ["VEVENT \"anna\": its date (\(written)) has no year, so {age} is left out"])
    }

    /// Other values libical refuses in DTSTART are still told as libical's complaint.
    @Test(arguments: ["--1305", "--0230", "--03055", "---0305", "--03-5"])
    func notADayWithoutAYear(value: String) throws {
        let schedule = try schedule(calendar(event(["UID:x", "SUMMARY:Odd", "DTSTART;VALUE=DATE:\(value)"])), zone: "UTC")
        let messages = schedule.feeds.first?.problems.map(\.message) ?? []
        #expect(messages.contains { $0.contains("has no DTSTART") }, "\(messages)")
    }

    /// The repaired COUNT leaves UNTIL in force: nothing after 30 November.
    /// Text is shown on one line: Unicode's line and paragraph separators are spaces too; a
    /// title with nothing visible in it (zero-width spaces, a word joiner) is no title.
    @Test func textOnOneLineAndInvisibleText() throws {
        let schedule = try schedule(calendar(
            event(["UID:a", "DTSTART:20261124T080000Z", "SUMMARY:Line\u{2028}break\u{2029}here"]),
            event(["UID:b", "DTSTART:20261124T080000Z", "SUMMARY:\u{200B}\u{2060} \u{FEFF}"])), zone: "UTC")
        #expect(schedule.texts(at: "2026-11-24T08:30:00Z") == ["Line break here"])
        #expect(schedule.feeds.first?.problems.map(\.message) == ["VEVENT \"b\" has no SUMMARY or X-MARQUEE-TEXT; ignored"])
    }

    @Test func repairedRuleKeepsItsUntil() throws {
        let schedule = try schedule(calendar(event(
            "UID:c", "SUMMARY:Course", "DTSTART:20261120T080000Z", "RRULE:FREQ=DAILY;COUNT=-1;UNTIL=20261130T000000Z")),
            zone: "UTC")
        #expect(schedule.texts(at: "2026-11-29T08:30:00Z") == ["Course"])
        #expect(schedule.texts(at: "2026-11-30T08:30:00Z") == [])
    }
}
