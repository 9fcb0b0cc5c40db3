@testable import Daemon
import Foundation
import Ledger
import Schedule
import Support
import TestSupport
import Testing

/// The carer's written reminders as the box keeps them (SQLite) and publishes them (its own
/// calendar file), read back by the real schedule (libical) on the display's clock.
@Suite(.temporaryFolders) struct WrittenCalendarTests {
    private func form(_ text: String, day: String, time: String, _ repetition: String, weekdays: [String] = [],
                      minutes: Int? = 30, heard: Bool = true, urgent: Bool = false) -> WrittenCalendar.Form {
        WrittenCalendar.Form(text: text, day: day, time: time, repetition: repetition, weekdays: weekdays, minutes: minutes,
                             heard: heard, urgent: urgent)
    }

    private func reminder(_ form: WrittenCalendar.Form, id: String, recording: String? = nil) throws -> WrittenReminder {
        try WrittenCalendar.reminder(form, id: id, recording: recording, at: instant("2026-11-29T10:00:00Z")).get()
    }

    /// The messages of a schedule reading `reminders`' calendar, at `moment` (through the
    /// `read-feed` helpers: libical's one in-process actor is left to the tests that need it).
    private func shown(_ reminders: [WrittenReminder], at moment: String) async throws -> [Message] {
        let calendar = WrittenCalendar.calendar(reminders, stamp: instant("2026-11-29T10:00:00Z"))
        #expect(calendar.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        let feeds = try feedFolder([WrittenCalendar.fileName: calendar, "voice-pills-1.wav": "RIFF"])
        let schedule = try await Schedule(displayZone: "Europe/Berlin", reader: CarerPageTests.reader)
        let statuses = await schedule.load([feeds], around: instant(moment))
        #expect(statuses.allSatisfy { $0.problems.isEmpty }, "\(statuses)")
        return await schedule.snapshot(at: instant(moment)).messages
    }

    @Test func aDailyReminderKeepsTheWallClockTimeAcrossTheSpringChange() async throws {
        let pills = try reminder(form("Pills now, Anna", day: "2027-03-20", time: "08:00", "daily", urgent: true), id: "pills")
        // Before and after Europe/Berlin's clocks go forward on 28 March 2027: 08:00 on the wall.
        for moment in ["2027-03-27T08:00:30+01:00", "2027-03-28T08:00:30+02:00"] {
            let messages = try await shown([pills], at: moment)
            #expect(messages.map(\.text) == ["Pills now, Anna"], "\(moment)")
            #expect(messages.first?.isUrgent == true && messages.first?.sounding?.origin == .event, "\(moment)")
            #expect(messages.first?.sounding?.trigger.instant.secondsSinceEpoch == instant(moment).secondsSinceEpoch - 30)
        }
        #expect(try await shown([pills], at: "2027-03-28T08:31:00+02:00").isEmpty, "it shows for its 30 minutes")
        #expect(try await shown([pills], at: "2027-03-19T08:00:30+01:00").isEmpty, "not before its first day")
    }

    @Test func weekdaysAndChosenDays() async throws {
        let bins = try reminder(form("Bins out", day: "2026-11-30", time: "19:00", "weekly", weekdays: ["TH", "MO"],
                                     minutes: 120, heard: false), id: "bins")
        let club = try reminder(form("Day club", day: "2026-11-30", time: "09:30", "weekdays"), id: "club")
        #expect(bins.weekdays == ["MO", "TH"])
        // Thursday 3 December: both; Saturday 5 December: neither.
        #expect(try await shown([bins, club], at: "2026-12-03T19:30:00+01:00").map(\.text) == ["Bins out"])
        #expect(try await shown([bins, club], at: "2026-12-03T09:45:00+01:00").map(\.text) == ["Day club"])
        #expect(try await shown([bins, club], at: "2026-12-05T19:30:00+01:00").isEmpty)
        #expect(try await shown([bins, club], at: "2026-12-05T09:45:00+01:00").isEmpty)
        #expect(try await shown([bins], at: "2026-12-03T19:30:00+01:00").first?.sounding == nil, "only shown")
    }

    @Test func aBirthdayShowsAllDayWithTheAge() async throws {
        let birthday = try reminder(form("Johnny is {age} today", day: "1950-12-02", time: "", "yearly"), id: "johnny")
        #expect(birthday.time == nil)
        let messages = try await shown([birthday], at: "2026-12-02T15:00:00+01:00")
        #expect(messages.map(\.text) == ["Johnny is 76 today"])
        #expect(try await shown([birthday], at: "2026-12-03T00:30:00+01:00").isEmpty)
    }

    @Test func aRecordedVoiceIsAnAudioAlarmOfItsFile() async throws {
        let pills = try reminder(form("Pills; now, Anna", day: "2026-11-29", time: "12:00", "once", heard: false), id: "pills",
                                 recording: "voice-pills-1.wav")
        #expect(pills.heard, "a recording is heard")
        let messages = try await shown([pills], at: "2026-11-29T12:00:10+01:00")
        #expect(messages.map(\.text) == ["Pills; now, Anna"])
        #expect(messages.first?.sounding?.origin == .audioAlarm && messages.first?.sounding?.attachment == "voice-pills-1.wav")
    }

    @Test func whatCannotBeAReminderIsRefusedInWords() {
        let now = instant("2026-11-29T10:00:00Z")
        func refusal(_ form: WrittenCalendar.Form) -> String? {
            if case .failure(let refusal) = WrittenCalendar.reminder(form, id: "x", recording: nil, at: now) { return refusal.description }
            return nil
        }
        #expect(refusal(form("  ", day: "2026-11-29", time: "08:00", "once")) == "the reminder has no words")
        #expect(refusal(form("Tea\u{1B}[2J", day: "2026-11-29", time: "08:00", "once"))?.contains("control characters") == true)
        #expect(refusal(form(String(repeating: "a", count: 300), day: "2026-11-29", time: "08:00", "once"))?.contains("at most 255") == true)
        #expect(refusal(form("Tea", day: "2026-02-30", time: "08:00", "once"))?.contains("is not a day") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "25:00", "once"))?.contains("is not a day") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "8:0", "once"))?.contains("is not a day") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "08:00", "hourly"))?.contains("not a way to repeat") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "08:00", "weekly", weekdays: ["XX"]))?.contains("day of the week") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "08:00", "once", minutes: 0))?.contains("1440") == true)
        #expect(refusal(form("Tea", day: "2026-11-29", time: "08:00", "once")) == nil)
    }

    /// Kept in SQLite, published as the calendar, removed with its recording; an empty book
    /// leaves no calendar behind.
    @Test func keptPublishedAndRemoved() throws {
        let state = try TemporaryFolder()
        let written = WrittenCalendar(stateFolder: state.path)
        let now = instant("2026-11-29T10:00:00Z")
        let voice = WrittenCalendar.recordingName(of: "pills")
        let pills = try reminder(form("Pills now", day: "2026-11-29", time: "12:00", "daily"), id: "pills", recording: voice)
        #expect(written.keep(pills, recorded: Array("RIFF…".utf8), at: now) == nil)
        #expect(try written.reminders().get() == [pills])
        let calendar = try String(contentsOfFile: written.folder + "/" + WrittenCalendar.fileName, encoding: .utf8)
        #expect(calendar.contains("UID:pills@marquee-page") && calendar.contains("ATTACH:\(voice)"))
        #expect(FileManager.default.fileExists(atPath: written.folder + "/" + voice))

        var silent = pills
        silent.recording = nil
        #expect(written.keep(silent, recorded: nil, at: now) == nil)
        #expect(!FileManager.default.fileExists(atPath: written.folder + "/" + voice), "a recording no reminder plays is removed")
        #expect(written.remove("pills", at: now) == nil)
        #expect(try written.reminders().get().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: written.folder + "/" + WrittenCalendar.fileName))
    }
}
