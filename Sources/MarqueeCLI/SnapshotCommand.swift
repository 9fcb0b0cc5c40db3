import Support
import ArgumentParser
import Daemon
import Display
import Marquee
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee snapshot`: the framebuffer display's picture at an instant, as a PNG file.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Render what the framebuffer display shows at an instant to a PNG file.")

    @OptionGroup var feedOptions: FeedOptions
    @OptionGroup var displayOptions: DisplayOptions

    @Option(name: .long, help: "The instant to show (default: now).")
    var at: String?

    @Option(name: .long, help: "Seconds the display has been running at that instant (default 0: it starts then).")
    var running: Double = 0

    @Option(name: .long, help: "The PNG file to write.")
    var out: String

    @Option(name: .long, help: "The screen size, WIDTHxHEIGHT (default 1920x1080).")
    var size: String = "1920x1080"

    func validate() throws {
        if let at { _ = try parseDisplayTime(at, option: "--at") }
        guard screenSize != nil else { throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 1920x1080 (64 to 8192 each)") }
        guard running >= 0, running <= 86_400 else { throw ValidationError("--running must be 0 to 86400 seconds") }
    }

    var screenSize: (width: Int, height: Int)? {
        let parts = size.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (64...8192).contains(width), (64...8192).contains(height) else { return nil }
        return (width, height)
    }

    func run() async throws {
        let file = try feedOptions.configurationFile()
        let settings = try displayOptions.settings(file, path: feedOptions.configurationPath, command: "snapshot")
        var png: [UInt8]
        do {
            let (picture, unusableFonts) = try await render(file, settings: settings)
            png = picture
            for font in unusableFonts { standardError("marquee snapshot: warning: \(font)") }
        } catch let error as FontError {
            standardError("marquee snapshot: \(error)")
            throw ExitCode(1)
        }
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            standardError("marquee snapshot: \(out): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
        defer { close(fd) }
        let written = png.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == png.count else {
            standardError("marquee snapshot: \(out): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
    }

    /// The picture as PNG bytes, and the fonts that could not be used.
    private func render(_ file: ConfigurationFile, settings: DisplaySettings) async throws -> ([UInt8], [String]) {
        let (width, height) = screenSize!
        let framebuffer = Framebuffer(width: width, height: height)
        let screen = try PixelScreen(scanout: framebuffer, style: DisplayOptions.style(file))
        let (schedule, instant) = try await feedOptions.loadSchedule(configuration: file, at: at)
        let shown = WallInstant(instant)
        let start = shown - Int64((running * 1e9).rounded())
        _ = try await showSnapshot(of: schedule, settings: settings, on: screen, displayStartedAt: start, at: shown)
        return (PNGImage.encode(framebuffer.surface), screen.fonts.unusable.map(\.description))
    }
}
