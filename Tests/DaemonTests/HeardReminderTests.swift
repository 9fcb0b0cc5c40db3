import DaemonTestKit
import Foundation
import Ledger
import LoopbackServers
import Synchronization
import Schedule
import Sound
import TestSupport
import Testing

@testable import Daemon

/// Reminders heard from the display loop on its manual clock, played through ALSA's `file`
/// PCM (every sample written to a WAV file, which each sounding starts anew) and heard back.
@Suite(.tier(.live)) struct HeardReminderTests {
    private func alarm(_ lines: String...) -> String {
        (["BEGIN:VALARM"] + lines + ["END:VALARM"]).joined(separator: "\r\n")
    }

    private func sound(into path: String) -> SoundSettings {
        SoundSettings(device: "file:FILE=\(path),FORMAT=wav", repeatUntilAcknowledged: 0, language: "en")
    }

    /// Whether something was played since the file was last removed (after all asked is played).
    private func played(_ kit: DisplayLoopKit, _ path: String) -> Bool {
        kit.voice?.finish()
        return FileManager.default.fileExists(atPath: path)
    }

    @Test func aReminderSoundsAtItsTriggerRepeatsAndStopsWhenAcknowledged() async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        let feed = calendar(event(
            "UID:dentist", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Leave for the dentist 🦷",
            alarm("ACTION:AUDIO", "TRIGGER:-PT30M", "ATTACH;VALUE=URI:Chord", "REPEAT:2", "DURATION:PT1M")))
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:29:58Z", zone: "UTC",
                                           sound: sound(into: wav), stateFolder: folder.path)
        await kit.advance(seconds: 1.8)
        #expect(!played(kit, wav), "nothing before the trigger")
        await kit.advance(seconds: 0.2)
        #expect(played(kit, wav), "at the trigger")
        let first = try readWAV(wav)
        #expect(dominantFrequency(window(first, from: 0.05, seconds: 0.3), rate: first.sampleRate,
                                  among: [523.25, 783.99]) == 783.99)
        #expect(rms(window(first, from: Chime.seconds + ReminderSound.pause, seconds: 0.8)) > 300, "the words follow")
        var reminder = try #require(kit.state.report.sound?.reminders.first)
        #expect(reminder.outcome == "sounding" && reminder.soundings == 1 && reminder.at == "2026-07-01T09:30:00+00:00")
        // The repeat a minute after the trigger, not before.
        try FileManager.default.removeItem(atPath: wav)
        await kit.advance(seconds: 59.8)
        #expect(!played(kit, wav))
        await kit.advance(seconds: 0.2)
        #expect(played(kit, wav))
        reminder = try #require(kit.state.report.sound?.reminders.first)
        #expect(reminder.soundings == 2 && reminder.at == "2026-07-01T09:31:00+00:00")
        // Acknowledged: the last repeat does not sound.
        await kit.post(.control(.acknowledge))
        #expect(kit.state.report.sound?.reminders.first?.outcome == "acknowledged")
        try FileManager.default.removeItem(atPath: wav)
        await kit.advance(seconds: 120)
        #expect(!played(kit, wav))
        // A restart (a new loop on the same state folder) does not play it again, and the
        // status still says what became of it.
        let restarted = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:30:10Z", zone: "UTC",
                                                 sound: sound(into: wav), stateFolder: folder.path)
        await restarted.advance(seconds: 1)
        #expect(!played(restarted, wav))
        #expect(restarted.state.report.sound?.reminders.map(\.outcome) == ["acknowledged"])
        #expect(restarted.state.report.sound?.today?.summary == "1 due: 1 acknowledged")
        #expect(restarted.state.reminderChanges(after: 0).changes.isEmpty, "nothing new to tell the carer")
        // The band marks it from the first frame on, as the status says.
        #expect(restarted.screen.shown.last?.line.contains("✓ Leave for the dentist") == true,
                "\(restarted.screen.shown.last?.line ?? "")")
        #expect(restarted.state.report.showing.contains { $0.hasPrefix("✓ Leave for the dentist") })
    }

    /// Upgraded from a version before the ledger, ten minutes after a reminder it acknowledged
    /// and one it decided without keeping its story: neither is heard again, nor called late or
    /// missed; what the file kept is in the ledger, and the file is gone.
    @Test func anUpgradeKeepsWhatTheEarlierVersionKept() async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        let trigger: Int64 = 1_782_898_200  // 2026-07-01T09:30:00Z
        let feed = calendar(
            event("UID:dentist", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Leave for the dentist",
                  alarm("ACTION:AUDIO", "TRIGGER:-PT30M")),
            event("UID:bins", "DTSTART:20260701T093000Z", "DTEND:20260701T230000Z", "SUMMARY:Bins out today", "X-MARQUEE-SPEAK:YES"))
        let kept = """
            {"heard":[{"key":{"event":"dentist","trigger":\(trigger),"origin":"audio"},"decidedAt":\(trigger)},
                      {"key":{"event":"bins","trigger":\(trigger),"origin":"event"},"decidedAt":\(trigger)}],
             "waiting":[],"quietAtNight":[],
             "recent":[{"key":{"event":"dentist","trigger":\(trigger),"origin":"audio"},"text":"Leave for the dentist",
                        "trigger":{"instant":{"secondsSinceEpoch":\(trigger)},"utcOffset":0},"outcome":"acknowledged",
                        "at":{"secondsSinceEpoch":\(trigger + 40)},"soundings":1}]}
            """
        try Data(kept.utf8).write(to: URL(fileURLWithPath: folder.path + "/reminders-heard.json"))
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:40:00Z", zone: "UTC",
                                           sound: sound(into: wav), stateFolder: folder.path)
        await kit.advance(seconds: 5)
        #expect(!played(kit, wav), "nothing heard again")
        let reminders = kit.state.report.sound?.reminders ?? []
        #expect(Set(reminders.map(\.outcome)) == ["acknowledged", "not acknowledged"], "\(reminders)")
        #expect(reminders.first { $0.outcome == "not acknowledged" }?.why?.hasPrefix("decided by an earlier version") == true)
        #expect(reminders.first { $0.outcome == "acknowledged" }?.text == "Leave for the dentist")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/reminders-heard.json"))
        let rows = try ReminderLedger(path: folder.path + "/" + ReminderLedger.fileName).entries(since: 0)
        #expect(rows.map(\.key.event).sorted() == ["bins", "dentist"])
    }

    /// A key pressed while a reminder sounds acknowledges it, and the band marks it ✓; at any
    /// other time a key does nothing.
    @Test func aKeyAcknowledgesTheReminderSounding() async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        let feed = calendar(event("UID:a", "DTSTART:20260701T100000Z", "SUMMARY:Lunch", "X-MARQUEE-SPEAK:YES"))
        var settings = sound(into: wav)
        settings.repeatUntilAcknowledged = 2
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:59:59Z", zone: "UTC",
                                           sound: settings, stateFolder: folder.path)
        await kit.post(.keyPressed)
        #expect(kit.state.report.sound?.reminders == [])
        await kit.advance(seconds: 1)
        #expect(played(kit, wav))
        await kit.advance(seconds: 20)
        await kit.post(.keyPressed)
        let reminder = try #require(kit.state.report.sound?.reminders.first)
        #expect(reminder.outcome == "acknowledged" && reminder.at == "2026-07-01T10:00:20+00:00")
        #expect(kit.state.report.sound?.lastAcknowledged == reminder)
        // The carer's phone is told each change, and the day's summary counts it.
        #expect(kit.state.reminderChanges(after: 0).changes.map(\.outcome) == ["sounding", "acknowledged"])
        #expect(kit.state.report.sound?.today?.summary == "1 due: 1 acknowledged")
        #expect(kit.state.report.sound?.today?.date == "2026-07-01" && kit.state.report.sound?.yesterday?.due == 0)
        // The band marks it heard, and the status says what the band shows.
        #expect(kit.screen.shown.last?.line.contains("✓ Lunch") == true)
        #expect(kit.state.report.showing == ["✓ Lunch"] && kit.state.report.messages.map(\.text) == ["✓ Lunch"])
        try FileManager.default.removeItem(atPath: wav)
        await kit.advance(seconds: 600)
        #expect(!played(kit, wav))
    }

    /// 500 reminders at once: a few are played one after another, the last of them says how
    /// many more there were, and nothing waits for the rest.
    @Test func fiveHundredAtOnceAreBounded() throws {
        let folder = try TemporaryFolder()
        let played = Mutex<[String]>([])
        let voice = ReminderVoice(settings: sound(into: folder.path + "/played.wav"), stateFolder: nil, log: nil) { report in
            played.withLock { $0.append(report.text) }
        }
        for index in 0..<500 {
            voice.play(ReminderPlan.Due(key: .init(event: "r\(index)", trigger: 0, origin: "event"), text: "Reminder \(index)",
                                        number: 1, of: 1, atNight: false))
        }
        voice.finish()
        let texts = played.withLock { $0 }
        #expect(texts.count <= ReminderVoice.queued + 1, "\(texts)")
        let more = texts.compactMap { $0.firstMatch(of: /And (\d+) more reminders/).flatMap { Int($0.1) } }.reduce(0, +)
        #expect(texts.count + more == 500, "\(texts)")
    }

    /// Where a carer's recording is kept: beside the calendar, written into it, at an address.
    enum Kept: CaseIterable, Sendable {
        case besideTheCalendar, inTheCalendar, atAnAddress
    }

    /// A carer's recording plays after the chime instead of the words, wherever it is kept
    /// (one at an address as fetched ahead from a real web server).
    @Test(arguments: Kept.allCases) func theCarersRecordingPlaysInsteadOfTheWords(kept: Kept) async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        let rate = 22_050
        let voice = SoundClip(samples: (0..<rate).map { Int16(8_000 * sin(2 * Double.pi * 330 * Double($0) / Double(rate))) },
                              sampleRate: rate)
        var server: LoopbackWebServer?
        let attach: String
        switch kept {
        case .besideTheCalendar:
            attach = "ATTACH;FMTTYPE=audio/wav:pills-in-my-voice.wav"
        case .inTheCalendar:
            attach = "ATTACH;ENCODING=BASE64;VALUE=BINARY;FMTTYPE=audio/wav:" + Data(voice.wav).base64EncodedString()
        case .atAnAddress:
            let web = try LoopbackWebServer()
            try Data(voice.wav).write(to: URL(fileURLWithPath: web.root + "/pills.wav"))
            attach = "ATTACH;FMTTYPE=audio/wav:" + web.url("pills.wav")
            server = web
        }
        let feed = calendar(event("UID:pills", "DTSTART:20260701T100000Z", "SUMMARY:Pills",
                                  alarm("ACTION:AUDIO", "TRIGGER:PT0S", attach)))
        let recordings = FetchedRecordings(folder: folder.path + "/recordings",
                                           certificateAuthorities: server?.certificateAuthorities)
        if let server {
            #expect(await recordings.keep([server.url("pills.wav")], now: instant("2026-07-01T09:00:00Z")) == [])
        }
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:59:59Z", zone: "UTC",
                                           sound: sound(into: wav), stateFolder: folder.path,
                                           fetchedRecordings: recordings.folder)
        if kept == .besideTheCalendar {
            try Data(voice.wav).write(to: URL(fileURLWithPath: kit.feeds.path + "/pills-in-my-voice.wav"))
        }
        await kit.advance(seconds: 1)
        #expect(played(kit, wav))
        let heard = try readWAV(wav)
        let after = window(heard, from: Chime.seconds + ReminderSound.pause + 0.1, seconds: 0.5)
        #expect(dominantFrequency(after, rate: heard.sampleRate, among: [330, 523.25, 783.99]) == 330)
        #expect(abs(heard.seconds - (Chime.seconds + ReminderSound.pause + 1)) < 0.1)
    }

    /// By night a calm reminder is not heard, an urgent one is, at the night's volume.
    @Test func atNightOnlyTheUrgentIsHeardAndMoreQuietly() async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        func feed(_ start: String) -> String {
            calendar(
                event("UID:calm", "DTSTART:\(start)T230000", "SUMMARY:Put the bins out", "X-MARQUEE-SPEAK:YES"),
                event("UID:urgent", "DTSTART:\(start)T231000", "SUMMARY:Take the heart pills", "PRIORITY:1",
                      "X-MARQUEE-SPEAK:YES"))
        }
        var settings = sound(into: wav)
        settings.dayVolume = Volume(percent: 80)!
        settings.nightVolume = Volume(percent: 30)!
        let night = try await DisplayLoopKit(files: ["a.ics": feed("20261123")], at: "2026-11-23T22:59:59+01:00",
                                             orientation: OrientationSettings(), sound: settings, stateFolder: folder.path)
        await night.advance(seconds: 2)
        #expect(!played(night, wav))
        #expect(night.state.report.sound?.reminders.first?.outcome == "quiet at night")
        await night.advance(seconds: 600)
        #expect(played(night, wav))
        let quiet = try readWAV(wav)
        // The same reminder by day (the night moved: it is not night at 23:10 then).
        let dayFolder = try TemporaryFolder()
        let dayWav = dayFolder.path + "/played.wav"
        settings.device = "file:FILE=\(dayWav),FORMAT=wav"
        let day = try await DisplayLoopKit(
            files: ["a.ics": feed("20261123")], at: "2026-11-23T23:09:59+01:00",
            orientation: OrientationSettings(parts: DayParts(starts: [.morning: 420, .afternoon: 720, .evening: 1020, .night: 1410])),
            sound: settings,
            stateFolder: dayFolder.path)
        await day.advance(seconds: 2)
        #expect(played(day, dayWav))
        let loud = try readWAV(dayWav)
        let words = Chime.seconds + ReminderSound.pause
        let ratio = rms(window(quiet, from: words, seconds: 1)) / rms(window(loud, from: words, seconds: 1))
        #expect(abs(ratio - 0.09 / 0.64) < 0.005, "night against day: \(ratio)")
    }

    /// Muted, nothing is heard and the screen is unchanged; the mute outlives a restart.
    @Test func aMuteSilencesUntilUnmuted() async throws {
        let folder = try TemporaryFolder()
        let wav = folder.path + "/played.wav"
        let feed = calendar(
            event("UID:a", "DTSTART:20260701T100000Z", "SUMMARY:Lunch", "X-MARQUEE-SPEAK:YES"),
            event("UID:b", "DTSTART:20260701T100100Z", "SUMMARY:Walk", "X-MARQUEE-SPEAK:YES"))
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:59:59Z", zone: "UTC",
                                           sound: sound(into: wav), stateFolder: folder.path)
        await kit.post(.control(.mute))
        await kit.advance(seconds: 2)
        #expect(!played(kit, wav))
        #expect(kit.state.report.showing == ["Lunch"])
        #expect(kit.state.report.sound?.muted == true)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/" + ReminderVoice.mutedFile))
        let restarted = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T10:00:30Z", zone: "UTC",
                                                 sound: sound(into: wav), stateFolder: folder.path)
        #expect(restarted.state.report.sound?.muted == true)
        await restarted.post(.control(.unmute))
        await restarted.advance(seconds: 31)
        #expect(played(restarted, wav))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/" + ReminderVoice.mutedFile))
    }

    /// A device that is not there is said in the status, and where the carer asked for sound,
    /// among the problems the screen shows; the display goes on.
    @Test(arguments: [false, true]) func aMissingDeviceIsSaidAndTheDisplayGoesOn(askedFor: Bool) async throws {
        let folder = try TemporaryFolder()
        let feed = calendar(event("UID:a", "DTSTART:20260701T100000Z", "SUMMARY:Lunch", "X-MARQUEE-SPEAK:YES"))
        var settings = sound(into: folder.path + "/unused.wav")
        settings.device = "hw:CARD=NoSuchCard"
        settings.isAskedFor = askedFor
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T09:59:59Z", zone: "UTC",
                                           showsProblems: true, sound: settings, stateFolder: folder.path)
        await kit.advance(seconds: 2)
        kit.voice?.finish()
        await kit.settle()
        #expect(kit.state.report.sound?.problem?.contains("cannot open the sound device \"hw:CARD=NoSuchCard\"") == true)
        #expect(kit.screen.shown.last?.line.contains("Lunch") == true)
        let shown = kit.screen.problems.contains { $0.hasPrefix("marquee: reminders are not heard: cannot open the sound device") }
        #expect(shown == askedFor, "\(kit.screen.problems)")
    }
}
