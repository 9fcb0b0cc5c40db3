import Foundation
import LoopbackServers
import Sound
import Support
import TestSupport
import Testing

/// How the `voice` setting is read: each form, and what is refused.
struct VoiceChoiceTests {
    @Test func theThreeForms() throws {
        #expect(try VoiceChoice(parsing: "espeak") == .espeak)
        #expect(try VoiceChoice(parsing: "piper:/opt/voices/de_DE-thorsten-medium.onnx")
            == .piper(model: "/opt/voices/de_DE-thorsten-medium.onnx"))
        #expect(try VoiceChoice(parsing: "wyoming://homeassistant.local") == .wyoming(host: "homeassistant.local", port: 10200, voice: nil))
        #expect(try VoiceChoice(parsing: "wyoming://192.168.1.5:10300/en_GB-alba-medium")
            == .wyoming(host: "192.168.1.5", port: 10300, voice: "en_GB-alba-medium"))
        #expect(try VoiceChoice(parsing: "wyoming://[fd00::5]:10200") == .wyoming(host: "fd00::5", port: 10200, voice: nil))
        for text in ["espeak", "piper:/a/b.onnx", "wyoming://h:10200", "wyoming://[fd00::5]:1/v"] {
            #expect(try VoiceChoice(parsing: text).description == text)
        }
    }

    @Test func whatIsRefused() {
        for text in ["", "Espeak", "piper:voice.onnx", "piper:/a/voice.txt", "wyoming://", "wyoming://h:0", "wyoming://h:99999",
                     "wyoming://h:port", "wyoming://h;rm -rf:1", "http://h:10200", "wyoming://h:1/a voice"] {
            #expect(throws: Speech.Failure.self, "\(text)") { try VoiceChoice(parsing: text) }
        }
    }
}

/// Piper run as a program and a Wyoming server asked over TCP — the real ones, from PyPI
/// (`scripts/test-voices`): what they say is heard; whatever fails, hangs or floods is said
/// with its reason within its bound.
@Suite(.tier(.live, needs: [.program(TestVoices.piper)]))
struct NeuralSpeechTests {
    private let words = "Pills now, Anna. It is time for your tablets."

    @Test func piperSpeaksInItsOwnVoiceAtACalmRate() throws {
        let began = readClock(CLOCK_MONOTONIC)
        let piper = try NeuralSpeech.speak(words, voice: .piper(model: TestVoices.model), piperCommand: TestVoices.piper, within: 60)
        let seconds = Double(readClock(CLOCK_MONOTONIC) - began) / 1e9
        let espeak = try Speech.speak(words, language: "en_US").clip
        #expect(piper.sampleRate == 22_050)
        // Spoken, not silence: about three seconds of words, most of its windows loud.
        #expect((2.0...6.0).contains(piper.seconds), "\(piper.seconds) s")
        let loud = stride(from: 0.0, to: piper.seconds - 0.1, by: 0.1).filter { rms(window(piper, from: $0, seconds: 0.1)) > 300 }
        #expect(Double(loud.count) > piper.seconds * 10 * 0.5, "\(loud.count) loud windows of \(piper.seconds) s")
        #expect(piper != espeak && abs(piper.seconds - espeak.seconds) > 0.05)
        // Piper's own pace is quicker: the calm rate is applied. Its lengths vary a little from
        // one run to the next (its noise), so three of each are summed.
        let calm = try (0..<2).reduce(piper.seconds) { total, _ in
            try total + NeuralSpeech.speak(words, voice: .piper(model: TestVoices.model), piperCommand: TestVoices.piper, within: 60).seconds
        }
        let hurried = (0..<3).reduce(0.0) { total, _ in
            total + Double(runProgram(TestVoices.piper, ["--model", TestVoices.model, "--output-raw"], input: Array(words.utf8))
                .output.count / 2) / 22_050
        }
        #expect(calm > hurried * 1.05, "\(calm) s calm, \(hurried) s at Piper's own pace")
        print("Piper: \((piper.seconds * 100).rounded() / 100) s of speech made in \((seconds * 100).rounded() / 100) s "
              + "(the program started and its voice loaded each time)")
    }

    @Test func aBrokenPiperIsSaidWithItsReason() throws {
        try withTemporaryFolder { folder in
            func failure(_ voice: VoiceChoice, command: String = TestVoices.piper, within: Double = 60) -> String {
                do {
                    _ = try NeuralSpeech.speak(words, voice: voice, piperCommand: command, within: within)
                    return "spoke"
                } catch {
                    return error.description
                }
            }
            func program(_ name: String, _ body: String) throws -> String {
                let path = folder.path + "/" + name
                try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                chmod(path, 0o755)
                return path
            }
            let model = VoiceChoice.piper(model: TestVoices.model)
            #expect(failure(.piper(model: folder.path + "/none.onnx")).contains("the Piper voice \(folder.path)/none.onnx cannot be read"))
            let lonely = folder.path + "/lonely.onnx"
            try Data("onnx".utf8).write(to: URL(fileURLWithPath: lonely))
            #expect(failure(.piper(model: lonely)).contains("\(lonely).json cannot be read"))
            try Data("{\"audio\": {}}".utf8).write(to: URL(fileURLWithPath: lonely + ".json"))
            #expect(failure(.piper(model: lonely)).contains("is not a Piper voice's settings"))
            #expect(failure(model, command: "no-such-piper").contains("no program called \"no-such-piper\" is on the PATH"))
            #expect(failure(model, command: folder.path + "/missing").contains("cannot be run"))
            let broken = try program("broken", "echo 'onnxruntime: model is corrupt' >&2; exit 3")
            #expect(failure(model, command: broken).contains("ended with status 3: onnxruntime: model is corrupt"))
            let illegal = try program("illegal", "kill -ILL $$")
            #expect(failure(model, command: illegal).contains("was ended by signal 4 (Illegal instruction)"))
            let mute = try program("mute", "cat > /dev/null")
            #expect(failure(model, command: mute).contains("gave no sound"))
            // Hangs (and its child with it): ended at the bound, nothing left running.
            let hanging = try program("hanging", "sleep 317 & sleep 317")
            let began = readClock(CLOCK_MONOTONIC)
            #expect(failure(model, command: hanging, within: 1.5).contains("did not finish within 1 s"))
            #expect(Double(readClock(CLOCK_MONOTONIC) - began) / 1e9 < 3)
            #expect(runProgram("/usr/bin/pgrep", ["-f", "sleep 317"]).status == 1, "the hanging Piper and its child were ended")
            let flooding = try program("flooding", "cat /dev/zero")
            #expect(failure(model, command: flooding).contains("spoke longer than 60 s"))
        }
    }

    /// The tests' Wyoming server (the protocol's own library, Piper's voice) in one mode.
    private final class WyomingServer {
        let process: Spawned
        let port: Int

        init(_ mode: String) throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/wyoming_server.py").path
            let output = try Spawned.pipe()
            process = try Spawned(TestVoices.python, [script, TestVoices.model, mode], output: output.write)
            close(output.write)
            defer { close(output.read) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(output.read, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            guard let port = Int(String(decoding: line, as: UTF8.self)) else {
                process.send(SIGKILL)
                process.wait()
                throw POSIXError(.EIO)
            }
            self.port = port
        }

        deinit {
            process.send(SIGKILL)
            process.wait()
        }

        func speak(_ words: String, within: Double = 20) -> Result<SoundClip, Speech.Failure> {
            Result { () throws(Speech.Failure) in
                try NeuralSpeech.speak(words, voice: .wyoming(host: "127.0.0.1", port: port, voice: nil), within: within)
            }
        }
    }

    @Test func aWyomingServerSpeaks() throws {
        let server = try WyomingServer("speak")
        let clip = try server.speak(words).get()
        #expect(clip.sampleRate == 22_050 && (1.5...6.0).contains(clip.seconds), "\(clip.seconds) s")
        #expect(rms(window(clip, from: 0.3, seconds: 1.0)) > 300)
    }

    @Test func aWyomingServerThatFailsIsSaid() throws {
        func failure(_ mode: String, within: Double = 20) throws -> String {
            let server = try WyomingServer(mode)
            guard case .failure(let failure) = server.speak(words, within: within) else { return "spoke" }
            return failure.description
        }
        let closed = try failure("close"), garbage = try failure("garbage")
        #expect(closed.contains("closed the connection before the end of its answer"), "\(closed)")
        #expect(garbage.contains("sent something that is not a Wyoming event: \"this is not an event\""), "\(garbage)")
        let began = readClock(CLOCK_MONOTONIC)
        let silent = try failure("silent", within: 1.5)
        #expect(silent.contains("did not finish its answer within 1 s"), "\(silent)")
        #expect(Double(readClock(CLOCK_MONOTONIC) - began) / 1e9 < 8)
        // Nobody listens on the port any more.
        let gone = try WyomingServer("speak").port
        let refused = Result { () throws(Speech.Failure) in
            try NeuralSpeech.speak(words, voice: .wyoming(host: "127.0.0.1", port: gone, voice: nil), within: 5)
        }
        guard case .failure(let failure) = refused else { Issue.record("spoke to nobody"); return }
        #expect(failure.description.contains("cannot be reached: Connection refused"))
    }
}
