/// Which engine speaks the reminders (`voice` in marquee.toml): eSpeak NG, linked in, in every
/// language; or a natural neural voice — Piper run as a program of its own (it is GPL-3 and
/// Python: never linked), or any server that speaks the Wyoming protocol (Home Assistant's
/// Piper add-on, `wyoming-piper`).
package enum VoiceChoice: Sendable, Hashable, CustomStringConvertible {
    case espeak
    /// Piper with the voice file `model` (its `.onnx.json` beside it).
    case piper(model: String)
    /// A Wyoming server; `voice`: the name of one of its voices (nil: its own choice).
    case wyoming(host: String, port: Int, voice: String?)

    /// The port Wyoming's Piper listens on unless told.
    package static let wyomingPort = 10200

    /// Reads `espeak`, `piper:/path/voice.onnx` or `wyoming://host[:port][/voice]`; why not.
    package init(parsing text: String) throws(Speech.Failure) {
        let forms = "must be \"espeak\", \"piper:/path/to/voice.onnx\" or \"wyoming://host:10200\""
        if text == "espeak" {
            self = .espeak
        } else if text.hasPrefix("piper:") {
            let model = String(text.dropFirst("piper:".count))
            guard model.hasPrefix("/"), model.hasSuffix(".onnx"), !model.contains("\0") else {
                throw Speech.Failure(description: "\(forms): the voice file is named by its whole path, ending in .onnx")
            }
            self = .piper(model: model)
        } else if text.hasPrefix("wyoming://") {
            let rest = text.dropFirst("wyoming://".count)
            let address = rest.prefix { $0 != "/" }
            let voice = rest.dropFirst(address.count + 1)
            var host = Substring(address), port = Self.wyomingPort
            if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
                host = address[address.index(after: address.startIndex)..<close]
                let after = address[address.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let given = Int(after.dropFirst()) else { throw Speech.Failure(description: forms) }
                    port = given
                }
            } else if let colon = address.lastIndex(of: ":") {
                guard let given = Int(address[address.index(after: colon)...]) else { throw Speech.Failure(description: forms) }
                host = address[..<colon]
                port = given
            }
            guard !host.isEmpty, (1...65_535).contains(port),
                  host.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || "0123456789.-:_".unicodeScalars.contains($0) }),
                  voice.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else { throw Speech.Failure(description: forms) }
            self = .wyoming(host: String(host), port: port, voice: voice.isEmpty ? nil : String(voice))
        } else {
            throw Speech.Failure(description: forms)
        }
    }

    package var description: String {
        switch self {
        case .espeak: "espeak"
        case .piper(let model): "piper:" + model
        case .wyoming(let host, let port, let voice):
            "wyoming://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)" + (voice.map { "/" + $0 } ?? "")
        }
    }

    /// The engine's name as the journal and the status say it.
    package var engine: String {
        switch self {
        case .espeak: "espeak"
        case .piper: "piper"
        case .wyoming: "wyoming"
        }
    }
}
