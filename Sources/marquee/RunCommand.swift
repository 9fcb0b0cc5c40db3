import ArgumentParser
import CLinux
import Daemon
import Display
import Marquee
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee run`: the display itself.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Show the active messages as a calm, endless ticker.")

    enum Output: String, ExpressibleByArgument, CaseIterable {
        case auto, terminal, framebuffer
    }

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "Where to draw: auto, terminal or framebuffer.")
    var output = Output.auto

    @Option(name: .long, help: "Start the display's clock at this instant and let it run on (a preview).")
    var at: String?

    @Option(name: .long, help: "Scrolling speed in characters per second (1–12).")
    var speed = 5.0

    @Option(name: .long, help: "What goes between messages.")
    var separator = " • "

    @Option(name: .long, help: "Show every message this way: scroll, typewriter or dance (default: each its own).")
    var effect: String?

    @Option(name: .long, help: "A folder of its own where last good copies of the feeds are kept across restarts.")
    var stateDir: String?

    @Option(name: .long, help: "The status and control socket (default: \(defaultSocket), if its folder is writable).")
    var socket: String?

    func validate() throws {
        if let at { _ = try parseTime(at, option: "--at") }
        guard (1...12).contains(speed) else { throw ValidationError("--speed must be between 1 and 12 characters per second") }
        if let effect, MessageEffect(rawValue: effect) == nil {
            throw ValidationError("--effect must be scroll, typewriter or dance")
        }
        if output == .framebuffer {
            throw ValidationError("the framebuffer output is not built yet; use --output terminal")
        }
    }

    func run() async throws {
        guard isatty(STDOUT_FILENO) == 1 else {
            standardError("marquee run: standard output is not a terminal")
            throw ExitCode(1)
        }
        let environment = environment()
        let log = EventLog(environment: environment)
        let (schedule, start) = try await prepare(log: log)
        var marqueeConfiguration = MarqueeConfiguration(charactersPerSecond: speed, separator: separator)
        marqueeConfiguration.effectForAll = effect.flatMap(MessageEffect.init(rawValue:))
        let capabilities = TerminalScreen.Capabilities.detect(fd: STDOUT_FILENO, environment: environment)
        var info = stat()
        let folder = stat(feedOptions.feeds, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? feedOptions.feeds : nil
        let control = DisplayControl(initial: StatusReport(updatedAt: "", output: "terminal"), wake: { mq_wake_sleeper() })
        let server: ControlServer?
        do {
            server = try ControlServer(path: socket ?? defaultSocket, control: control) {
                reloadFeeds(schedule, log: log)
            }
        } catch {
            guard socket == nil else {
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
        let status = await onRenderThread { [marqueeConfiguration] in
            TerminalTicker(
                schedule: schedule, clock: DisplayClock(startingAt: start), configuration: marqueeConfiguration,
                screen: TerminalScreen(fd: STDOUT_FILENO, capabilities: capabilities), feedFolder: folder,
                control: control, environment: environment, log: log,
                systemZoneFolder: feedOptions.timezone == nil && environment["TZ"] == nil ? "/etc" : nil
            ).run()
        }
        withExtendedLifetime(server) {}
        if status != 0 { throw ExitCode(status) }
    }

    /// The loaded schedule and, with `--at`, the display clock's start in nanoseconds.
    @ICalActor private func prepare(log: EventLog) throws -> (Schedule, Nanoseconds?) {
        // Problems go to the journal under systemd, else to the terminal before the ticker takes it.
        let schedule = try feedOptions.loadSchedule(reportProblems: !log.isEnabled, lastGoodDirectory: stateDir)
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
