import Display

/// Where `marquee run` draws, decided once at start from what was asked and what the machine
/// allows, with the reason said in words for the journal: a kiosk that falls back to the
/// console's small text must say why.
public struct OutputChoice: Equatable, Sendable {
    /// What the user asked for (`--output`, `output =`).
    public enum Request: String, Sendable, CaseIterable {
        case auto, terminal, framebuffer
    }

    enum Target: Equatable, Sendable {
        case framebuffer, terminal
    }

    let target: Target
    /// Why: "tty1 is marquee's controlling terminal and /dev/fb0 is writable".
    public let reason: String
    /// True when `auto` wanted the framebuffer and could not have it: a warning, never silent.
    let isFallback: Bool

    /// - Parameters:
    ///   - console: the virtual console marquee runs on (its standard input), nil if none.
    ///   - deviceProblem: why the framebuffer device cannot be written (nil: it can).
    static func decide(
        _ request: Request, device: String, console: (number: Int, ownership: VirtualConsole.Ownership)?,
        deviceProblem: String?
    ) -> OutputChoice {
        switch request {
        case .terminal:
            return OutputChoice(target: .terminal, reason: "asked for the terminal", isFallback: false)
        case .framebuffer:
            return OutputChoice(target: .framebuffer, reason: "asked for the framebuffer", isFallback: false)
        case .auto:
            guard let console else {
                return OutputChoice(
                    target: .terminal, reason: "standard input is not a Linux virtual console", isFallback: false)
            }
            if case .notOurs(let why) = console.ownership {
                return OutputChoice(
                    target: .terminal, reason: "cannot put tty\(console.number) in graphics mode: \(why)",
                    isFallback: true)
            }
            if let deviceProblem {
                return OutputChoice(target: .terminal, reason: "\(device): \(deviceProblem)", isFallback: true)
            }
            let owner = console.ownership == .root ? "marquee runs as root" : "tty\(console.number) is marquee's controlling terminal"
            return OutputChoice(target: .framebuffer, reason: "\(owner) and \(device) is writable", isFallback: false)
        }
    }
}
