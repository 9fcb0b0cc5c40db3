// The file → messages path under libFuzzer: any bytes, as a feed file, loaded by the
// Schedule with libical in this process (so a crash or hang in libical is found, not hidden
// by the helper process), then asked what the display and the CLI ask. Built and run by
// scripts/fuzz-schedule; without -DFUZZING it replays files given as arguments.
import Dispatch
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// Where each input is written for the Schedule to read (one folder per process).
let feedPath: String = {
    var template = Array("/tmp/marquee-fuzz-XXXXXX".utf8CString)
    guard let folder = mkdtemp(&template) else { fatalError("cannot make a temporary folder") }
    return String(cString: folder) + "/feed.ics"
}()

/// Removes the input's folder (libFuzzer ends with `exit`, after which this runs too).
func removeFeedFolder() {
    unlink(feedPath)
    rmdir(String(feedPath.dropLast("/feed.ics".count)))
}

/// Noon on 24 November 2026 in Berlin, and two weeks on: where the queries are.
let noon = Instant(secondsSinceEpoch: 1_795_518_000)
let later = Instant(secondsSinceEpoch: 1_795_518_000 + 14 * 86_400)

/// Loads `bytes` as a feed and asks the schedule for messages, changes and an agenda, checking
/// what must hold for any file: every message is active at the instant it was asked for, no
/// text shows twice, changes move forward.
func exercise(_ bytes: [UInt8]) async {
    let descriptor = open(feedPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(descriptor >= 0, "cannot write \(feedPath)")
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard let schedule = try? await Schedule(displayZone: "Europe/Berlin", reader: .inProcess) else {
        fatalError("Europe/Berlin is unknown: is tzdata installed?")
    }
    await schedule.load([feedPath], around: noon)
    var at = noon
    for _ in 0..<8 {
        let messages = await schedule.messages(at: at)
        for message in messages {
            precondition(message.start.instant <= at && at < message.end.instant,
                         "\(message.text) is not active at \(at.secondsSinceEpoch): \(message.start.rfc3339)–\(message.end.rfc3339)")
        }
        precondition(Set(messages.map(\.text)).count == messages.count, "a text shows twice at \(at.secondsSinceEpoch)")
        guard let next = await schedule.nextChange(after: at) else { break }
        precondition(next > at, "the next change \(next.secondsSinceEpoch) is not after \(at.secondsSinceEpoch)")
        at = next
    }
    _ = await schedule.snapshot(at: noon)
    _ = await schedule.agenda(from: noon, to: later, limit: 200)
    _ = await schedule.feeds
}

/// Runs `exercise` to its end from a thread that is not Swift's cooperative pool.
func exerciseWaiting(_ bytes: [UInt8]) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await exercise(bytes)
        done.signal()
    }
    done.wait()
}

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    @main struct ScheduleFuzz {
        static func main() {
            atexit { removeFeedFolder() }
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv) { data, size in
                exerciseWaiting(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                return 0
            })
        }
    }
#else
    /// Replays inputs (a crash the fuzzer saved, the seed corpus) through the same path.
    @main struct ScheduleFuzz {
        static func main() {
            for path in CommandLine.arguments.dropFirst() {
                let descriptor = open(path, O_RDONLY)
                guard descriptor >= 0 else { fatalError("cannot open \(path)") }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while case let count = read(descriptor, &chunk, chunk.count), count > 0 { bytes += chunk[0..<count] }
                close(descriptor)
                exerciseWaiting(bytes)
                print("ok: \(path)")
            }
            removeFeedFolder()
        }
    }
#endif
