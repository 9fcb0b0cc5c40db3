import TestSupport
import Testing

@testable import Schedule

/// What a calendar asks to be heard: audio and display alarms with their ATTACH, REPEAT and
/// DURATION, and events marked X-MARQUEE-SPEAK; and what it writes wrong about them.
@Suite(.temporaryFolders) @ICalActor struct SoundingTests {
    private func alarm(_ lines: String...) -> String {
        (["BEGIN:VALARM"] + lines + ["END:VALARM"]).joined(separator: "\r\n")
    }

    /// Apple's audio alarm (a named sound, no text) is shown with the event's title and heard
    /// with its sound's name and repeats; a display alarm is heard as a display alarm.
    @Test func audioAndDisplayAlarmsAreHeardAtTheirTriggers() throws {
        let feed = calendar(
            event("UID:dentist", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Dentist",
                  alarm("ACTION:AUDIO", "TRIGGER:-PT30M", "ATTACH;VALUE=URI:Chord", "REPEAT:2", "DURATION:PT5M"),
                  alarm("ACTION:DISPLAY", "TRIGGER:-PT10M", "DESCRIPTION:Leave now")))
        let schedule = try schedule(feed, zone: "UTC")
        let audio = try #require(schedule.messages(at: instant("2026-07-01T09:31:00Z")).first)
        #expect(audio.text == "Dentist")
        #expect(audio.kind == .alarm)
        #expect(audio.sounding == Sounding(
            origin: .audioAlarm, trigger: ZonedTime(instant: instant("2026-07-01T09:30:00Z"), utcOffset: 0),
            attachment: "Chord", repeats: 2, repeatSeconds: 300))
        let shown = schedule.messages(at: instant("2026-07-01T09:51:00Z"))
        #expect(shown.map(\.text) == ["Dentist", "Leave now"])
        #expect(shown.map { $0.sounding?.origin } == [.audioAlarm, .displayAlarm])
        #expect(shown.map { $0.sounding?.trigger.rfc3339 } == ["2026-07-01T09:30:00+00:00", "2026-07-01T09:50:00+00:00"])
        // The event itself asked for nothing.
        #expect(schedule.messages(at: instant("2026-07-01T10:30:00Z")).map(\.sounding) == [nil])
    }

    /// An alarm with the event's own text is shown once, heard as the one that triggered last.
    @Test func oneTextIsHeardAsItsLatestTrigger() throws {
        let feed = calendar(event(
            "UID:walk", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Walk",
            alarm("ACTION:AUDIO", "TRIGGER:-PT30M"), alarm("ACTION:DISPLAY", "TRIGGER:PT0S", "DESCRIPTION:Reminder")))
        let schedule = try schedule(feed, zone: "UTC")
        let messages = schedule.messages(at: instant("2026-07-01T10:00:30Z"))
        #expect(messages.map(\.text) == ["Walk"])
        #expect(messages.first?.sounding?.origin == .displayAlarm)
        #expect(messages.first?.sounding?.trigger.instant == instant("2026-07-01T10:00:00Z"))
    }

    /// X-MARQUEE-SPEAK:YES is heard when each occurrence starts, with the occurrence's instant.
    @Test func anEventMarkedToSpeakIsHeardAtEachStart() throws {
        let feed = calendar(event(
            "UID:pills", "DTSTART;TZID=Europe/Berlin:20260328T090000", "RRULE:FREQ=DAILY", "SUMMARY:Pills",
            "X-MARQUEE-SPEAK:yes"))
        let schedule = try schedule(feed)
        // Across the change to summer time: 09:00 local each day.
        let sounding = try #require(schedule.messages(at: instant("2026-03-29T09:00:10+02:00")).first?.sounding)
        #expect(sounding.origin == .event)
        #expect(sounding.trigger.rfc3339 == "2026-03-29T09:00:00+02:00")
    }

    /// What a calendar writes wrong about sound costs only that part, and is said with its line.
    @Test func hostileAlarmsAreSaidWithTheirLines() throws {
        let feed = calendar(
            event("UID:a", "DTSTART:20260701T100000Z", "DURATION:PT1H", "SUMMARY:Many",
                  alarm("ACTION:AUDIO", "TRIGGER:-PT10M", "REPEAT:100000", "DURATION:PT1M")),
            event("UID:b", "DTSTART:20260701T120000Z", "SUMMARY:Zero",
                  alarm("ACTION:DISPLAY", "DESCRIPTION:Now", "TRIGGER:-PT10M", "REPEAT:3", "DURATION:PT0S")),
            event("UID:c", "DTSTART:20260701T140000Z", "SUMMARY:Inline",
                  alarm("ACTION:AUDIO", "TRIGGER:-PT10M", "ATTACH;ENCODING=BASE64;VALUE=BINARY:UklG*Rg==")),
            event("UID:d", "DTSTART:20260701T160000Z", "SUMMARY:Maybe", "X-MARQUEE-SPEAK:perhaps"),
            event("UID:e", "DTSTART:20260701T170000Z", "SUMMARY:Mail", alarm("ACTION:EMAIL", "TRIGGER:-PT10M")))
        let schedule = try schedule(feed, zone: "UTC")
        let problems = try #require(schedule.feeds.first?.problems)
        let lines = feed.components(separatedBy: "\r\n")
        func line(of text: String, after: String) -> Int {
            let start = lines.firstIndex(of: after)!
            return lines[start...].firstIndex { $0.hasPrefix(text) }! + 1
        }
        #expect(problems.map(\.line) == [
            line(of: "REPEAT", after: "UID:a"), line(of: "REPEAT", after: "UID:b"), line(of: "ATTACH", after: "UID:c"),
            line(of: "X-MARQUEE-SPEAK", after: "UID:d"),
        ], "\(problems)")
        #expect(problems[0].message.contains("more than 10"))
        #expect(problems[1].message.contains("sounds once"))
        #expect(problems[2].message.contains("is not base64"))
        #expect(problems[3].message.contains("neither YES nor NO"))
        #expect(schedule.messages(at: instant("2026-07-01T09:55:00Z")).first?.sounding?.repeats == Sounding.mostRepeats)
        #expect(schedule.messages(at: instant("2026-07-01T11:55:00Z")).first?.sounding?.repeats == 0)
        let inline = try #require(schedule.messages(at: instant("2026-07-01T13:55:00Z")).first?.sounding)
        #expect(inline.origin == .audioAlarm && inline.attachment == nil)
        #expect(schedule.messages(at: instant("2026-07-01T16:00:10Z")).first?.sounding == nil)
        // An email alarm is neither shown nor heard.
        #expect(!schedule.texts(at: "2026-07-01T16:55:00Z").contains("Mail"))
    }
}
