import ArgumentParser
import Daemon
import Display
import Marquee
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee run`: the display itself. Settings come from the command line, else the
/// configuration file, else the defaults.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Show the active messages as a calm, endless ticker.")

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "Where to draw: auto (KMS, then the framebuffer, then the terminal), kms, framebuffer or terminal.")
    var output: OutputChoice.Request?

    @Option(name: .long, help: "Start the display's clock at this instant and let it run on (a preview).")
    var at: String?

    @OptionGroup var displayOptions: DisplayOptions

    @Option(name: .long, help: "The display device: a DRM card (/dev/dri/card1) or a framebuffer (/dev/fb1); default: the first card with a screen, then /dev/fb0.")
    var device: String?

    @Option(name: .long, help: "A folder of its own where last good copies of the feeds are kept across restarts.")
    var stateDir: String?

    @Option(name: .long, help: "The status and control socket (default: \(ControlSocket.systemPath) if its folder is writable, else $XDG_RUNTIME_DIR/marquee.sock, else /tmp/marquee-UID/marquee.sock).")
    var socket: String?

    @Option(name: .long, help: "Show the box on an MQTT broker (mqtt://broker.lan, mqtts://user@broker.lan:8883); the configuration's mqtt_* keys apply.")
    var mqtt: String?

    func validate() throws {
        if let at { _ = try parseDisplayTime(at, option: "--at") }
    }

    func run() async throws {
        let file = try feedOptions.configurationFile()
        let settings = try displayOptions.settings(file, path: feedOptions.configurationPath, command: "run")
        let requested = output ?? file.output.flatMap(OutputChoice.Request.init(rawValue:)) ?? .auto
        if requested == .terminal, isatty(STDOUT_FILENO) != 1 {
            standardError("marquee run: standard output is not a terminal")
            throw ExitCode(1)
        }
        let environment = environment()
        let log = EventLog(environment: environment)
        var stateDirectory = stateDir ?? file.stateDirectory
        var boxProblems: [String] = []
        if let folder = stateDirectory {
            do {
                try prepareStateFolder(folder)
            } catch {
                // A kiosk with a read-only root still shows everything, for this run.
                boxProblems.append("\(error); nothing is kept across a restart (last good copies, subscriptions' "
                    + "calendars, messages sent now)")
                stateDirectory = nil
            }
        }
        // Subscriptions' copies outlive a restart in the state folder; without one they are
        // held in memory for the run.
        let feeds = try await prepare(
            file, log: log, stateDirectory: stateDirectory, subscriptionFolder: stateDirectory.map { $0 + "/subscriptions" })
        // A reload reads the file again and applies what it can; a broken file keeps the
        // settings in use. A key given on the command line is the command line's.
        var givenHere: Set<String> = feedOptions.feeds.isEmpty ? [] : ["feeds", "subscriptions"]
        for (value, key) in [(output?.rawValue, "output"), (device, "device"), (socket, "socket"), (stateDir, "state_dir"), (mqtt, "mqtt")]
        where value != nil {
            givenHere.insert(key)
        }
        let reloadSettings: @Sendable () -> ReloadedSettings? = { [self, givenHere] in
            do {
                let fresh = try feedOptions.loadConfiguration()
                let display = try displayOptions.settings(fresh, path: feedOptions.configurationPath)
                for key in fresh.keysNeedingARestart(since: file) where !givenHere.contains(key) {
                    log.log(.warning, "\(key) changed in the configuration; it takes effect when marquee restarts "
                        + "(systemctl restart marquee)")
                }
                // Subscriptions given on the command line stay; the file's follow it.
                let subscriptions = givenHere.contains("subscriptions") ? nil : try feedOptions.feedSources(fresh).addresses
                return ReloadedSettings(display: display, schedule: feedOptions.scheduleSettings(fresh),
                                        style: DisplayOptions.style(fresh),
                                        sound: fresh.soundSettings(language: feedOptions.words(fresh).locale),
                                        subscriptions: subscriptions)
            } catch {
                log.log(.error, "\(error); keeping the previous configuration")
                return nil
            }
        }
        let checkConfiguration: @Sendable () -> ReloadCheck = { [self, givenHere] in
            do {
                let fresh = try feedOptions.loadConfiguration()
                _ = try displayOptions.settings(fresh, path: feedOptions.configurationPath)
                return .usable(needingRestart: fresh.keysNeedingARestart(since: file).filter { !givenHere.contains($0) })
            } catch {
                log.log(.error, "\(error); a reload was asked for, nothing was reloaded")
                return .unusable("\(error)")
            }
        }
        let followZone = feedOptions.timezone == nil && file.timezone == nil && environment["TZ"] == nil
        let chosenSocket = socket ?? file.socket
        var configuration = DaemonConfiguration(
            schedule: feeds.schedule,
            feeds: .init(paths: feeds.paths, subscriptions: feeds.subscriptions, systemZoneFolder: followZone ? "/etc" : nil),
            settings: settings, reloadSettings: reloadSettings,
            screen: .init(output: requested, device: device ?? file.device, kms: KMSChoice(connector: file.connector, mode: file.mode),
                          style: DisplayOptions.style(file),
                          // A preview (--at) leaves the backlight as it is.
                          backlightFolder: at == nil ? "/sys/class/backlight" : nil),
            socket: .init(path: chosenSocket ?? ControlSocket.pathForListening(environment: environment),
                          required: chosenSocket != nil, group: file.socketGroup),
            start: at == nil ? nil : WallInstant(feeds.instant), environment: environment, stateDirectory: stateDirectory)
        configuration.checkConfiguration = checkConfiguration
        // What the carer's setup file asked that could not be done (`marquee setup`).
        if let folder = stateDirectory, case .success(let said) = readFile(folder + "/" + BoxSetup.problemsFile, limit: 1 << 16) {
            configuration.setupProblems = String(decoding: said, as: UTF8.self).split(separator: "\n").map(String.init)
            boxProblems += configuration.setupProblems.map { "the setup file: " + $0 }
        }
        configuration.boxProblems = boxProblems
        configuration.version = marqueeVersion
        configuration.sound = file.soundSettings(language: feedOptions.words(file).locale)
        configuration.television = .init(adapter: file.cec ?? .auto, reclaimsInput: file.reclaimInput ?? true)
        // The carer's page keeps its password in the state folder; a preview (--at) serves it
        // only where the configuration names `web_listen` (not on the running box's 8080).
        if at == nil || file.webListen != nil, let folder = stateDirectory,
           let (host, port) = ConfigurationKey.listenAddress(file.webListen ?? ConfigurationKey.defaultListen) {
            configuration.page = PageSettings(host: host, port: port, peers: file.webPeers ?? .home,
                                              passwordFile: folder + "/" + PagePassword.fileName,
                                              language: feedOptions.words(file).locale, version: marqueeVersion,
                                              stateFolder: folder, configurationFile: feedOptions.configurationPath,
                                              tls: file.pageTLS(stateFolder: folder))
        }
        do {
            let machine = try? readFile("/etc/machine-id", limit: 256).get()
            configuration.mqtt = try file.mqttSettings(address: mqtt, hostname: hostName(),
                                                       machineID: machine.map { String(decoding: $0, as: UTF8.self) })
        } catch {
            standardError("marquee run: \(error)")
            throw ExitCode(1)
        }
        let status = await runDisplay(configuration, log: log)
        if status != 0 { throw ExitCode(status) }
    }

    /// The feeds, read once the display runs: the files and folders, and the subscriptions'
    /// copies (kept in the state folder, else held in memory), fetched then.
    private func prepare(
        _ file: ConfigurationFile, log: EventLog, stateDirectory: String?, subscriptionFolder: String?
    ) async throws -> LoadedFeeds {
        try await feedOptions.openFeeds(
            configuration: file, at: at, reportProblems: false, lastGoodDirectory: stateDirectory,
            subscriptionFolder: subscriptionFolder, fetchNow: false, load: false, subscribesAlways: feedOptions.feeds.isEmpty)
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
