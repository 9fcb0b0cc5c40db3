import Foundation
import LoopbackServers
import Sound
import TestSupport
import Testing

/// A reminder heard at its minute in the neural voice chosen (Piper from PyPI, run by
/// `marquee run` as the box runs it), its words made ahead; and eSpeak NG at the minute when
/// that voice cannot speak, with the reason in the status. Heard through ALSA's file PCM.
@Suite(.tags(.live), .tier(.live, needs: [.program("/usr/bin/script"), .program(TestVoices.piper)]))
struct NeuralVoiceTests {
    private let pills = "Pills now, Anna"

    /// A box whose calendar has an audio alarm at 10:00 with `text`, speaking in `voice`.
    private func box(_ folder: String, voice: String, text: String, piper: String = TestVoices.piper) throws {
        try FileManager.default.createDirectory(atPath: folder + "/feeds", withIntermediateDirectories: true)
        try writeCalendar(folder, text: text)
        try """
            state_dir = "\(folder)/state"
            sound_device = "file:FILE=\(folder)/played.wav,FORMAT=wav"
            voice = "\(voice)"
            piper_command = "\(piper)"
            volume_day = 100
            """.write(toFile: folder + "/marquee.toml", atomically: true, encoding: .utf8)
    }

    private func writeCalendar(_ folder: String, text: String) throws {
        try calendar(event(
            "UID:pills", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:\(text)",
            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:PT0S", "END:VALARM"))
            .write(toFile: folder + "/feeds/pills.ics", atomically: true, encoding: .utf8)
    }

    /// The status's `sound` once a reminder was spoken (nil: none yet).
    private func spoken(_ folder: String) -> [String: Any]? {
        guard let status = try? CommandLineTests.marquee("status", "--json", "--socket", folder + "/marquee.sock"),
              status.status == 0,
              let report = try? JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any],
              let sound = report["sound"] as? [String: Any], sound["voice"] != nil
        else { return nil }
        return sound
    }

    /// The status's `sound` once the box, started at `start`, spoke its reminder (nil: not within
    /// a minute); `meanwhile` runs once it has started; `status` gets what `marquee status` says.
    private func heard(_ folder: String, startingAt start: String, status: ((String) -> Void)? = nil,
                       meanwhile: () throws -> Void = {}) throws -> [String: Any]? {
        let display = try ScriptedDisplay(folder: folder, at: start)
        defer { display.kill() }
        try meanwhile()
        var sound: [String: Any]?
        _ = waitUntil(within: .seconds(60)) {
            sound = spoken(folder)
            return sound != nil
        }
        if let status { status((try? CommandLineTests.marquee("status", "--socket", folder + "/marquee.sock").output) ?? "") }
        return sound
    }

    /// The words of what was played: after the chime and the pause.
    private func words(_ folder: String) throws -> ArraySlice<Int16> {
        let played = try readWAV(folder + "/played.wav")
        return window(played, from: Chime.seconds + ReminderSound.pause, seconds: 100)
    }

    /// The words made ahead, as kept in the state folder (the only file there).
    private func madeAhead(_ folder: String) throws -> [SoundClip] {
        let spoken = folder + "/state/spoken"
        return try FileManager.default.contentsOfDirectory(atPath: spoken).filter { $0.hasSuffix(".wav") }.sorted()
            .map { try readWAV(spoken + "/" + $0) }
    }

    @Test(.timeLimit(.minutes(2))) func piperSpeaksAtTheMinute() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            try box(folder, voice: "piper:" + TestVoices.model, text: pills)
            let sound = try #require(try heard(folder, startingAt: "2026-07-01T09:59:50Z"))
            let voice = sound["voice"] as? [String: Any]
            #expect(voice?["spoke"] as? String == "piper", "\(String(describing: voice))")
            #expect(voice?["whyNotChosen"] == nil)
            #expect(voice?["chosen"] as? String == "piper:" + TestVoices.model)
            let firstSample = try #require(sound["firstSampleMilliseconds"] as? Double)
            #expect(firstSample <= 300, "first sample \(firstSample) ms after the trigger")
            print("Piper at the minute: first sample \(firstSample) ms after the trigger")
            // What was heard is the words made ahead, sample for sample (at volume 100).
            let made = try madeAhead(folder)
            #expect(made.count == 1)
            let heard = try words(folder)
            #expect(made.first.map { Array(heard.prefix($0.samples.count)) == $0.samples } == true)
            // And not eSpeak's.
            let espeak = try Speech.speak(pills, language: "en").clip
            #expect(Array(heard.prefix(espeak.samples.count)) != espeak.samples)
        }
    }

    @Test(.timeLimit(.minutes(2))) func aVoiceThatCannotSpeakIsEspeakAtTheMinute() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            try box(folder, voice: "piper:\(folder)/missing.onnx", text: pills)
            var said = ""
            let sound = try #require(try heard(folder, startingAt: "2026-07-01T09:59:55Z") { said = $0 })
            let voice = sound["voice"] as? [String: Any]
            #expect(voice?["spoke"] as? String == "espeak")
            let why = voice?["whyNotChosen"] as? String ?? ""
            let expected = "piper did not speak the reminder: the Piper voice \(folder)/missing.onnx cannot be read"
            #expect(why.contains(expected), "\(why)")
            #expect(said.contains("voice: piper:\(folder)/missing.onnx; the last reminder spoken by espeak (\(expected)"), "\(said)")
            // Heard all the same: the words after the chime.
            #expect(rms(try words(folder).prefix(22_050)) > 500)
        }
    }

    /// A Piper that hangs holds up nothing: eSpeak NG speaks at the minute, the chime at once.
    @Test(.timeLimit(.minutes(2))) func aHangingPiperDelaysNothing() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let hanging = folder + "/hanging-piper"
            try "#!/bin/sh\nexec sleep 119.25\n".write(toFile: hanging, atomically: true, encoding: .utf8)
            chmod(hanging, 0o755)
            defer { _ = try? Spawned.run("/usr/bin/pkill", ["-f", "sleep 119.25"]) }
            try box(folder, voice: "piper:" + TestVoices.model, text: pills, piper: hanging)
            let sound = try #require(try heard(folder, startingAt: "2026-07-01T09:59:55Z"))
            let voice = sound["voice"] as? [String: Any]
            let why = voice?["whyNotChosen"] as? String ?? ""
            #expect(voice?["spoke"] as? String == "espeak" && why.contains("not made ahead in time"), "\(why)")
            let firstSample = try #require(sound["firstSampleMilliseconds"] as? Double)
            #expect(firstSample <= 300, "first sample \(firstSample) ms after the trigger")
            #expect(rms(try words(folder).prefix(22_050)) > 500)
        }
    }

    /// Changed four seconds before its minute: heard in its new words, never the old.
    @Test(.timeLimit(.minutes(2))) func aReminderChangedJustBeforeItsMinuteIsHeardAsChanged() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let changed = "Pills now, Anna, with a glass of water"
            try box(folder, voice: "piper:" + TestVoices.model, text: pills)
            var before: SoundClip?
            let sound = try heard(folder, startingAt: "2026-07-01T09:59:52Z", meanwhile: {
                let began = Date()
                #expect(waitUntil(within: .seconds(30)) { (try? madeAhead(folder).count) == 1 })
                #expect(Date().timeIntervalSince(began) < 6, "the old words made within six seconds, before the change")
                before = try madeAhead(folder).first
                try writeCalendar(folder, text: changed)
            })
            let old = try #require(before)
            let reminder = (sound?["reminders"] as? [[String: Any]])?.first
            #expect(reminder?["text"] as? String == changed)
            let heard = try words(folder)
            #expect(Array(heard.prefix(old.samples.count)) != old.samples, "the old words were heard")
            let voice = sound?["voice"] as? [String: Any]
            if voice?["spoke"] as? String == "piper" {
                // The new words were made in time: they are what played.
                let made = try madeAhead(folder).filter { $0 != old }
                #expect(made.count == 1 && made.first.map { Array(heard.prefix($0.samples.count)) == $0.samples } == true)
            } else {
                // Not made in time on a busy machine: eSpeak NG spoke the new words, and says why.
                #expect(voice?["spoke"] as? String == "espeak")
                let why = voice?["whyNotChosen"] as? String ?? ""
                #expect(why.contains("not made ahead in time"), "\(why)")
                let espeak = try Speech.speak(changed, language: "en").clip
                #expect(abs(Double(heard.count) / 22_050 - espeak.seconds) < 0.3)
            }
            print("changed 4 s before its minute: spoken by \(voice?["spoke"] ?? "nobody")")
        }
    }
}
