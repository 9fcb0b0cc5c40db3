import Foundation
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// A reminder's words spoken by a natural neural voice: Piper run as a program, or a Wyoming
/// server asked over TCP. Either may be slow, missing or broken, so each is bounded in time and
/// size and says why it failed; the caller then speaks with eSpeak NG (`Speech`). Slow on a
/// small box (a second or more of work per reminder), so the box makes these ahead of time.
package enum NeuralSpeech {
    /// Piper's phoneme length: 1.2 times its own, the calm rate eSpeak's 140 words a minute is.
    package static let lengthScale = "1.2"
    /// The most seconds of speech kept: as long as a recording may be (a reminder is at most
    /// `Speech.mostCharacters` long, half a minute of speech).
    package static let mostSeconds = Recording.mostSeconds
    /// The longest one reminder's words may take to make (a Pi 4 speaks a reminder in seconds).
    package static let mostWaitSeconds = 60.0

    /// `text` (its symbols and emoji left out, as eSpeak is given it) in `choice`'s neural voice,
    /// made within `seconds`; `piperCommand`: the `piper` program, a path or a name on the `PATH`.
    package static func speak(
        _ text: String, voice choice: VoiceChoice, piperCommand: String = "piper", within seconds: Double
    ) throws(Speech.Failure) -> SoundClip {
        let words = Speech.speakable(text).text
        guard !words.isEmpty else { throw Speech.Failure(description: "there are no words to speak") }
        switch choice {
        case .espeak:
            // eSpeak NG speaks at the minute, in the display's language (`Speech`): never made ahead.
            throw Speech.Failure(description: "eSpeak NG is not a neural voice")
        case .piper(let model): return try piper(words, model: model, command: piperCommand, within: seconds)
        case .wyoming(let host, let port, let voice):
            return try WyomingClient(host: host, port: port, within: seconds).synthesize(words, voice: voice)
        }
    }

    /// Why `choice` cannot speak at all (its program or voice file missing), found without
    /// speaking; nil when it may (a Wyoming server is known only by asking it).
    package static func problem(of choice: VoiceChoice, piperCommand: String) -> String? {
        guard case .piper(let model) = choice else { return nil }
        do {
            _ = try program(piperCommand)
            _ = try sampleRate(ofModel: model)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Piper

    private static func piper(_ words: String, model: String, command: String, within seconds: Double) throws(Speech.Failure) -> SoundClip {
        let rate = try sampleRate(ofModel: model)
        let path = try program(command)
        let run = runProgram(
            path, ["--model", model, "--config", model + ".json", "--output-raw", "--length-scale", lengthScale],
            input: Array((words + "\n").utf8), within: seconds, outputLimit: Int(mostSeconds) * rate * 2)
        func failure(_ why: String) -> Speech.Failure { Speech.Failure(description: "Piper (\(path)) \(why)") }
        if run.timedOut { throw failure("did not finish within \(Int(seconds)) s") }
        if run.tooLong { throw failure("spoke longer than \(Int(mostSeconds)) s") }
        guard run.status == 0 else {
            let said = run.errors.split(separator: "\n").last.map { ": " + $0.prefix(300) } ?? ""
            if let signal = run.signal {
                // SIGILL: a processor without an instruction its libraries were built for.
                throw failure("was ended by signal \(signal) (\(String(cString: strsignal(signal))))\(said)")
            }
            throw failure(run.status == 127 ? "cannot be started\(said)" : "ended with status \(run.status)\(said)")
        }
        guard run.output.count >= rate / 10 else { throw failure("gave no sound") }
        return SoundClip(samples: littleEndianSamples(run.output[...]), sampleRate: rate)
    }

    /// The program `command` names: a path, or the first of that name on the `PATH`.
    private static func program(_ command: String) throws(Speech.Failure) -> String {
        if command.contains("/") {
            guard access(command, X_OK) == 0 else {
                throw Speech.Failure(description: "the Piper program \(command) cannot be run: \(String(cString: strerror(errno)))")
            }
            return command
        }
        let folders = (getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for folder in folders where access("\(folder)/\(command)", X_OK) == 0 { return "\(folder)/\(command)" }
        throw Speech.Failure(description: "no program called \"\(command)\" is on the PATH (install Piper: pipx install piper-tts; "
            + "or name it with piper_command)")
    }

    /// The samples a second of a Piper voice, from the `.onnx.json` beside its `.onnx`.
    package static func sampleRate(ofModel model: String) throws(Speech.Failure) -> Int {
        guard access(model, R_OK) == 0 else {
            throw Speech.Failure(description: "the Piper voice \(model) cannot be read: \(String(cString: strerror(errno)))")
        }
        let configuration = model + ".json"
        let bytes: [UInt8]
        switch readFile(configuration, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(let failure):
            throw Speech.Failure(description: "the Piper voice's settings \(configuration) cannot be read: \(failure)")
        }
        let settings = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        guard let audio = settings?["audio"] as? [String: Any], let rate = audio["sample_rate"] as? Int,
              (8_000...48_000).contains(rate)
        else { throw Speech.Failure(description: "\(configuration) is not a Piper voice's settings (no audio.sample_rate)") }
        return rate
    }
}

/// 16-bit little-endian samples from bytes (an odd last byte left out).
func littleEndianSamples(_ bytes: ArraySlice<UInt8>) -> [Int16] {
    let start = bytes.startIndex
    return (0..<bytes.count / 2).map { Int16(bitPattern: UInt16(bytes[start + 2 * $0]) | UInt16(bytes[start + 2 * $0 + 1]) << 8) }
}

/// One request to a Wyoming server (the protocol of Home Assistant's voice services): a
/// `synthesize` event sent, `audio-start`, `audio-chunk`s and `audio-stop` read back. An event is
/// a JSON line, then `data_length` bytes of more JSON, then `payload_length` bytes of audio.
/// Everything is bounded: the whole exchange by `within` seconds, a line, its data and the sound.
struct WyomingClient {
    let host: String
    let port: Int
    let within: Double

    /// The longest header line and data block read.
    static let mostHeaderBytes = 65_536

    private func failure(_ why: String) -> Speech.Failure {
        Speech.Failure(description: "the Wyoming server \(host.contains(":") ? "[\(host)]" : host):\(port) \(why)")
    }

    func synthesize(_ words: String, voice: String?) throws(Speech.Failure) -> SoundClip {
        let deadline = readClock(CLOCK_MONOTONIC) + Int64(within * 1e9)
        let socket = try connect(before: deadline)
        defer { close(socket) }
        var data: [String: Any] = ["text": words]
        if let voice { data["voice"] = ["name": voice] }
        guard let body = try? JSONSerialization.data(withJSONObject: data),
              let header = try? JSONSerialization.data(withJSONObject: ["type": "synthesize", "data_length": body.count])
        else { throw failure("cannot be asked (the words cannot be written as JSON)") }
        try send(Array(header) + [0x0A] + Array(body), on: socket, before: deadline)
        var reader = Reader(socket: socket, deadline: deadline, client: self)
        var rate: Int?
        var samples: [Int16] = []
        while true {
            let (type, fields, payload) = try reader.event()
            switch type {
            case "audio-start", "audio-chunk":
                let (width, channels) = (fields["width"] as? Int ?? 2, fields["channels"] as? Int ?? 1)
                guard let given = fields["rate"] as? Int, (8_000...48_000).contains(given), width == 2, (1...2).contains(channels) else {
                    throw failure("sent sound marquee does not play (\(String(describing: fields["rate"] ?? "no")) Hz, \(width * 8) bit, \(channels) channels)")
                }
                if let rate, rate != given { throw failure("changed its sample rate within one answer") }
                rate = given
                let chunk = littleEndianSamples(payload[...])
                if channels == 1 {
                    samples += chunk
                } else {
                    for index in stride(from: 0, to: chunk.count - 1, by: 2) {
                        samples.append(Int16((Int(chunk[index]) + Int(chunk[index + 1])) / 2))
                    }
                }
                guard Double(samples.count) <= NeuralSpeech.mostSeconds * Double(given) else {
                    throw failure("spoke longer than \(Int(NeuralSpeech.mostSeconds)) s")
                }
            case "audio-stop":
                guard let rate, samples.count >= rate / 10 else { throw failure("gave no sound") }
                return SoundClip(samples: samples, sampleRate: rate)
            case "error":
                throw failure("said: \(String(describing: fields["text"] ?? "an error").prefix(300))")
            default:
                continue
            }
        }
    }

    private func connect(before deadline: Int64) throws(Speech.Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else { throw failure("cannot be found: \(String(cString: gai_strerror(resolved)))") }
        defer { freeaddrinfo(found) }
        var lastProblem = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let kind: Int32 = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let socket = Glibc.socket(address.pointee.ai_family, kind, 0)
            guard socket >= 0 else { continue }
            if Glibc.connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS,
               wait(for: Int16(POLLOUT), on: socket, before: deadline) {
                var problem: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &problem, &length)
                if problem == 0 { return socket }
                lastProblem = String(cString: strerror(problem))
            } else {
                lastProblem = readClock(CLOCK_MONOTONIC) >= deadline ? "no answer within \(Int(within)) s" : String(cString: strerror(errno))
            }
            close(socket)
        }
        throw failure("cannot be reached: \(lastProblem)")
    }

    /// Whether `socket` is ready for `events` before the deadline.
    fileprivate func wait(for events: Int16, on socket: Int32, before deadline: Int64) -> Bool {
        while true {
            let left = (deadline - readClock(CLOCK_MONOTONIC)) / 1_000_000
            guard left > 0 else { return false }
            var watched = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&watched, 1, Int32(min(left, 60_000)))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }

    private func send(_ bytes: [UInt8], on socket: Int32, before deadline: Int64) throws(Speech.Failure) {
        var sent = 0
        while sent < bytes.count {
            guard wait(for: Int16(POLLOUT), on: socket, before: deadline) else { throw failure("took no request within \(Int(within)) s") }
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard count > 0 else { throw failure("closed the connection: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads events off the socket, buffered.
    private struct Reader {
        let socket: Int32
        let deadline: Int64
        let client: WyomingClient
        var buffer: [UInt8] = []

        mutating func event() throws(Speech.Failure) -> (type: String, data: [String: Any], payload: [UInt8]) {
            var line: [UInt8]
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    line = Array(buffer[..<end])
                    buffer.removeSubrange(...end)
                    break
                }
                guard buffer.count <= WyomingClient.mostHeaderBytes else { throw client.failure("sent a line too long for an event") }
                try fill()
            }
            guard let header = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let type = header["type"] as? String
            else { throw client.failure("sent something that is not a Wyoming event: \"\(String(decoding: line.prefix(60), as: UTF8.self))\"") }
            var data = header["data"] as? [String: Any] ?? [:]
            let dataLength = header["data_length"] as? Int ?? 0
            let payloadLength = header["payload_length"] as? Int ?? 0
            guard (0...WyomingClient.mostHeaderBytes).contains(dataLength), (0...(1 << 22)).contains(payloadLength) else {
                throw client.failure("announced an event too large (\(dataLength) + \(payloadLength) bytes)")
            }
            if dataLength > 0 {
                let more = try take(dataLength)
                guard let extra = try? JSONSerialization.jsonObject(with: Data(more)) as? [String: Any] else {
                    throw client.failure("sent an event whose data is not JSON")
                }
                data.merge(extra) { $1 }
            }
            return (type, data, payloadLength > 0 ? try take(payloadLength) : [])
        }

        private mutating func take(_ count: Int) throws(Speech.Failure) -> [UInt8] {
            while buffer.count < count { try fill() }
            defer { buffer.removeSubrange(..<count) }
            return Array(buffer[..<count])
        }

        private mutating func fill() throws(Speech.Failure) {
            guard client.wait(for: Int16(POLLIN), on: socket, before: deadline) else {
                throw client.failure("did not finish its answer within \(Int(client.within)) s")
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(socket, &chunk, chunk.count, 0)
            if count < 0, errno == EAGAIN || errno == EINTR { return }
            guard count > 0 else { throw client.failure("closed the connection before the end of its answer") }
            buffer += chunk[..<count]
        }
    }
}
