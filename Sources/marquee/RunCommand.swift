import ArgumentParser
import CLinux
import Daemon
import Display
import Marquee
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee run`: the display itself. Settings come from the command line, else the
/// configuration file, else the defaults.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Show the active messages as a calm, endless ticker.")

    enum Output: String, ExpressibleByArgument, CaseIterable {
        case auto, terminal, framebuffer
    }

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "Where to draw: auto, terminal or framebuffer.")
    var output: Output?

    @Option(name: .long, help: "Start the display's clock at this instant and let it run on (a preview).")
    var at: String?

    @Option(name: .long, help: "Scrolling speed in characters per second (1–12; default 5).")
    var speed: Double?

    @Option(name: .long, help: "What goes between messages (default \" • \").")
    var separator: String?

    @Option(name: .long, help: "Show every message this way: scroll, typewriter or dance (default: each its own).")
    var effect: String?

    @Option(name: .long, help: "A folder of its own where last good copies of the feeds are kept across restarts.")
    var stateDir: String?

    @Option(name: .long, help: "The status and control socket (default: \(defaultSocket), if its folder is writable).")
    var socket: String?

    func validate() throws {
        if let at { _ = try parseTime(at, option: "--at") }
        if let speed, !(1...12).contains(speed) {
            throw ValidationError("--speed must be between 1 and 12 characters per second")
        }
        if let effect, MessageEffect(rawValue: effect) == nil {
            throw ValidationError("--effect must be scroll, typewriter or dance")
        }
    }

    /// Command line over configuration file over defaults.
    func settings(_ file: ConfigurationFile) throws -> DisplaySettings {
        var marquee = MarqueeConfiguration(
            charactersPerSecond: speed ?? file.speed ?? 5, separator: separator ?? file.separator ?? " • ")
        marquee.effectForAll = (effect ?? file.effect).flatMap(MessageEffect.init(rawValue:))
        var colour: Colour?
        if let name = file.textColour {
            guard let parsed = RGBColor(css: name) else {
                throw ConfigurationError(path: feedOptions.config ?? defaultConfiguration, line: nil, key: "text_colour",
                                         message: "\"\(name)\" is not a CSS colour name or #rrggbb")
            }
            colour = Colour(red: parsed.red, green: parsed.green, blue: parsed.blue)
        }
        return DisplaySettings(marquee: marquee, idleText: file.idleText ?? "{date}", textColour: colour)
    }

    func run() async throws {
        let file = try feedOptions.configurationFile()
        let settings: DisplaySettings
        do {
            settings = try self.settings(file)
        } catch {
            standardError("marquee run: \(error)")
            throw ExitCode(1)
        }
        guard (output ?? file.output.flatMap(Output.init(rawValue:)) ?? .auto) != .framebuffer else {
            standardError("marquee run: the framebuffer output is not built yet; use --output terminal")
            throw ExitCode(2)
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            standardError("marquee run: standard output is not a terminal")
            throw ExitCode(1)
        }
        let environment = environment()
        let log = EventLog(environment: environment)
        let (schedule, start) = try await prepare(file, log: log)
        let capabilities = TerminalScreen.Capabilities.detect(fd: STDOUT_FILENO, environment: environment)
        let feeds = feedOptions.feeds ?? file.feeds ?? defaultFeeds
        var info = stat()
        let folder = stat(feeds, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? feeds : nil
        let control = DisplayControl(initial: StatusReport(updatedAt: "", output: "terminal"), wake: { mq_wake_sleeper() })
        let server: ControlServer?
        do {
            server = try ControlServer(path: socket ?? file.socket ?? defaultSocket, group: file.socketGroup,
                                       control: control)
        } catch {
            guard socket == nil, file.socket == nil else {
                standardError("marquee run: \(error)")
                throw ExitCode(1)
            }
            server = nil
            if log.isEnabled {
                log.log(.warning, "no status socket (\(error))")
            } else {
                standardError("marquee run: no status socket (\(error))")
            }
        }
        // A reload reads the file again; a broken file keeps the settings in use.
        let reloadSettings: @Sendable () -> DisplaySettings? = { [self] in
            do {
                return try self.settings(try feedOptions.loadConfiguration())
            } catch {
                log.log(.error, "\(error); keeping the previous configuration")
                return nil
            }
        }
        let followZone = feedOptions.timezone == nil && file.timezone == nil && environment["TZ"] == nil
        let status = await onRenderThread {
            TerminalTicker(
                schedule: schedule, clock: DisplayClock(startingAt: start), settings: settings,
                screen: TerminalScreen(fd: STDOUT_FILENO, capabilities: capabilities), feedFolder: folder,
                control: control, environment: environment, log: log, systemZoneFolder: followZone ? "/etc" : nil,
                reloadSettings: reloadSettings
            ).run()
        }
        withExtendedLifetime(server) {}
        if status != 0 { throw ExitCode(status) }
    }

    /// The loaded schedule and, with `--at`, the display clock's start in nanoseconds.
    @ICalActor private func prepare(_ file: ConfigurationFile, log: EventLog) throws -> (Schedule, Nanoseconds?) {
        // Problems go to the journal under systemd, else to the terminal before the ticker takes it.
        let schedule = try feedOptions.loadSchedule(
            configuration: file, reportProblems: !log.isEnabled, lastGoodDirectory: stateDir ?? file.stateDirectory)
        log.feeds(schedule.feeds)
        let start = try at.map { schedule.instant(of: try parseTime($0, option: "--at")).secondsSinceEpoch * 1_000_000_000 }
        return (schedule, start)
    }
}

/// The process environment as a dictionary.
func environment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let pair = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        entry += 1
    }
    return result
}
