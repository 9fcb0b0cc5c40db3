import Foundation
import Sound
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
            #expect(figures.spoken.voice == "en-gb" && figures.spoken.voiceMatched)
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
    @Test func aMissingDeviceIsSaidByName() throws {
        let device = SoundDevice(name: "hw:CARD=NoSuchCard")
        #expect {
            try ReminderSound.play("hello", language: "en", volume: Volume(percent: 50)!, on: device)
        } throws: { error in
            "\(error)".contains("cannot open the sound device \"hw:CARD=NoSuchCard\"")
        }
    }
}
