import Support
import ArgumentParser
import Daemon
import Display
import Marquee
import Schedule

/// How messages are shown, shared by `run` and `snapshot`: command line over configuration
/// file over defaults.
struct DisplayOptions: ParsableArguments {
    @Option(name: .long, help: "Scrolling speed in characters per second (1 to 12; default 5).")
    var speed: Double?

    @Option(name: .long, help: "What goes between messages (default: a bullet with a space on each side).")
    var separator: String?

    @Option(name: .long, help: "Show every message this way: scroll, typewriter or dance (default: each its own).")
    var effect: String?

    func validate() throws {
        if let speed, !(1...12).contains(speed) {
            throw ValidationError("--speed must be between 1 and 12 characters per second")
        }
        if let effect, MessageEffect(rawValue: effect) == nil {
            throw ValidationError("--effect must be scroll, typewriter or dance")
        }
    }

    /// The settings, or the command ends with the error (exit 1).
    func settings(_ file: ConfigurationFile, path: String, command: String) throws -> DisplaySettings {
        do {
            return try settings(file, path: path)
        } catch {
            standardError("marquee \(command): \(error)")
            throw ExitCode(1)
        }
    }

    func settings(_ file: ConfigurationFile, path: String) throws -> DisplaySettings {
        var marquee = MarqueeConfiguration(
            charactersPerSecond: speed ?? file.speed ?? 5, separator: separator ?? file.separator ?? " • ")
        marquee.effectForAll = (effect ?? file.effect).flatMap(MessageEffect.init(rawValue:))
        var colour: Colour?
        if let name = file.textColour {
            guard let parsed = Colour(css: name) else {
                throw ConfigurationError(path: path, line: nil, key: "text_colour",
                                         message: "\"\(name)\" is not a CSS colour name or #rrggbb")
            }
            colour = Colour(red: parsed.red, green: parsed.green, blue: parsed.blue)
        }
        return DisplaySettings(marquee: marquee, idleText: file.idleText ?? "{date}", textColour: colour, night: file.nightSettings,
                               televisionStandby: file.cecStandby ?? false)
    }

    /// The framebuffer's fonts and text size from the configuration file.
    static func style(_ file: ConfigurationFile) -> FramebufferStyle {
        var style = FramebufferStyle()
        if let font = file.font { style.fontPaths = [font] + style.fontPaths.filter { $0 != font } }
        if let height = file.textHeight { style.textHeight = height }
        if let megabytes = file.glyphCacheMegabytes { style.glyphCacheBudget = megabytes << 20 }
        return style
    }
}
