import Foundation
import Sound
import Support
import TestSupport
import Testing

/// The chime, the volume and the words of a reminder, and what ALSA is given to play.
struct ChimeAndVolumeTests {
    /// Two notes, a fifth apart, each swelling in (no click) and the whole ending silent.
    @Test func theChimeIsTwoSoftNotes() {
        let rate = 22_050
        let chime = Chime.make(sampleRate: rate)
        #expect(abs(chime.seconds - Chime.seconds) < 0.001)
        let first = window(chime, from: 0.05, seconds: 0.3)
        let second = window(chime, from: 0.55, seconds: 0.3)
        #expect(dominantFrequency(first, rate: rate, among: [523.25, 659.25, 783.99, 1046.5]) == 783.99)
        #expect(dominantFrequency(second, rate: rate, among: [523.25, 659.25, 783.99, 1046.5]) == 523.25)
        // No sharp onset: the first 5 ms stay below a quarter of the chime's peak.
        let peak = chime.samples.map { abs(Int($0)) }.max()!
        #expect(peak > Int(Double(Int16.max) * 0.2))
        #expect(chime.samples.prefix(rate / 200).map { abs(Int($0)) }.max()! < peak / 4)
        #expect(chime.samples.suffix(rate / 100).map { abs(Int($0)) }.max()! < peak / 50)
    }

    /// The volume is applied to the samples: the square of the fraction.
    @Test func theVolumeScalesTheSamples() throws {
        let chime = Chime.make(sampleRate: 16_000)
        let full = rms(chime.samples[...])
        let quiet = rms(chime.atVolume(try #require(Volume(percent: 40))).samples[...])
        #expect(abs(quiet / full - 0.16) < 0.001)
        #expect(rms(chime.atVolume(try #require(Volume(percent: 0))).samples[...]) == 0)
        #expect(Volume(percent: 101) == nil && Volume(percent: -1) == nil)
    }

    /// Symbols and emoji are not read out; spaces are single; a long text is cut at a word.
    @Test func whatIsReadOut() {
        #expect(Speech.speakable("🎂 Johnny's birthday!\u{FE0F} ✨ 👨‍👩‍👧  today").text == "Johnny's birthday! today")
        #expect(Speech.speakable("Take 2 pills at 8:00, €5").text == "Take 2 pills at 8:00, €5")
        let long = String(repeating: "word ", count: 2_000)
        let (text, cut) = Speech.speakable(long)
        #expect(cut && text.count <= Speech.mostCharacters && text.hasSuffix("word"))
        #expect(Speech.speakable("short").cut == false)
    }
}

/// The chime and the words played through ALSA into a file (its `file` PCM, which writes every
/// sample it is given), and the file heard back.
@Suite(.tier(.live)) struct PlayedSoundTests {
    @Test func aReminderIsTheChimeThenTheWordsAtItsVolume() throws {
        try withTemporaryFolder { folder in
            func played(_ percent: Int, name: String) throws -> (SoundClip, ReminderSound.Played) {
                let path = folder.path + "/" + name
                let device = SoundDevice(name: "file:FILE=\(path),FORMAT=wav")
                let result = try ReminderSound.play(
                    "Leave for the dentist", language: "en_GB", volume: try #require(Volume(percent: percent)), on: device)
                return (try readWAV(path), result)
            }
            let (loud, figures) = try played(100, name: "day.wav")
            #expect(figures.spoken?.voice == "en-gb" && figures.spoken?.voiceMatched == true)
            #expect(loud.sampleRate == 22_050)
            let chimeEnd = Chime.seconds
            let wordsStart = chimeEnd + ReminderSound.pause
            #expect(dominantFrequency(window(loud, from: 0.05, seconds: 0.3), rate: loud.sampleRate,
                                      among: [523.25, 783.99]) == 783.99)
            // The pause is silent, the words follow it and last a while.
            #expect(rms(window(loud, from: chimeEnd + 0.05, seconds: 0.3)) < 1)
            #expect(rms(window(loud, from: wordsStart, seconds: 1.0)) > 500)
            #expect(loud.seconds > wordsStart + 1.0)
            let (quiet, _) = try played(30, name: "night.wav")
            #expect(abs(quiet.seconds - loud.seconds) < 0.05)
            let ratio = rms(window(quiet, from: wordsStart, seconds: 1.0)) / rms(window(loud, from: wordsStart, seconds: 1.0))
            #expect(abs(ratio - 0.09) < 0.005, "\(ratio)")
        }
    }

    /// A language with no voice of its own is spoken by the English one, and says so.
    @Test func aLanguageWithoutAVoiceIsSpokenInEnglish() throws {
        let german = try Speech.speak("Guten Morgen", language: "de_DE")
        #expect(german.voice == "de-de" || german.voice == "de")
        #expect(german.voiceMatched)
        let unknown = try Speech.speak("Good morning", language: "xx")
        #expect(unknown.voice == "en" && !unknown.voiceMatched)
        #expect(unknown.clip.seconds > 0.3)
    }

    /// A device that is not there is said with its name; nothing is played.
    /// Which card's mixer is looked at for a device name; a device that is no card (a file,
    /// the null device) or a card that is not there has no mixer to turn anything down.
    @Test func theCardOfADevice() {
        #expect(SoundDevice.card(in: "default") == 0 && SoundDevice.card(in: "dmix") == 0)
        #expect(SoundDevice.card(in: "file:FILE=/tmp/a.wav,FORMAT=wav") == -1)
        #expect(SoundDevice.card(in: "null") == -1 && SoundDevice.card(in: "hw:CARD=NoSuchCard") < 0)
        #expect(SoundDevice(name: "null").mixerSilence() == nil)
        #expect(SoundDevice(name: "hw:CARD=NoSuchCard").mixerSilence() == nil)
    }

    @Test func aMissingDeviceIsSaidByName() throws {
        let device = SoundDevice(name: "hw:CARD=NoSuchCard")
        #expect {
            try ReminderSound.play("hello", language: "en", volume: Volume(percent: 50)!, on: device)
        } throws: { error in
            "\(error)".contains("cannot open the sound device \"hw:CARD=NoSuchCard\"")
        }
    }
}

/// A carer's recording: read whole, channels mixed; anything else refused with its path.
struct RecordingTests {
    private func tone(_ frequency: Double, seconds: Double, rate: Int) -> SoundClip {
        SoundClip(samples: (0..<Int(seconds * Double(rate))).map {
            Int16(8_000 * sin(2 * Double.pi * frequency * Double($0) / Double(rate)))
        }, sampleRate: rate)
    }

    @Test func aRecordingIsReadAtItsOwnRate() throws {
        try withTemporaryFolder { folder in
            let path = folder.path + "/voice.wav"
            try Data(tone(440, seconds: 1, rate: 16_000).wav).write(to: URL(fileURLWithPath: path))
            let clip = try Recording.load(path)
            #expect(clip.sampleRate == 16_000 && clip.samples.count == 16_000)
            #expect(dominantFrequency(clip.samples[...], rate: 16_000, among: [330, 440, 550]) == 440)
        }
    }

    /// A recording held in memory (written into a calendar, fetched) reads as the same file
    /// does; bytes that are no sound are refused with the name given.
    @Test func aRecordingInMemoryReadsAsItsFile() throws {
        let wav = tone(440, seconds: 0.5, rate: 16_000).wav
        let clip = try Recording.load(wav, describedAs: "written into /feeds/a.ics")
        #expect(clip == tone(440, seconds: 0.5, rate: 16_000))
        let truncated = try Recording.load(Array(wav.prefix(44 + 2_000)), describedAs: "cut")
        #expect(truncated.samples.count == 1_000)
        #expect {
            try Recording.load(Array("BEGIN:VCALENDAR".utf8), describedAs: "written into /feeds/a.ics")
        } throws: { error in
            "\(error)".hasPrefix("the recording written into /feeds/a.ics cannot be played")
        }
        let huge = [UInt8](repeating: 0, count: Recording.mostBytes + 1)
        #expect {
            try Recording.load(huge, describedAs: "big")
        } throws: { error in
            "\(error)" == "the recording big is too large (16 MB; at most 16 MB)"
        }
    }

    /// A recording named in a calendar's folder is played only from that folder: a link there
    /// to a file elsewhere is refused (a link within the folder is followed).
    @Test func aLinkOutOfTheCalendarsFolderIsNotFollowed() throws {
        try withTemporaryFolder { temporary in
            let feeds = temporary.path + "/feeds"
            try FileManager.default.createDirectory(atPath: feeds + "/voices", withIntermediateDirectories: true)
            let wav = Data(tone(440, seconds: 0.5, rate: 16_000).wav)
            try wav.write(to: URL(fileURLWithPath: temporary.path + "/elsewhere.wav"))
            try wav.write(to: URL(fileURLWithPath: feeds + "/voices/pills.wav"))
            try FileManager.default.createSymbolicLink(atPath: feeds + "/out.wav", withDestinationPath: "../elsewhere.wav")
            try FileManager.default.createSymbolicLink(atPath: feeds + "/in.wav", withDestinationPath: "voices/pills.wav")
            #expect {
                try Recording.load(.file(feeds + "/out.wav", within: feeds))
            } throws: { error in
                "\(error)" == "the recording \(feeds)/out.wav leads out of the calendar's folder \(feeds) "
                    + "(to \(temporary.path)/elsewhere.wav); it is not played"
            }
            #expect(try Recording.load(.file(feeds + "/in.wav", within: feeds)).samples.count == 8_000)
            #expect(try Recording.load(.file(feeds + "/out.wav")).samples.count == 8_000, "a path given by hand is followed")
        }
    }

    @Test func hostileRecordingsAreRefusedWithTheirPaths() throws {
        try withTemporaryFolder { folder in
            func refusal(_ name: String, _ bytes: [UInt8]?) -> String {
                let path = folder.path + "/" + name
                if let bytes { #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes))) }
                do {
                    _ = try Recording.load(path)
                    return "loaded"
                } catch {
                    return error.description
                }
            }
            var random = SplitMix64(seed: 43)
            let garbage = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(refusal("garbage.wav", garbage).hasPrefix("the recording \(folder.path)/garbage.wav cannot be played"))
            #expect(refusal("missing.ogg", nil).contains("cannot be read: No such file or directory"))
            #expect(refusal("empty.flac", []).contains("cannot be played"))
            // 1 GB, as a file with a hole: refused by its size before anything is read.
            let huge = folder.path + "/huge.wav"
            #expect(FileManager.default.createFile(atPath: huge, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
            try handle.truncate(atOffset: 1 << 30)
            try handle.close()
            #expect(refusal("huge.wav", nil).contains("is too large (1024 MB; at most 16 MB)"))
            let long = tone(440, seconds: 61, rate: 8_000).wav
            #expect(refusal("long.wav", long).contains("lasts longer than 60 s"))
            // Truncated: what is there plays.
            let whole = tone(440, seconds: 1, rate: 8_000).wav
            #expect(refusal("truncated.wav", Array(whole.prefix(44 + 4_000))) == "loaded")
            try FileManager.default.createDirectory(atPath: folder.path + "/folder.wav", withIntermediateDirectories: false)
            #expect(refusal("folder.wav", nil).contains("is not a file"))
        }
    }
}
