import Foundation
import Support
import TestSupport
import Testing

@testable import Schedule

/// Broken, truncated, huge and malicious feed files: each gives a clear problem naming the
/// file (and line where there is one), nothing hangs, and the other files still count.
@Suite(.temporaryFolders) @ICalActor struct HostileInputTests {
    static let good = calendar(event("UID:good", "DTSTART:20260701T100000Z", "SUMMARY:Good"))
    static let at = "2026-07-01T10:30:00Z"

    /// Loads `good.ics` beside the hostile file and returns the hostile file's status.
    func load(_ name: String, _ bytes: [UInt8]) throws -> (ScheduleState, FeedStatus) {
        let folder = try feedFolder(["good.ics": Self.good])
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        let schedule = try ScheduleState(displayZone: "UTC")
        schedule.load([folder])
        #expect(schedule.texts(at: Self.at).contains("Good"))
        let status = try #require(schedule.feeds.first { $0.path.hasSuffix("/" + name) })
        #expect(status.problems.allSatisfy { $0.path == status.path })
        return (schedule, status)
    }

    func unusable(_ status: FeedStatus, line: Int?, _ words: String) {
        #expect(status.state == .failed(keptLastGood: false))
        #expect(status.problems.contains { $0.severity == .error && $0.line == line && $0.message.contains(words) },
                "\(status.problems)")
    }

    /// Durations whose seconds overflow 32-bit arithmetic crashed the loader (and so every
    /// restart of the display): now a warning on their line, and the event keeps its default length.
    @Test(arguments: [
        ("DURATION:PT1193047H", "DURATION"), ("DURATION:P613566757W", "DURATION"),
        ("DURATION:PT71582789M", "DURATION"), ("RDATE;VALUE=PERIOD:20260701T100000Z/PT1200000H", "RDATE"),
        ("DURATION:P999999999999999999W", "DURATION"),
    ])
    func durationsBeyondAHundredYears(line: String, name: String) throws {
        let text = calendar(event("UID:long", "DTSTART:20260701T100000Z", "SUMMARY:Long", line))
        let (schedule, status) = try load("long.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.contains { $0.line == 8 && $0.message.contains("longer than a hundred years") },
                "\(status.problems)")
        #expect(schedule.texts(at: Self.at).contains("Long"))
    }

    @Test func garbageBytes() throws {
        // The same bytes on every run: a multiplicative hash of the position (Knuth's constant).
        let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: (UInt32($0) &* 2_654_435_761) >> 13) }
        let (_, status) = try load("garbage.ics", bytes)
        unusable(status, line: 1, "not an iCalendar file")
    }

    @Test func emptyFile() throws {
        unusable(try load("empty.ics", []).1, line: nil, "empty")
        unusable(try load("blank.ics", Array(" \r\n\r\n".utf8)).1, line: nil, "empty")
    }

    @Test func truncatedFile() throws {
        let text = calendar(event("UID:a", "DTSTART:20260701T100000Z", "SUMMARY:Complete"),
                            event("UID:b", "DTSTART:20260701T100000Z", "SUMMARY:Cut off"))
        let cut = Array(text.utf8.prefix(text.utf8.count - 40))
        let (schedule, status) = try load("truncated.ics", cut)
        unusable(status, line: 9, "truncated: BEGIN:VEVENT is never closed")
        #expect(status.problems.contains { $0.line == 1 && $0.message.contains("BEGIN:VCALENDAR is never closed") })
        // With no earlier version to fall back on, what could be read is still shown.
        #expect(schedule.texts(at: Self.at).contains("Complete"))
    }

    /// Bytes that are not UTF-8 in a file that has UTF-8 characters: repaired as U+FFFD, said.
    @Test func invalidUTF8IsRepairedAndReported() throws {
        var bytes = Array(calendar(event("UID:u", "DTSTART:20260701T100000Z", "SUMMARY:Caf", "DESCRIPTION:Crème")).utf8)
        bytes.insert(contentsOf: [0xC3, 0x28, 0xFF], at: bytes.firstRange(of: Array("Caf".utf8))!.upperBound)
        let (schedule, status) = try load("latin.ics", bytes)
        #expect(status.state == .loaded)
        #expect(status.problems.first?.line == 7)
        #expect(status.problems.first?.message.contains("invalid UTF-8") == true)
        #expect(schedule.texts(at: Self.at).contains("Caf\u{FFFD}(\u{FFFD}"))
    }

    /// Files as they come from other systems: Latin-1 / Windows-1252 (it showed "Fr\u{FFFD}hst\u{FFFD}ck"),
    /// UTF-16 with or without a byte-order mark and lines ended by CR alone (both refused as
    /// having no BEGIN:VCALENDAR line), and a folded line that splits a UTF-8 character as
    /// Google folds (falsely warned as invalid UTF-8). Each is read, and the first three said.
    @Test func encodingsFromOtherSystemsAreRead() throws {
        let text = calendar(event("UID:e", "DTSTART:20260701T100000Z", "SUMMARY:Frühstück mit Zoë – 5 €"))
        let latin: [UInt8] = text.unicodeScalars.map { $0.value == 0x2013 ? 0x96 : $0.value == 0x20AC ? 0x80 : UInt8($0.value) }
        let utf16LE: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let utf16BE: [UInt8] = text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let carriageReturns = Array(text.replacingOccurrences(of: "\r\n", with: "\r").utf8)
        let files: [(String, [UInt8], String)] = [("latin.ics", latin, "Windows-1252"), ("utf16le.ics", utf16LE, "UTF-16"),
                                                   ("utf16be.ics", utf16BE, "UTF-16 (big-endian)"), ("mac.ics", carriageReturns, "CR alone")]
        for (name, bytes, said) in files {
            let (schedule, status) = try load(name, bytes)
            #expect(status.state == .loaded, "\(name): \(status.problems)")
            #expect(schedule.texts(at: Self.at).contains("Frühstück mit Zoë – 5 €"), "\(name)")
            #expect(status.problems.count == 1 && status.problems[0].message.contains(said), "\(name): \(status.problems)")
        }
        // Folded at 75 octets inside "ü" (C3 | BC), CRLF, then the space that continues it.
        var folded = Array(calendar(event("UID:f", "DTSTART:20260701T100000Z", "SUMMARY:Frühstück")).utf8)
        let split = try #require(folded.firstRange(of: [0xC3, 0xBC])).lowerBound + 1
        folded.insert(contentsOf: [0x0D, 0x0A, 0x20], at: split)
        let (schedule, status) = try load("folded.ics", folded)
        #expect(status.problems.isEmpty, "\(status.problems)")
        #expect(schedule.texts(at: Self.at).contains("Frühstück"))
    }

    /// The file is checked a run of lines at a time: a bad byte far into a big file, and a
    /// valid character at the end of a run, are each told right.
    @Test func invalidUTF8FarIntoABigFileIsFound() throws {
        let events = (0..<3_000).map { event("UID:e\($0)", "DTSTART:20260701T100000Z", "SUMMARY:Café \($0) ✓") }
        let clean = Array(calendar(events.joined(separator: "\r\n")).utf8)
        #expect(clean.count > 3 << 16)
        let (_, cleanStatus) = try load("clean.ics", clean)
        #expect(cleanStatus.problems.isEmpty)
        var bytes = clean
        let marker = try #require(bytes.firstRange(of: Array("Café 2500".utf8)))
        bytes.insert(0xFF, at: marker.upperBound)
        let line = bytes[..<marker.upperBound].count { $0 == 0x0A } + 1
        let (_, status) = try load("big-latin.ics", bytes)
        #expect(status.state == .loaded)
        #expect(status.problems.map(\.line) == [line])
        #expect(status.problems.first?.message.contains("invalid UTF-8") == true)
    }

    /// A BOM, bare LF line endings and folded lines are all fine.
    @Test func bomLineEndingsAndFolding() throws {
        let text = "\u{FEFF}BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:f\nDTSTART:20260701T100000Z\n"
            + "SUMMARY:Folded across\n  three\n\t lines\nEND:VEVENT\nEND:VCALENDAR\n"
        let (schedule, status) = try load("unix.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.isEmpty)
        #expect(schedule.texts(at: Self.at).contains("Folded across three lines"))
    }

    @Test func fiftyMegabyteFileIsRefused() throws {
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 50 << 20)
        unusable(try load("huge.ics", bytes).1, line: nil, "too large (50.0 MB; the limit is 16.0 MB)")
        // One byte over reads as the limit in megabytes: said in bytes.
        let justOver = [UInt8](repeating: UInt8(ascii: "x"), count: (16 << 20) + 1)
        unusable(try load("over.ics", justOver).1, line: nil, "too large (16777217 bytes; the limit is 16777216 bytes)")
    }

    /// A single 10 MB line is folded before libical sees it (its reader is quadratic).
    @Test func tenMegabyteLine() throws {
        let text = calendar(event("UID:l", "DTSTART:20260701T100000Z", "SUMMARY:Long",
                                  "X-ATTACHMENT:" + String(repeating: "A", count: 10 << 20)))
        let (schedule, status) = try load("long.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.first?.line == 8)
        #expect(schedule.texts(at: Self.at).contains("Long"))
    }

    /// Endless and enormous rules are cut off and reported; the answer stays bounded.
    @Test(arguments: [
        ("RRULE:FREQ=SECONDLY", "more than 5000 occurrences"),
        ("RRULE:FREQ=MINUTELY;COUNT=1000000000", "more than 5000 occurrences"),
        ("RRULE:FREQ=MINUTELY;BYSECOND=0,30;COUNT=1000000000", "more than 100000 steps"),
    ])
    func endlessRules(rule: String, words: String) throws {
        let text = calendar(event("UID:endless", "DTSTART:20200101T000000Z", rule, "SUMMARY:Endless"))
        let (schedule, _) = try load("endless.ics", Array(text.utf8))
        _ = schedule.messages(at: instant(Self.at))
        #expect(schedule.nextChange(after: instant(Self.at)) != nil)
        let status = try #require(schedule.feeds.first { $0.path.hasSuffix("/endless.ics") })
        #expect(status.problems.contains { $0.message.contains(words) && $0.line == 4 })
    }

    /// With its time spent, a file's expansion over several windows (an agenda's) stops after
    /// the first (which is always done), says so, the agenda stops there too, and later times
    /// are expanded when asked for.
    @Test func expansionOutOfTimeStopsAfterTheFirstWindow() throws {
        let folder = try feedFolder(["weekly.ics": calendar(event(
            "UID:w", "DTSTART:20260701T100000Z", "RRULE:FREQ=WEEKLY", "SUMMARY:Choir"))])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var limits = ScheduleLimits()
        limits.maximumExpansionSecondsPerFile = 0
        let schedule = try ScheduleState(displayZone: "UTC", limits: limits)
        schedule.load([folder], around: instant(Self.at))
        #expect(schedule.feeds.first?.problems == [])
        let agenda = schedule.agenda(from: instant(Self.at), to: instant("2026-09-01T00:00:00Z"))
        let wednesdays = ["07-08", "07-15", "07-22", "07-29"]
        #expect(agenda.entries.filter { $0.change == .start }.map(\.at.rfc3339)
            == wednesdays.map { "2026-\($0)T10:00:00+00:00" })
        #expect(agenda.stop == .cut(schedule.zoned(instant("2026-07-29T10:30:00Z"))))
        let problems = try #require(schedule.feeds.first?.problems)
        #expect(problems.count == 1)
        #expect(problems.allSatisfy { $0.message.hasPrefix("computing its repeats takes too long here; those after ")
            && $0.message.hasSuffix(" are computed when their time comes") })
        #expect(schedule.texts(at: "2026-07-08T10:30:00Z") == ["Choir"])
        #expect(schedule.texts(at: "2026-12-30T10:30:00Z") == ["Choir"])
        #expect(schedule.nextChange(after: instant("2026-07-29T00:00:00Z")) == instant("2026-07-29T10:00:00Z"))
    }

    /// A schedule in UTC whose files may have five messages ahead, loaded around 10:00 on 1 July.
    private func withBudgetOfFive(_ events: [String]) throws -> ScheduleState {
        var limits = ScheduleLimits()
        limits.maximumActivationsPerFile = 5
        let schedule = try ScheduleState(displayZone: "UTC", limits: limits)
        let folder = try feedFolder(["feed.ics": calendar(events.joined(separator: "\r\n"))])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        schedule.load([folder], around: instant("2026-07-01T10:00:00Z"))
        return schedule
    }

    /// Series that each fill the budget alone share it by time: all of them are shown for a
    /// shorter stretch, never the first in the file alone, and the next stretch is computed
    /// when time reaches it.
    @Test func seriesShareTheBudgetByTime() throws {
        let events = (1...3).map { number in
            event("UID:s\(number)", "DTSTART:20260701T090000Z", "DURATION:PT10M", "RRULE:FREQ=MINUTELY;INTERVAL=10",
                  "SUMMARY:Series \(number)")
        }
        let schedule = try withBudgetOfFive(events)
        let all = ["Series 1", "Series 2", "Series 3"]
        #expect(schedule.texts(at: "2026-07-01T10:00:00Z") == all)
        let problems = try #require(schedule.feeds.first?.problems)
        #expect(problems.count == 1)
        #expect(problems.first?.message.hasPrefix("more than 5 messages from here on; those after 2026-07-01T10:0") == true,
                "\(problems)")
        #expect(schedule.texts(at: "2026-07-01T10:15:00Z") == all)
        #expect(schedule.texts(at: "2026-07-02T13:05:00Z") == all)
    }

    /// Past a file's budget of messages the expansion ends before the first one over it, says
    /// so, and what follows is computed when asked for.
    @Test func messagesOverTheBudgetAreComputedLater() throws {
        let events = (0..<8).map { hour in
            event("UID:e\(hour)", "DTSTART:20260701T1\(hour)0000Z", "DURATION:PT30M", "SUMMARY:Event \(hour)")
        }
        let schedule = try withBudgetOfFive(events)
        #expect(schedule.feeds.first?.problems.map(\.message) == [
            "more than 5 messages from here on; those after 2026-07-01T15:00:00+00:00 are computed when their time comes",
        ])
        #expect(schedule.nextChange(after: instant("2026-07-01T14:30:00Z")) == instant("2026-07-01T15:00:00Z"))
        #expect(schedule.texts(at: "2026-07-01T17:10:00Z") == ["Event 7"])
    }

    /// More messages active at once than the budget: those that started first are shown, and
    /// the others are reported as left out, never claimed to come later.
    @Test func messagesActiveAtOnceOverTheBudgetAreReportedLeftOut() throws {
        let events = (1...8).map { day in
            event("UID:d\(day)", "DTSTART;VALUE=DATE:2026062\(day)", "DTEND;VALUE=DATE:20260710", "SUMMARY:Day \(day)")
        }
        let schedule = try withBudgetOfFive(events)
        #expect(schedule.texts(at: "2026-07-01T10:00:00Z").sorted() == (1...5).map { "Day \($0)" })
        #expect(schedule.feeds.first?.problems.map(\.message) == [
            "more than 5 messages are active at once at 2026-07-01T10:00:00+00:00; only the 5 that started first are "
                + "shown until 2026-07-01T11:00:00+00:00",
        ])
    }

    /// 4,000 weeks overflowed libical's `int` seconds and turned a reminder 77 years ahead into
    /// one 55 years after; beyond a hundred years a TRIGGER is refused on its line.
    @Test func alarmTriggersFarFromTheirEvent() throws {
        func alarm(_ trigger: String) -> String {
            ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Long ago", trigger, "END:VALARM"].joined(separator: "\r\n")
        }
        let text = calendar(event("UID:far", "DTSTART:20260701T100000Z", "SUMMARY:Far", alarm("TRIGGER:-P4000W")),
                            event("UID:farther", "DTSTART:20260701T100000Z", "SUMMARY:Farther", alarm("TRIGGER:-P6000W")))
        let (schedule, status) = try load("far.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.map(\.line) == [21])
        #expect(status.problems.first?.message.contains("TRIGGER is more than a hundred years") == true)
        #expect(schedule.texts(at: "1950-01-01T00:00:00Z") == ["Long ago"])
        #expect(schedule.texts(at: Self.at) == ["Far", "Farther", "Good"])
    }

    /// A message ending after year 9999 ends at the last second of 9999 in the display's zone
    /// (RFC 3339 has four-digit years); one on the last or the first day of the calendar is
    /// shown with its own times, in the agenda too, whatever the zone's offset.
    @Test(arguments: ["UTC", "America/New_York", "Pacific/Kiritimati"])
    func theFirstAndLastYearsKeepTheirTimes(zone: String) throws {
        let text = calendar(
            event("UID:end", "DTSTART:99991229T000000", "DURATION:P4W", "SUMMARY:End of time"),
            event("UID:last", "DTSTART:99991231T120000", "DTEND:99991231T235959", "SUMMARY:Last day"),
            event("UID:first", "DTSTART:00010101T000000", "DTEND:00010101T120000", "SUMMARY:First day"))
        let schedule = try ScheduleTests.schedule(text, zone: zone)
        let noon = schedule.instant(ofLocal: CivilDateTime(9999, 12, 31, 13))
        let messages = schedule.messages(at: noon)
        #expect(messages.map(\.text) == ["End of time", "Last day"])
        let offset = messages[0].start.rfc3339.suffix(6)
        #expect(messages.map(\.end.rfc3339) == ["9999-12-31T23:59:59" + offset, "9999-12-31T23:59:59" + offset])
        #expect(messages[1].start.rfc3339 == "9999-12-31T12:00:00" + offset)
        let lastSecond = schedule.instant(ofLocal: CivilDateTime(9999, 12, 31, 23, 59, 59))
        #expect(schedule.nextChange(after: noon) == lastSecond)
        #expect(schedule.nextChange(after: lastSecond) == nil)
        let lastDay = schedule.agenda(from: schedule.instant(ofLocal: CivilDateTime(9999, 12, 31)), to: noon + 86_400)
        #expect(lastDay.entries.map { "\($0.change) \($0.message.text) \($0.at.wallClock.clock())" } == [
            "active End of time 00:00", "start Last day 12:00", "end Last day 23:59",
        ])
        let first = try #require(schedule.messages(at: schedule.instant(ofLocal: CivilDateTime(1, 1, 1, 10))).first)
        #expect(first.text == "First day")
        #expect(first.start.rfc3339.hasPrefix("0001-01-01T00:00:00") && first.end.rfc3339.hasPrefix("0001-01-01T12:00:00"))
    }

    /// Rules libical's iterator would loop on inside one call (until year 2582, or millions of
    /// seconds per occurrence) are refused before it sees them; DTSTART still shows.
    @Test(arguments: [
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=SECONDLY;BYSECOND=60", "second 60"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30", "matches no date"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=-30", "matches no date"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=HOURLY;BYYEARDAY=60;BYMONTH=1", "matches no date"),
        ("DTSTART;VALUE=DATE:20260701", "RRULE:FREQ=SECONDLY;BYSECOND=25", "all-day"),
        ("DTSTART;VALUE=DATE:20260701", "RRULE:FREQ=DAILY;BYHOUR=9", "all-day"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29", "1461 days apart"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=SECONDLY;BYMONTHDAY=13;BYDAY=FR", "427 days apart"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=MINUTELY;INTERVAL=2;BYMINUTE=3", "never reaches"),
        ("DTSTART:20260701T100000Z", "RRULE:FREQ=HOURLY;BYWEEKNO=20", "BYWEEKNO"),
    ])
    func rulesLibicalCannotIterate(start: String, rule: String, words: String) throws {
        let text = calendar(event("UID:r", start, "SUMMARY:Stuck", rule))
        let (schedule, status) = try load("stuck.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.contains { $0.line == 8 && $0.message.contains(words) && $0.message.contains("only DTSTART") },
                "\(status.problems)")
        #expect(schedule.texts(at: Self.at).contains("Stuck"))
        #expect(!schedule.texts(at: "2026-07-03T10:00:00Z").contains("Stuck"))
    }

    /// Sub-daily rules that libical iterates quickly are not touched by that check.
    @Test(arguments: [
        ("RRULE:FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10", "2026-07-02T09:15:00Z"),
        ("RRULE:FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0,60", "2026-07-02T12:00:00Z"),
        ("RRULE:FREQ=MINUTELY;BYMONTH=12;BYMONTHDAY=24;BYHOUR=18;BYMINUTE=0", "2026-12-24T18:00:00Z"),
        ("RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=FR", "2036-02-29T10:00:00Z"),
    ])
    func subDailyRulesLibicalIterates(rule: String, shownAt: String) throws {
        let text = calendar(event("UID:s", "DTSTART:20260701T100000Z", "DURATION:PT1M", "SUMMARY:Often", rule))
        let (schedule, status) = try load("often.ics", Array(text.utf8))
        // On a slow machine the time budget may end the expansion early (and say so): that is
        // not what is tested here.
        #expect(!status.problems.contains { $0.message.contains("RRULE") }, "\(status.problems)")
        #expect(schedule.texts(at: shownAt).contains("Often"))
    }

    /// A VTIMEZONE changing its offset every second makes libical's zone expansion grow
    /// without bound: the zone is not used, and its events are read as floating times.
    @Test func timeZoneWithASubYearlyRule() throws {
        let zone = ["BEGIN:VTIMEZONE", "TZID:Restless", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                    "RRULE:FREQ=SECONDLY", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:STANDARD", "END:VTIMEZONE"]
        let text = calendar(zone.joined(separator: "\r\n"),
                            event("UID:z", "DTSTART;TZID=Restless:20260701T100000", "SUMMARY:Zoned"))
        let (schedule, status) = try load("restless.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.contains { $0.line == 4 && $0.message.contains("FREQ=SECONDLY") }, "\(status.problems)")
        #expect(schedule.texts(at: Self.at).contains("Zoned"))
    }

    /// 200,000 nested components overflowed libical's recursive parser: refused at the first
    /// component too deep, before libical sees the file.
    @Test func componentsNestedTooDeep() throws {
        let depth = 200_000
        let text = calendar(event("UID:deep", "DTSTART:20260701T100000Z", "SUMMARY:Deep",
                                  String(repeating: "BEGIN:X-NEST\r\n", count: depth)
                                      + String(repeating: "END:X-NEST\r\n", count: depth) + "X-AFTER:1"))
        let (_, status) = try load("deep.ics", Array(text.utf8))
        unusable(status, line: 70, "nested more than 64 levels deep")
    }

    /// A NUL byte would end libical's text there: it is read as a space, with a warning.
    @Test func nulByte() throws {
        let text = calendar(event("UID:n", "DTSTART:20260701T100000Z", "SUMMARY:Nul\u{0}here"),
                            event("UID:m", "DTSTART:20260701T100000Z", "SUMMARY:After"))
        let (schedule, status) = try load("nul.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.map(\.line) == [7])
        #expect(status.problems.first?.message.contains("NUL byte") == true)
        #expect(Set(schedule.texts(at: Self.at)).isSuperset(of: ["Nul here", "After"]))
    }

    @Test func untilBeforeStartLeavesOnlyDTSTART() throws {
        let text = calendar(event("UID:u", "DTSTART:20260701T100000Z", "RRULE:FREQ=DAILY;UNTIL=20200101T000000Z",
                                  "SUMMARY:Once"))
        let (schedule, _) = try load("until.ics", Array(text.utf8))
        #expect(schedule.texts(at: Self.at).contains("Once"))
        #expect(!schedule.texts(at: "2026-07-02T10:30:00Z").contains("Once"))
    }

    @Test func endBeforeStart() throws {
        let text = calendar(event("UID:b", "DTSTART:20260701T100000Z", "DTEND:20260701T090000Z", "SUMMARY:Backwards"))
        let (schedule, status) = try load("backwards.ics", Array(text.utf8))
        #expect(status.problems.first?.line == 7)
        #expect(status.problems.first?.message.contains("ends before it starts") == true)
        #expect(schedule.texts(at: Self.at).contains("Backwards"))
    }

    /// libical's own complaints (X-LIC-ERROR) are warnings with their line: what they are
    /// about is dropped, the rest of the event is read.
    @Test func libicalErrorsAreReportedWithLine() throws {
        let text = calendar(event("UID:x", "DTSTART:20260701T100000Z", "DTEND:bogus", "RRULE:FREQ=DAILY;COUNT=-1",
                                  "SUMMARY:Broken"))
        let (schedule, status) = try load("broken.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(status.problems.filter { $0.severity == .warning }.map(\.line) == [7, 8])
        #expect(schedule.texts(at: Self.at).contains("Broken"))
    }

    /// What real calendars hold and RFC 5545 or RFC 7986 allow is read without complaint
    /// beyond a warning: empty text values, IANA and X- value types, REFRESH-INTERVAL.
    @Test func valuesLibicalComplainsAboutButTheRFCsAllow() throws {
        let text = calendar(event("UID:g", "DTSTART:20260701T100000Z", "SUMMARY:Google", "DESCRIPTION:", "LOCATION:",
                                  "DRESSCODE:casual", "NON-SMOKING;VALUE=BOOLEAN:TRUE", "X-THING;VALUE=X-NAME:value"),
                            header: ["REFRESH-INTERVAL;VALUE=DURATION:P1W"])
        let (schedule, status) = try load("google.ics", Array(text.utf8))
        #expect(status.state == .loaded)
        #expect(!status.problems.contains { $0.severity == .error }, "\(status.problems)")
        #expect(schedule.texts(at: Self.at).contains("Google"))
    }

    /// A file none of whose events can be shown is unusable: its last good version stays.
    @Test func fileWithNoUsableEvent() throws {
        let text = calendar(event("UID:a", "SUMMARY:No start"), event("UID:b", "DTSTART:bogus", "SUMMARY:Bad start"))
        let (_, status) = try load("useless.ics", Array(text.utf8))
        unusable(status, line: nil, "none of the file's 2 event(s) can be shown")
    }

    @Test func fileThatDisappearsWhileBeingRead() throws {
        let folder = try feedFolder([:])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = readFile(folder + "/gone.ics", limit: ScheduleLimits().maximumFileBytes)
        #expect(throws: FileReadError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.message == "cannot read the file: it does not exist")
        }
    }

    @Test func directoryAndSymlinkLoopInTheFolder() throws {
        let folder = try feedFolder(["good.ics": Self.good])
        try FileManager.default.createDirectory(atPath: folder + "/folder.ics", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder + "/loop.ics", withDestinationPath: "loop.ics")
        let schedule = try ScheduleState(displayZone: "UTC")
        schedule.load([folder])
        #expect(schedule.texts(at: Self.at) == ["Good"])
        let messages = Dictionary(uniqueKeysWithValues: schedule.feeds.map { ($0.path, $0.problems.first?.message) })
        #expect(messages[folder + "/folder.ics"] == "is a directory, not a feed file")
        #expect(messages[folder + "/loop.ics"]??.contains("symlink loop") == true)
    }

    /// A file that breaks keeps its last good version in effect; fixing it takes effect.
    @Test func lastGoodVersionIsKept() throws {
        let folder = try feedFolder(["family.ics": calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1"))])
        let schedule = try ScheduleState(displayZone: "UTC")
        schedule.load([folder])
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:half".utf8).write(to: URL(fileURLWithPath: folder + "/family.ics"))
        let status = schedule.reload()
        #expect(status.first?.state == .failed(keptLastGood: true))
        #expect(schedule.texts(at: Self.at) == ["Version 1"])
        try Data(calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 2")).utf8)
            .write(to: URL(fileURLWithPath: folder + "/family.ics"))
        #expect(schedule.reload().first?.state == .loaded)
        #expect(schedule.texts(at: Self.at) == ["Version 2"])
    }

    /// With a state directory, the last good version survives a restart of marquee.
    @Test func lastGoodVersionSurvivesARestart() throws {
        let folder = try feedFolder(["family.ics": calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1"))])
        let state = try feedFolder([:])
        let first = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        first.load([folder])
        let copies = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(copies.count == 1 && copies[0].hasSuffix("family.ics.last-good"))
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:half".utf8).write(to: URL(fileURLWithPath: folder + "/family.ics"))
        let restarted = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        let status = restarted.load([folder])
        #expect(status.first?.state == .failed(keptLastGood: true))
        #expect(status.first?.problems.contains { $0.severity == .error } == true)
        #expect(restarted.texts(at: Self.at) == ["Version 1"])
        #expect(restarted.messages(at: instant(Self.at)).first?.source == folder + "/family.ics")
        try FileManager.default.removeItem(atPath: folder + "/family.ics")
        restarted.reload()
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).isEmpty)
    }

    /// What a crash between writing a new last good copy and renaming it over the old one
    /// leaves (the new one half written beside the old): after the restart the old copy stands
    /// in, whole, and the half-written one is removed.
    @Test func aCopyCutOffByACrashIsRemovedAndTheOldOneKept() throws {
        let folder = try feedFolder(["family.ics": calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1"))])
        let state = try feedFolder([:])
        try ScheduleState(displayZone: "UTC", lastGoodDirectory: state).load([folder])
        let copy = (try FileManager.default.contentsOfDirectory(atPath: state))[0]
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Vers".utf8)
            .write(to: URL(fileURLWithPath: state + "/" + copy + ".partial-Ab12Cd"))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: folder + "/family.ics"))
        let restarted = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        #expect(restarted.load([folder]).first?.state == .failed(keptLastGood: true))
        #expect(restarted.texts(at: Self.at) == ["Version 1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == [copy])
    }

    /// A last good copy damaged on disk cannot stand in for its broken file, and says so.
    @Test func aDamagedLastGoodCopyIsSaid() throws {
        let folder = try feedFolder(["family.ics": calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1"))])
        let state = try feedFolder([:])
        try ScheduleState(displayZone: "UTC", lastGoodDirectory: state).load([folder])
        let copy = state + "/" + (try FileManager.default.contentsOfDirectory(atPath: state))[0]
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEV".utf8).write(to: URL(fileURLWithPath: copy))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: folder + "/family.ics"))
        let status = try #require(try ScheduleState(displayZone: "UTC", lastGoodDirectory: state).load([folder]).first)
        #expect(status.state == .failed(keptLastGood: false))
        let said = status.problems.map(\.message).filter { $0.hasPrefix("its last good copy (\(copy)) is damaged too") }
        #expect(said.count == 1, "\(status.problems)")
    }

    /// With a state folder the text of a calendar is not kept in memory: when time moves on,
    /// its repeats are read again from its last good copy — also while the file itself is
    /// broken — and a copy that is gone is said, not silently shown as nothing.
    @Test func laterRepeatsAreReadFromTheLastGoodCopy() throws {
        let daily = calendar(event("UID:d", "DTSTART:20260701T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", "SUMMARY:Daily"))
        let folder = try feedFolder(["family.ics": daily])
        let state = try feedFolder([:])
        let schedule = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        schedule.load([folder], around: instant(Self.at))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: folder + "/family.ics"))
        #expect(schedule.reload().first?.state == .failed(keptLastGood: true))
        #expect(schedule.texts(at: "2027-03-01T10:30:00Z") == ["Daily"])
        let copy = state + "/" + (try FileManager.default.contentsOfDirectory(atPath: state))[0]
        try FileManager.default.removeItem(atPath: copy)
        #expect(schedule.texts(at: "2028-03-01T10:30:00Z").isEmpty)
        let said = schedule.feeds.first?.problems.map(\.message).filter { $0.contains("cannot be read again from \(copy)") }
        #expect(said?.count == 1, "\(schedule.feeds)")
    }

    /// The feed files of one reading together are bounded: past the budget a file is not read,
    /// and says why.
    @Test func theFeedsTogetherAreBounded() throws {
        let files = (1...3).map { index in
            ("f\(index).ics", calendar(event("UID:\(index)", "DTSTART:20260701T100000Z", "SUMMARY:File \(index)")))
        }
        let folder = try feedFolder(Dictionary(uniqueKeysWithValues: files))
        var limits = ScheduleLimits()
        limits.maximumTotalBytes = files[0].1.utf8.count * 5 / 2
        let schedule = try ScheduleState(displayZone: "UTC", limits: limits)
        let statuses = schedule.load([folder])
        #expect(statuses.map(\.state) == [.loaded, .loaded, .failed(keptLastGood: false)])
        #expect(statuses.last?.problems.first?.message.hasPrefix("not read: the feed files together pass") == true)
        #expect(schedule.texts(at: Self.at) == ["File 1", "File 2"])
    }

    /// A Latin-1 file name (from an old machine) is read, shown with its byte as `\xFC`.
    @Test func fileNameThatIsNotUTF8() throws {
        let folder = try feedFolder(["good.ics": Self.good])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = Array((folder + "/M").utf8) + [0xFC] + Array("ller.ics".utf8)
        // Unwrapped: Debian 13's headers say fopen may give nothing (12's said nothing of it).
        let file = try #require(fopen(name.map { CChar(bitPattern: $0) } + [0], "w"))
        fputs(calendar(event("UID:m", "DTSTART:20260701T100000Z", "SUMMARY:Müller")), file)
        fclose(file)
        let schedule = try ScheduleState(displayZone: "UTC")
        let statuses = schedule.load([folder])
        #expect(statuses.map(\.path) == [folder + "/M\\xFCller.ics", folder + "/good.ics"])
        #expect(statuses.map(\.state) == [.loaded, .loaded])
        #expect(schedule.texts(at: Self.at) == ["Good", "Müller"])
    }

    /// A feed path too long for its last good copy's file name still gets a copy.
    @Test func longFeedNameKeepsALastGoodCopy() throws {
        let long = String(repeating: "Geburtstage der Familie ", count: 9) + ".ics"
        let folder = try feedFolder([long: calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1"))])
        let state = try feedFolder([:])
        defer { for path in [folder, state] { try? FileManager.default.removeItem(atPath: path) } }
        let first = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        #expect(first.load([folder]).first?.problems.isEmpty == true)
        let copies = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(copies.count == 1 && copies[0].utf8.count <= 255)
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT".utf8).write(to: URL(fileURLWithPath: folder + "/" + long))
        let restarted = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        #expect(restarted.load([folder]).first?.state == .failed(keptLastGood: true))
        #expect(restarted.texts(at: Self.at) == ["Version 1"])
    }

    /// A folder that goes away (`rm -rf`, an unmounted share, a path that is suddenly not a
    /// folder) is not "every file deleted": what it showed stays, its last good copies stay,
    /// and it is read again once it is back. A restart while it is gone shows the copies.
    @Test func aFolderThatGoesAwayKeepsWhatItShowed() throws {
        let parent = try feedFolder([:])
        let folder = parent + "/feeds.d"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data(calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 1")).utf8)
            .write(to: URL(fileURLWithPath: folder + "/family.ics"))
        let state = try feedFolder([:])
        let schedule = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        schedule.load([folder])
        try FileManager.default.removeItem(atPath: folder)
        let gone = schedule.reload()
        #expect(gone.map(\.state) == [.failed(keptLastGood: true), .failed(keptLastGood: true)])
        #expect(gone.first?.problems.first?.message == "cannot read: does not exist; the 1 file(s) shown before stay in effect")
        #expect(schedule.texts(at: Self.at) == ["Version 1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).count == 1)
        let restarted = try ScheduleState(displayZone: "UTC", lastGoodDirectory: state)
        #expect(restarted.load([folder]).first?.state == .failed(keptLastGood: true))
        #expect(restarted.texts(at: Self.at) == ["Version 1"])
        // Not a folder any more: the same.
        try Data("x".utf8).write(to: URL(fileURLWithPath: parent + "/file"))
        let notAFolder = parent + "/file/feeds.d"
        #expect(schedule.load([notAFolder]).first?.state == .failed(keptLastGood: false))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data(calendar(event("UID:v", "DTSTART:20260701T100000Z", "SUMMARY:Version 2")).utf8)
            .write(to: URL(fileURLWithPath: folder + "/family.ics"))
        #expect(restarted.reload().map(\.state) == [.loaded])
        #expect(restarted.texts(at: Self.at) == ["Version 2"])
    }

    @Test func missingFeedFolder() throws {
        let schedule = try ScheduleState(displayZone: "UTC")
        let status = schedule.load(["/nonexistent/feeds.d"])
        #expect(status.first?.problems.first?.description == "/nonexistent/feeds.d: error: cannot read: does not exist")
    }
}
