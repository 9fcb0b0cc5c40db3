import Display

/// Where `marquee run` may draw, decided at start from what was asked and what the machine
/// allows, as outputs to try in order, with the reason said in words for the journal: a kiosk
/// that falls back to the console's small text must say why.
package struct OutputChoice: Equatable, Sendable {
    /// What the user asked for (`--output`, `output =`).
    package enum Request: String, Sendable, CaseIterable {
        case auto, kms, framebuffer, terminal
    }

    enum Target: String, Equatable, Sendable {
        case kms = "KMS", framebuffer, terminal
    }

    /// The outputs to try, best first; the first that opens is drawn on.
    let targets: [Target]
    /// Why: "tty1 is marquee's controlling terminal".
    package let reason: String
    /// True when `auto` wanted pixels and may not have them: a warning, never silent.
    let isFallback: Bool

    /// - Parameters:
    ///   - device: the device asked for (`/dev/dri/card1` for KMS, `/dev/fb1` for a
    ///     framebuffer; nil: any card, then `/dev/fb0`).
    ///   - console: the virtual console marquee runs on (its standard input), nil if none.
    static func decide(
        _ request: Request, device: String?, console: (number: Int, ownership: VirtualConsole.Ownership)?
    ) -> OutputChoice {
        switch request {
        case .terminal:
            return OutputChoice(targets: [.terminal], reason: "asked for the terminal", isFallback: false)
        case .kms:
            return OutputChoice(targets: [.kms], reason: "asked for KMS", isFallback: false)
        case .framebuffer:
            return OutputChoice(targets: [.framebuffer], reason: "asked for the framebuffer", isFallback: false)
        case .auto:
            guard let console else {
                return OutputChoice(
                    targets: [.terminal], reason: "standard input is not a Linux virtual console", isFallback: false)
            }
            if case .notOurs(let why) = console.ownership {
                return OutputChoice(
                    targets: [.terminal], reason: "cannot put tty\(console.number) in graphics mode: \(why)",
                    isFallback: true)
            }
            let owner = console.ownership == .root ? "marquee runs as root" : "tty\(console.number) is marquee's controlling terminal"
            let pixels: [Target] = switch device {
            case nil: [.kms, .framebuffer]
            case let path? where isKMSDevice(path): [.kms]
            case _?: [.framebuffer]
            }
            return OutputChoice(targets: pixels + [.terminal], reason: owner, isFallback: false)
        }
    }

    /// Whether a device path names a DRM card rather than a framebuffer.
    static func isKMSDevice(_ path: String) -> Bool { path.hasPrefix("/dev/dri/") }
}
