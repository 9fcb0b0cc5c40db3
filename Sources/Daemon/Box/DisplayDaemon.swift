import CLinux
import Display
import Ledger
import Marquee
import Schedule
import Sound
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Everything `marquee run` needs, decided by the command line and the configuration file,
/// grouped by the part of the box it concerns.
package struct DaemonConfiguration: Sendable {
    /// Where the messages come from.
    package struct Feeds: Sendable {
        /// The feed folders and files, watched and read again when they change.
        package var paths: [String]
        /// The calendars fetched from their addresses, fetched again when due.
        package var subscriptions: Subscriptions?
        /// `/etc`, when times follow the system's time zone.
        package var systemZoneFolder: String?

        package init(paths: [String], subscriptions: Subscriptions?, systemZoneFolder: String?) {
            (self.paths, self.subscriptions, self.systemZoneFolder) = (paths, subscriptions, systemZoneFolder)
        }
    }

    /// What is drawn on, and how.
    package struct Screen: Sendable {
        package var output: OutputChoice.Request
        /// The display device: a DRM card (`/dev/dri/card1`) or a framebuffer (`/dev/fb1`); nil:
        /// the first card with a screen, then `/dev/fb0`.
        package var device: String?
        /// Which connector and mode of the card.
        package var kms: KMSChoice
        package var style: FramebufferStyle
        /// Where the kernel lists backlights (`/sys/class/backlight`; nil: leave them alone). One
        /// is used only when marquee draws on a virtual console, the panel's own screen.
        package var backlightFolder: String?

        package init(output: OutputChoice.Request, device: String?, kms: KMSChoice = .init(), style: FramebufferStyle,
                     backlightFolder: String? = nil) {
            (self.output, self.device, self.kms, self.style, self.backlightFolder) = (output, device, kms, style, backlightFolder)
        }
    }

    /// The control socket: where, whether it was asked for (then failing to open it is an
    /// error), and the group that may use it.
    package struct Socket: Sendable {
        package var path: String?
        package var required: Bool
        package var group: String?

        package init(path: String?, required: Bool, group: String?) {
            (self.path, self.required, self.group) = (path, required, group)
        }
    }

    /// Which HDMI-CEC adapter wakes the television, and whether marquee takes the television's
    /// input back from another device by day.
    package struct TelevisionChoice: Sendable {
        package var adapter: CECChoice = .auto
        package var reclaimsInput = true

        package init(adapter: CECChoice = .auto, reclaimsInput: Bool = true) {
            (self.adapter, self.reclaimsInput) = (adapter, reclaimsInput)
        }
    }

    /// The schedule, its feeds read once the display runs.
    package var schedule: Schedule
    package var feeds: Feeds
    package var settings: DisplaySettings
    /// Reads the settings again on a reload (nil: a broken file keeps the ones in use).
    package var reloadSettings: (@Sendable () -> ReloadedSettings?)?
    /// Why the configuration file cannot be used now (nil: it can), for a reload asked over
    /// the socket.
    package var checkConfiguration: (@Sendable () -> ReloadCheck)?
    package var screen: Screen
    package var socket: Socket
    /// How reminders are heard (nil: no sound in this run).
    package var sound: SoundSettings?
    package var television = TelevisionChoice()
    /// The carer's page (nil: `web_listen = "off"`, or no state folder to keep its password in).
    package var page: PageSettings?
    /// The carers' MQTT broker (nil: none).
    package var mqtt: MQTTSettings?
    /// The display's wall clock starts here (a preview, `--at`).
    package var start: WallInstant?
    package var environment: [String: String]
    /// A folder of marquee's own that outlives a restart (the ledger, the day's backlight level).
    package var stateDirectory: String?
    /// What is wrong with the box itself (a state folder that cannot be written), said in the
    /// journal, on the problem rows and in the status.
    package var boxProblems: [String] = []
    /// What the carer's setup file could not use (`marquee setup`), each "key: why": said on
    /// the row below the band while the box has no calendar (among `boxProblems` too).
    package var setupProblems: [String] = []
    /// marquee's version, as told to the broker.
    package var version = ""

    package init(
        schedule: Schedule, feeds: Feeds, settings: DisplaySettings, reloadSettings: (@Sendable () -> ReloadedSettings?)?,
        screen: Screen, socket: Socket, start: WallInstant?, environment: [String: String], stateDirectory: String? = nil
    ) {
        self.schedule = schedule
        self.feeds = feeds
        self.settings = settings
        self.reloadSettings = reloadSettings
        self.screen = screen
        self.socket = socket
        self.start = start
        self.environment = environment
        self.stateDirectory = stateDirectory
    }
}

/// Runs the display until it is stopped; returns the exit status. Sets up the event sources
/// (feed folder, wall clock, system zone, control socket, signals), all posting to one
/// mailbox, then runs the loop on a render thread of its own, opening a new screen when the
/// device under the screen is replaced.
package func runDisplay(_ configuration: DaemonConfiguration, log: EventLog) async -> Int32 {
    // Calendars of megabytes come and go (fetched, read, inspected): such buffers are given
    // back to the system when freed. glibc's threshold otherwise rises with the first one
    // freed, and the heap kept 300 MB after ten 15 MB subscriptions were read.
    _ = mq_map_allocations_from(1 << 20)
    let mailbox = EventMailbox()
    let clock = SystemClock(startingAt: configuration.start)
    let state = DisplayState(clock: clock)
    state.update {
        $0.boxProblems = configuration.boxProblems
        $0.setupProblems = configuration.setupProblems
    }
    for problem in configuration.boxProblems { log.tell(.warning, problem) }
    // The recordings reminders attach by address, fetched ahead into the state folder.
    let recordings = configuration.sound.flatMap { sound in
        configuration.stateDirectory.map {
            FetchedRecordings(folder: $0 + "/" + FetchedRecordings.folderName,
                              certificateAuthorities: sound.certificateAuthorities)
        }
    }
    // The words of the coming reminders, made ahead in the chosen voice.
    let spokenAhead = configuration.sound.flatMap { sound in
        configuration.stateDirectory.map { SpokenAhead(folder: $0 + "/" + SpokenAhead.folderName, settings: sound) }
    }
    // Messages sent now (socket, MQTT) are a feed of their own in the state folder.
    let said = configuration.stateDirectory.map { SaidNow(folder: $0 + "/said") }
    var server: ControlServer?
    if let path = configuration.socket.path {
        do {
            server = try ControlServer(path: path, group: configuration.socket.group, state: state, mailbox: mailbox,
                                       checkConfiguration: configuration.checkConfiguration, said: said,
                                       ledger: configuration.stateDirectory.map(ReminderLedger.path(inStateFolder:)), clock: clock)
        } catch {
            guard !configuration.socket.required else {
                log.tell(.error, "\(error)")
                return 1
            }
            log.tell(.warning, "no status socket (\(error))")
        }
    } else {
        log.tell(.warning, "no status socket: neither \(ControlSocket.systemPath), $XDG_RUNTIME_DIR nor "
            + "\(ControlSocket.userFolder(in: "/tmp")) can be used; `marquee status` cannot reach this display")
    }
    if server != nil, let path = configuration.socket.path { log.log(.notice, "status socket: \(path)") }
    // And the reminders a carer wrote on the page, a calendar of the box's own beside them.
    let written = configuration.stateDirectory.map(WrittenCalendar.init(stateFolder:))
    let uploaded = configuration.stateDirectory.map(UploadedCalendars.init(stateFolder:))
    var withOwnFeeds = configuration
    if let said, let written, let uploaded {
        _ = mkdir(said.folder, 0o750)
        _ = mkdir(written.folder, 0o750)
        if access(written.database, F_OK) == 0, let problem = written.publish(at: clock.wallTime().instant) {
            log.tell(.warning, "the carer's written reminders: \(problem)")
        }
        _ = mkdir(uploaded.folder, 0o750)
        withOwnFeeds.feeds.paths += [said.folder, written.folder, uploaded.folder]
    }
    let configuration = withOwnFeeds
    let wall = clock.wallTime()
    // The screen's picture, drawn once for the broker and the carer's page.
    let pictures = configuration.mqtt == nil && configuration.page == nil ? nil : ScreenPictures(
        ScreenPicture(schedule: configuration.schedule, settings: configuration.settings, style: configuration.screen.style,
                      displayStartedAt: wall, mailbox: mailbox, log: log), state: state, clock: clock,
        alwaysWanted: configuration.mqtt != nil)
    let schedule = ScheduleService(
        schedule: configuration.schedule, mailbox: mailbox, log: log, systemZoneFolder: configuration.feeds.systemZoneFolder,
        subscriptions: configuration.feeds.subscriptions,
        afterReading: {
            recordings?.wake()
            spokenAhead?.wake()
        },
        // What a reload reads reaches the picture and the subscriptions' status too.
        settingsRead: { @Sendable [subscriptions = configuration.feeds.subscriptions] reloaded in
            await pictures?.use(reloaded.display, style: reloaded.style)
            if let subscriptions {
                await publishStatuses(of: subscriptions, schedule: configuration.schedule, state: state, at: clock.now())
            }
        })
    let voice = configuration.sound.map {
        hearing($0, stateFolder: configuration.stateDirectory, spokenAhead: spokenAhead, state: state, mailbox: mailbox, log: log)
    }
    let television = configuration.television.adapter == .off ? nil : Television(
        choice: configuration.television.adapter, reclaimsInput: configuration.television.reclaimsInput, log: log
    ) { status in
        state.update { shared in
            shared.television = status
            shared.version += 1
        }
    }
    let parts = RunningParts(state: state, log: log, clock: clock)
    let box = BoxParts(configuration: configuration, mailbox: mailbox, state: state, log: log, clock: clock)
    let read = Completion()
    for part in box.parts(schedule: schedule, server: server, read: read, recordings: recordings, spokenAhead: spokenAhead,
                          pictures: pictures,
                          said: said, written: written, uploaded: uploaded, television: television) {
        parts.start(part)
    }
    let first = await startReading(configuration, service: schedule, read: read, at: wall.instant, mailbox: mailbox, log: log)
    let status = await onRenderThread {
        mailbox.receiveSignals()
        guard let screen = openScreen(configuration, log: log) else { return 1 }
        let (reminders, records) = configuration.sound.map {
            remembering($0, stateFolder: configuration.stateDirectory, fetchedRecordings: recordings?.folder,
                        at: clock.wallTime().instant, state: state, log: log)
        } ?? (nil, nil)
        let loop = DisplayLoop(
            clock: clock, screen: screen, schedule: schedule, snapshot: first, settings: configuration.settings,
            state: state, environment: configuration.environment, log: log,
            reloadSettings: configuration.reloadSettings, showsProblems: !log.isEnabled,
            backlight: findBacklight(configuration, log: log), reminders: reminders, voice: voice,
            records: records, television: television)
        return loop.run(mailbox: mailbox) {
            waitForDevices(configuration.screen.device.map { [$0] } ?? ["/dev/fb0"] + drmCardPaths(), mailbox: mailbox)
            return openScreen(configuration, log: log)
        }
    }
    await parts.stopAll(within: RunningParts.stopLimit)
    return status
}

/// The box's running parts besides the display loop, as one list: what `marquee run` starts,
/// in order (they stop in the reverse order, together). A new long-running part goes here.
private struct BoxParts {
    let configuration: DaemonConfiguration
    let mailbox: EventMailbox
    let state: DisplayState
    let log: EventLog
    let clock: SystemClock

    /// - Parameter read: finished when the feeds were first read (the fetching waits for it).
    func parts(schedule: ScheduleService, server: ControlServer?, read: Completion, recordings: FetchedRecordings?,
               spokenAhead: SpokenAhead?, pictures: ScreenPictures?, said: SaidNow?, written: WrittenCalendar?, uploaded: UploadedCalendars?,
               television: Television?) -> [RunningPart] {
        let (mailbox, state, log, clock, configuration) = (mailbox, state, log, clock, configuration)
        var parts: [RunningPart] = [
            RunningPart("answer the display's questions to the schedule", otherwise: "the display keeps what it shows",
                        restarts: false) { await schedule.serve() },
        ]
        if let server {
            parts.append(.holding("answer on the status socket \(server.path)", otherwise: "`marquee status` cannot reach this display") { server })
        }
        for path in configuration.feeds.paths {
            parts.append(.holding("watch \(path) for changes", otherwise: "they show after a reload") {
                try watchFeed(path) { mailbox.post(.feedsChanged) }
            })
        }
        parts.append(.holding("notice the clock being set",
                              otherwise: "after an NTP step or `date -s` the messages follow at the display's next turn") {
            try ClockChangeWatcher { mailbox.post(.clockStepped) } onFailure: { problem in
                log.log(.warning, "\(problem); the clock being set is noticed at the display's next turn, not at once")
            }
        })
        if configuration.sound.map({ $0.speak != .off }) == true {
            parts.append(.holding("read the keyboards and buttons of the box (/dev/input)",
                                  otherwise: "reminders are acknowledged with `marquee ack` or from Home Assistant") {
                try KeyWatcher(log: log) { mailbox.post(.keyPressed) }
            })
        }
        if let etc = configuration.feeds.systemZoneFolder {
            parts.append(.holding("follow the system's time zone in \(etc)", otherwise: "a new zone shows after a reload") {
                try FolderWatcher(folder: etc, isRelevant: SystemTimeZone.isZoneFile) { mailbox.post(.systemZoneChanged) }
            })
        }
        // A driver taking over the framebuffer removes and makes its node again, a DRM card
        // appears, a screen is plugged in: the screen is checked then, not by polling.
        if configuration.screen.output != .terminal { parts += deviceWatches { mailbox.post(.screenDeviceChanged) } }
        if let subscriptions = configuration.feeds.subscriptions {
            parts.append(RunningPart("fetch the subscriptions", otherwise: "the calendars fetched before are shown") {
                guard await read.ended() else { return }
                await keepFetching(subscriptions, schedule: configuration.schedule, mailbox: mailbox, state: state, log: log)
            })
        }
        if let recordings {
            parts.append(RunningPart("fetch the reminders' recordings", otherwise: "reminders are heard with the chime") {
                guard await read.ended() else { return }
                await keepRecordingsFetched(recordings, schedule: configuration.schedule, displayClock: clock, log: log)
            })
        }
        if let spokenAhead {
            parts.append(RunningPart("make the reminders' words ahead in the chosen voice",
                                     otherwise: "reminders are spoken by eSpeak NG") {
                guard await read.ended() else { return }
                await keepSpeechMadeAhead(spokenAhead, schedule: configuration.schedule, displayClock: clock, log: log)
            })
        }
        if let mqtt = configuration.mqtt {
            parts.append(RunningPart("report to the MQTT broker", otherwise: "Home Assistant does not hear of the box") {
                let service = MQTTService(
                    settings: mqtt, version: configuration.version, state: state, mailbox: mailbox, log: log, said: said,
                    pictures: pictures, clock: clock, checkConfiguration: configuration.checkConfiguration)
                await withDiscardingTaskGroup { group in
                    group.addTask { await service.offerPictures() }
                    await untilCancelled()
                }
                await service.stop()
            })
        }
        if let pictures {
            parts.append(RunningPart("draw the screen's picture", otherwise: "the broker and the page keep the last picture") {
                await pictures.keepDrawing()
            })
        }
        if let page = configuration.page {
            let desk = ControlDesk(state: state, mailbox: mailbox, checkConfiguration: configuration.checkConfiguration,
                                   said: said, ledger: configuration.stateDirectory.map(ReminderLedger.path(inStateFolder:)),
                                   clock: clock)
            let carerPage = CarerPage(settings: page, state: state, desk: desk, written: written, uploaded: uploaded,
                                      schedule: configuration.schedule, pictures: pictures, clock: clock, log: log)
            parts.append(RunningPart("serve the carer's page on \(page.address)", otherwise: "the carer's page cannot be opened") {
                try await carerPage.run()
            })
        }
        if let television {
            parts.append(RunningPart("wake the television over HDMI-CEC", otherwise: "the television is not woken") {
                guard television.start() else { throw PartFailure(description: "no thread can be started for it") }
                await untilCancelled()
                await television.stop()
            })
        }
        return parts
    }

    /// Watches what may change the display under the screen: the framebuffer's node (a DRM
    /// driver replacing it), the DRM cards' folder (a card appearing), and screens plugged in or
    /// out. Without them the screen is only looked at every half minute.
    private func deviceWatches(onChange: @escaping @Sendable () -> Void) -> [RunningPart] {
        // Folders and the names in them that matter: a whole name, or (cards) its beginning.
        let nodes: [(folder: String, name: String, isPrefix: Bool)] = if let device = configuration.screen.device {
            [(splitPath(device).0, splitPath(device).1, false)]
        } else {
            [("/dev", "fb0", false), ("/dev/dri", "card", true)]
        }
        let otherwise = "the screen is looked at only every 30 s"
        return nodes.map { node in
            .holding("watch \(node.folder) for display devices", otherwise: otherwise) {
                try FolderWatcher(folder: node.folder, debounce: .milliseconds(100),
                                  isRelevant: { node.isPrefix ? $0.hasPrefix(node.name) : $0 == node.name }, onChange: onChange)
            }
        } + [.holding("follow screens being plugged in", otherwise: otherwise) { try HotplugWatcher(onHotplug: onChange) }]
    }
}

/// A part that could not run, in words.
struct PartFailure: Error, CustomStringConvertible {
    let description: String
}

/// The reminder desk as the ledger remembers it (every reminder decided in the last days, what
/// waits, the carer's mute), and where it keeps what it decides. A ledger that cannot be opened
/// is said, and reminders are decided in memory.
func remembering(
    _ settings: SoundSettings, stateFolder folder: String?, fetchedRecordings: String?, at now: Instant,
    state: DisplayState, log: EventLog?
) -> (ReminderPlan, ReminderRecords) {
    var (ledger, problem): (ReminderLedger?, String?) = (nil, nil)
    var entries: [LedgerEntry] = []
    if let folder {
        (ledger, problem) = ReminderLedger.openOrRebuild(path: ReminderLedger.path(inStateFolder: folder))
        if let ledger, let trouble = HeardFileImport.take(from: folder, into: ledger) {
            log?.log(.warning, trouble + ": reminders of the last hour may sound again")
        }
        do {
            entries = try ledger?.entries(since: now.secondsSinceEpoch - ReminderPlan.rememberedSeconds) ?? []
        } catch {
            problem = "the reminder ledger cannot be read (\(error)): reminders of the last hour may sound again"
        }
    }
    var plan = ReminderPlan(settings: settings, entries: entries, runStarted: now, fetchedRecordings: fetchedRecordings)
    plan.muted = folder.map { access($0 + "/" + ReminderVoice.mutedFile, F_OK) == 0 } ?? false
    if plan.muted { log?.log(.notice, "reminders are muted (by a carer, before this start): shown, not heard") }
    return (plan, ReminderRecords(ledger: ledger, problem: problem, log: log, state: state))
}

/// The voice that plays the reminders, telling the status (and the loop, for the problems it
/// shows) what it played or why not.
func hearing(
    _ settings: SoundSettings, stateFolder folder: String?, spokenAhead: SpokenAhead? = nil, state: DisplayState,
    mailbox: EventMailbox, log: EventLog?
) -> ReminderVoice {
    let voice = ReminderVoice(settings: settings, stateFolder: folder, log: log, spokenAhead: spokenAhead) { report in
        state.update { shared in
            // The device looked at before the loop's first report of the reminders is said too.
            var sound = shared.sound ?? SoundStatus(speak: settings.speak.rawValue, device: settings.device, muted: false,
                                                    reminders: [])
            sound.problem = report.problem
            if let played = report.played {
                sound.firstSampleMilliseconds = (played.firstSampleAfter * 10_000).rounded() / 10
                sound.synthesisMilliseconds = (played.synthesisSeconds * 10_000).rounded() / 10
            }
            if let voice = report.voice { sound.voice = voice }
            shared.sound = sound
            shared.version += 1
        }
        mailbox.post(.soundReported)
    }
    if settings.speak != .off { voice.checkDevice() }
    return voice
}

/// How long the display waits for the feeds before its first frame: a folder read by then is
/// shown from the first frame on; a bigger one (thousands of files) follows as it is read.
private let firstFrameWait: Duration = .milliseconds(500)

/// Has `service` (serving already) read the feeds for the first time and returns the messages
/// to start with: those of the feeds if they are read within `firstFrameWait`, else those known
/// before reading (the date, the orientation line), with `.feedsReloaded` posted once they are
/// read. `read` is finished when they are.
private func startReading(
    _ configuration: DaemonConfiguration, service: ScheduleService, read: Completion, at now: Instant,
    mailbox: EventMailbox, log: EventLog
) async -> ScheduleSnapshot {
    let schedule = configuration.schedule
    let beforeReading = await schedule.snapshot(at: now)
    // Decided once, by whichever comes first: the end of the reading (in time) or of the wait (late).
    let inTime = Mutex<Bool?>(nil)
    service.readFirst(configuration.feeds.paths, around: now) {
        read.finish()
        let late = inTime.withLock { decided in
            if decided == nil { decided = true }
            return decided == false
        }
        if late { mailbox.post(.feedsReloaded) }
    }
    _ = await read.ended(within: firstFrameWait)
    let readInTime = inTime.withLock { decided in
        if decided == nil { decided = false }
        return decided == true
    }
    if readInTime { return await schedule.snapshot(at: now) }
    log.log(.notice, "the feeds take a while to read; the display starts now and shows their messages once they are read")
    return beforeReading
}

/// The first output of the choice that opens: KMS, the framebuffer or the terminal, tried in
/// that order with `auto` when marquee may put its virtual console in graphics mode. The choice
/// and why the ones before it were not taken go to the journal (a fallback to the terminal as
/// a warning) and the status. nil (after saying why) when none works.
private func openScreen(_ configuration: DaemonConfiguration, log: EventLog) -> (any TickerScreen)? {
    let console = VirtualConsole(fd: STDIN_FILENO)
    let choice = OutputChoice.decide(
        configuration.screen.output, device: configuration.screen.device, console: console.map { ($0.number, $0.ownership) })
    var notTaken: [String] = []
    var errors: [String] = []
    for target in choice.targets where target != .terminal {
        do {
            let scanout: any Scanout = switch target {
            case .kms:
                try openKMSOutput(
                    path: configuration.screen.device.flatMap { OutputChoice.isKMSDevice($0) ? $0 : nil }, choice: configuration.screen.kms)
            default:
                try Framebuffer(device: configuration.screen.device ?? "/dev/fb0")
            }
            let screen = try PixelScreen(scanout: scanout, style: configuration.screen.style, console: console)
            screen.notTaken = notTaken
            for font in screen.fonts.unusable { log.tell(.warning, "\(font)") }
            log.log(.notice, "drawing on \(screen.outputDescription) (\(([choice.reason] + notTaken).joined(separator: "; ")))")
            return screen
        } catch {
            errors.append("\(error)")
            notTaken.append("not \(target.rawValue): \(error)")
            log.log(.notice, "not drawing through \(target.rawValue): \(error)")
        }
    }
    guard choice.targets.contains(.terminal) else {
        log.tell(.error, errors.joined(separator: "; "))
        return nil
    }
    if choice.isFallback || !notTaken.isEmpty {
        log.log(.warning, "not drawing in pixels: \(([choice.reason] + notTaken).joined(separator: "; ")); using the terminal")
    }
    guard isatty(STDOUT_FILENO) == 1 else {
        log.tell(.error, "standard output is not a terminal and there is no display to draw on")
        return nil
    }
    let screen = TerminalScreen(
        fd: STDOUT_FILENO,
        capabilities: TerminalScreen.Capabilities.detect(fd: STDOUT_FILENO, environment: configuration.environment))
    log.log(.notice, "drawing on the \(screen.outputDescription) (\(choice.reason))")
    return screen
}

/// A watcher of one feed path: a folder's calendar files (a folder is watched even while it is
/// missing: it is shown as soon as it appears), or a single file in its folder (so a file saved
/// by renaming a new one into place is seen too).
func watchFeed(_ path: String, onChange: @escaping @Sendable () -> Void) throws -> FolderWatcher {
    var info = stat()
    let isFile = stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
    let (folder, name) = splitPath(path)
    return isFile ? try FolderWatcher(folder: folder, isRelevant: { $0 == name }, onChange: onChange)
        : try FolderWatcher(folder: path, onChange: onChange)
}

/// The panel's backlight, when marquee draws on a virtual console (or was told to use the
/// framebuffer) and the box has one; what it found or why it cannot use it goes to the journal.
private func findBacklight(_ configuration: DaemonConfiguration, log: EventLog) -> Backlight? {
    guard let folder = configuration.screen.backlightFolder,
          configuration.screen.output == .framebuffer || configuration.screen.output == .kms || VirtualConsole(fd: STDIN_FILENO) != nil
    else { return nil }
    do {
        let note = configuration.stateDirectory.map { $0 + "/.backlight-day-level" }
        guard let backlight = try Backlight.find(in: folder, notePath: note) else { return nil }
        let night = backlight.nightLevel(percent: configuration.settings.night.backlightPercent)
        log.log(.notice, "at night the backlight \(backlight.name) dims from \(backlight.dayLevel) to \(night)")
        return backlight
    } catch {
        log.tell(.warning, "\(error); the colours are darkened at night instead")
        return nil
    }
}

/// After a framebuffer went away, its successor takes a moment to appear (udev creates the
/// node, then gives it its group), and so does the DRM card of the driver that took over:
/// up to 10 s while a device that is there cannot be opened for writing yet, or none is there
/// at all, so the card is not passed over for the framebuffer while its group is still being
/// set. A device that is not there is not waited for (a box without fbdev has no /dev/fb0),
/// and a stop ends the wait at once (it stays in the mailbox for the loop). Answers how many
/// tenths of a second it waited.
@discardableResult
func waitForDevices(_ devices: [String], mailbox: EventMailbox) -> Int {
    var taken: [DisplayEvent] = []
    defer { for event in taken { mailbox.post(event) } }
    for waited in 0..<100 {
        let present = devices.filter { access($0, F_OK) == 0 }
        let ready = present.allSatisfy { device in
            let fd = Glibc.open(device, O_RDWR | O_CLOEXEC)
            if fd >= 0 { close(fd) }
            return fd >= 0
        }
        if ready, !present.isEmpty { return waited }
        taken += mailbox.take()
        if taken.contains(where: { if case .stop = $0 { true } else { false } }) { return waited }
        mailbox.wait(nanoseconds: 100_000_000)
    }
    return 100
}
