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

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "Where to draw: auto, terminal or framebuffer.")
    var output: OutputChoice.Request?

    @Option(name: .long, help: "Start the display's clock at this instant and let it run on (a preview).")
    var at: String?

    @OptionGroup var displayOptions: DisplayOptions

    @Option(name: .long, help: "The framebuffer device (default /dev/fb0).")
    var device: String?

    @Option(name: .long, help: "A folder of its own where last good copies of the feeds are kept across restarts.")
    var stateDir: String?

    @Option(name: .long, help: "The status and control socket (default: \(defaultSocket), if its folder is writable).")
    var socket: String?

    func validate() throws {
        if let at { _ = try parseTime(at, option: "--at") }
    }

    func run() async throws {
        let file = try feedOptions.configurationFile()
        let settings = try displayOptions.settings(file, path: feedOptions.configurationPath, command: "run")
        let requested = output ?? file.output.flatMap(OutputChoice.Request.init(rawValue:)) ?? .auto
        let device = self.device ?? file.device ?? "/dev/fb0"
        let style = DisplayOptions.style(file)
        if requested == .terminal, isatty(STDOUT_FILENO) != 1 {
            standardError("marquee run: standard output is not a terminal")
            throw ExitCode(1)
        }
        let environment = environment()
        let log = EventLog(environment: environment)
        let (schedule, start) = try await prepare(file, log: log)
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
            log.tell(.warning, "no status socket (\(error))")
        }
        // A reload reads the file again; a broken file keeps the settings in use.
        let reloadSettings: @Sendable () -> DisplaySettings? = { [self] in
            do {
                return try displayOptions.settings(try feedOptions.loadConfiguration(), path: feedOptions.configurationPath)
            } catch {
                log.log(.error, "\(error); keeping the previous configuration")
                return nil
            }
        }
        let followZone = feedOptions.timezone == nil && file.timezone == nil && environment["TZ"] == nil
        let status = await onRenderThread {
            while true {
                guard let screen = chooseScreen(requested, device: device, style: style, environment: environment, log: log)
                else { return 1 }
                let ending = Ticker(
                    schedule: schedule, clock: DisplayClock(startingAt: start), settings: settings,
                    screen: screen, feedFolder: folder,
                    control: control, environment: environment, log: log, systemZoneFolder: followZone ? "/etc" : nil,
                    reloadSettings: reloadSettings
                ).run()
                switch ending {
                case .finished(let status): return status
                case .screenReplaced: waitForDevice(device)
                }
            }
        }
        withExtendedLifetime(server) {}
        if status != 0 { throw ExitCode(status) }
    }

    /// The framebuffer when asked for, or with `auto` when marquee runs on a virtual console it
    /// may put in graphics mode and may draw on the device; else the terminal. The choice and
    /// its reason go to the journal (a fallback as a warning). nil (after saying why) when
    /// neither works.
    private func chooseScreen(
        _ requested: OutputChoice.Request, device: String, style: FramebufferStyle, environment: [String: String],
        log: EventLog
    ) -> (any TickerScreen)? {
        let console = VirtualConsole(fd: STDIN_FILENO)
        let deviceProblem = access(device, W_OK) == 0 ? nil : String(cString: strerror(errno))
        let choice = OutputChoice.decide(
            requested, device: device, console: console.map { ($0.number, $0.ownership) }, deviceProblem: deviceProblem)
        if choice.target == .framebuffer {
            do {
                let framebuffer = try Framebuffer(device: device)
                let screen = try FramebufferScreen(framebuffer: framebuffer, devicePath: device, style: style, console: console)
                for font in screen.fonts.unusable { log.tell(.warning, "\(font)") }
                log.log(.notice, "drawing on \(screen.outputDescription) (\(choice.reason))")
                return screen
            } catch {
                log.tell(.error, "\(error)" + (requested == .auto ? "; using the terminal" : ""))
                guard requested == .auto else { return nil }
            }
        } else if choice.isFallback {
            log.log(.warning, "not drawing on the framebuffer: \(choice.reason); using the terminal")
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            log.tell(.error, "standard output is not a terminal and there is no framebuffer to draw on")
            return nil
        }
        let screen = TerminalScreen(
            fd: STDOUT_FILENO, capabilities: TerminalScreen.Capabilities.detect(fd: STDOUT_FILENO, environment: environment))
        log.log(.notice, "drawing on the \(screen.outputDescription) (\(choice.reason))")
        return screen
    }

    /// After a framebuffer went away, its successor takes a moment to appear (udev creates the
    /// node, then gives it its group): up to 10 s for the device to open for writing.
    private func waitForDevice(_ device: String) {
        for _ in 0..<100 {
            let fd = open(device, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                close(fd)
                return
            }
            usleep(100_000)
        }
    }

    /// The loaded schedule and, with `--at`, the display clock's start in nanoseconds.
    @ICalActor private func prepare(_ file: ConfigurationFile, log: EventLog) throws -> (Schedule, Nanoseconds?) {
        // Problems go to the journal under systemd, else to the terminal before the ticker takes it.
        let (schedule, start) = try feedOptions.loadSchedule(
            configuration: file, at: at, reportProblems: !log.isEnabled,
            lastGoodDirectory: stateDir ?? file.stateDirectory)
        log.feeds(schedule.feeds)
        return (schedule, at == nil ? nil : start.secondsSinceEpoch * 1_000_000_000)
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

extension OutputChoice.Request: ExpressibleByArgument {}
