import CLinux
import Display
import Marquee
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee run`: the schedule, the marquee and a screen (terminal or framebuffer) wired
/// together on one render thread. Wakes only when the picture can change (the next whole
/// cell or display frame, a typed letter, an effect step), the schedule says the messages
/// change, the feed folder changed or the wall clock was set; still pictures cost no wakeups.
public final class Ticker {
    /// While moving, the published status (frame rate, lateness) is refreshed this often.
    static let statusInterval: Nanoseconds = 10_000_000_000

    private let schedule: Schedule
    private let clock: DisplayClock
    private var settings: DisplaySettings
    private let reloadSettings: (@Sendable () -> DisplaySettings?)?
    private let screen: any TickerScreen
    private let feedFolder: String?
    private let control: DisplayControl?
    private let systemZoneFolder: String?
    private let systemd: SystemdNotifier
    private let watchdogInterval: Nanoseconds?
    private let log: EventLog
    private var frameGridOrigin: Nanoseconds?

    /// - Parameters:
    ///   - feedFolder: reloaded (and the new messages shown) when its files change.
    ///   - control: where the status is published and pause/resume arrive from.
    ///   - log: where events go (journald under systemd).
    ///   - systemZoneFolder: `/etc`, when the display follows the system's time zone.
    ///   - reloadSettings: reads the settings again on a reload (nil: keep the old ones).
    public init(
        schedule: Schedule, clock: DisplayClock, settings: DisplaySettings, screen: any TickerScreen,
        feedFolder: String? = nil, control: DisplayControl? = nil, environment: [String: String] = [:],
        log: EventLog? = nil, systemZoneFolder: String? = nil,
        reloadSettings: (@Sendable () -> DisplaySettings?)? = nil
    ) {
        self.schedule = schedule
        self.clock = clock
        self.settings = settings
        self.reloadSettings = reloadSettings
        self.screen = screen
        self.feedFolder = feedFolder
        self.control = control
        self.systemZoneFolder = systemZoneFolder
        systemd = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        self.log = log ?? EventLog(environment: environment)
    }

    /// How a run ended.
    public enum Ending: Equatable, Sendable {
        /// Stopped (a signal, the terminal gone): the process exits with this status.
        case finished(Int32)
        /// The screen's device went away (a DRM driver replaced the firmware framebuffer): a new
        /// screen is to be opened and run; the console is not given back in between.
        case screenReplaced
    }

    /// Runs until SIGINT, SIGTERM or SIGHUP (or the terminal goes away), then gives the
    /// screen back as it was. Under systemd SIGHUP reloads the feeds instead, READY=1 follows
    /// the first frame, STATUS= says what is shown, and WATCHDOG=1 comes from this loop, so a
    /// stuck display gets restarted.
    public func run() -> Ending {
        mq_catch_signals()
        do {
            try screen.takeOver()
        } catch {
            log.tell(.error, "cannot use the screen: \(error)")
            return .finished(1)
        }
        var ending = Ending.finished(0)
        defer {
            if ending != .screenReplaced {
                systemd.send("STOPPING=1")
                screen.giveBack()
            }
        }
        let schedule = self.schedule
        let log = self.log
        let watcher = feedFolder.flatMap { folder in
            try? FolderWatcher(folder: folder) { reloadFeeds(schedule, log: log) }
        }
        // A wall-clock step (NTP at boot, a new date) recomputes the messages at once.
        let clockWatcher = try? ClockChangeWatcher {
            log.log(.notice, "the wall clock was set; recomputing the messages")
            mq_wake_sleeper()
        }
        let zoneWatcher = systemZoneFolder.flatMap { etc in
            try? FolderWatcher(folder: etc, isRelevant: SystemTimeZone.isZoneFile) {
                Task { @ICalActor in followSystemZone(schedule, etc: etc, log: log) }
            }
        }
        defer { withExtendedLifetime((watcher, clockWatcher, zoneWatcher)) {} }
        let controller = MarqueeController(metrics: screen.metrics, configuration: settings.marquee, origin: clock.now())
        var validUntil = Nanoseconds.min
        var queriedAt = Nanoseconds.max
        let started = clock.now()
        var framesSincePublish = 0
        var lastPublish = started
        // Lateness of the last frames drawn at a frame deadline (not woken early by an event).
        var lateness = [Nanoseconds](repeating: 0, count: 512)
        var latenessCount = 0
        var frameDeadline: Nanoseconds?
        var snapshot: ScheduleSnapshot?
        func publish(at now: Nanoseconds, moving: Bool) {
            guard let control else { return }
            let seconds = Double(now - lastPublish) / 1e9
            control.publish { report in
                if let snapshot { report.update(from: snapshot) }
                report.updatedAt = ZonedTime(instant: Instant(secondsSinceEpoch: now / 1_000_000_000), utcOffset: 0).rfc3339
                report.output = screen.outputDescription
                report.paused = controller.isPaused
                report.moving = moving
                report.framesPerSecond = seconds > 0.5 ? (Double(framesSincePublish) / seconds * 10).rounded() / 10 : 0
                let recorded = lateness.prefix(min(latenessCount, lateness.count)).sorted()
                if !recorded.isEmpty {
                    func milliseconds(_ value: Nanoseconds) -> Double { (Double(value) / 1e4).rounded() / 100 }
                    report.frameLateness = StatusReport.Lateness(
                        frames: recorded.count, p50: milliseconds(recorded[recorded.count / 2]),
                        p99: milliseconds(recorded[recorded.count * 99 / 100]), max: milliseconds(recorded.last!))
                }
                report.uptimeSeconds = Int((now - started) / 1_000_000_000)
            }
            framesSincePublish = 0
            lastPublish = now
        }
        var lastPing = clock.now()
        var ready = false
        while true {
            if mq_take_signal(SIGINT) == 1 || mq_take_signal(SIGTERM) == 1 {
                log.log(.notice, "stopping")
                return ending
            }
            var reload = false
            if mq_take_signal(SIGHUP) == 1 {
                guard systemd.isActive else { return ending }
                log.log(.notice, "SIGHUP: reloading the configuration and the feeds")
                reload = true
            }
            if mq_take_signal(SIGUSR1) == 1 {
                validUntil = .min
            }
            let now = clock.now()
            var repaint: Bool
            do {
                repaint = try screen.noticeChanges(at: now)
            } catch {
                log.log(.warning, "\(error); opening the screen again")
                ending = .screenReplaced
                return ending
            }
            if let due = frameDeadline, now >= due {
                lateness[latenessCount % lateness.count] = now - due
                latenessCount += 1
            }
            frameDeadline = nil
            var publishNow = repaint
            for command in control?.takeCommands() ?? [] {
                switch command {
                case .pause:
                    controller.pause(at: now)
                    log.log(.notice, "paused by request")
                case .resume:
                    controller.resume(at: now)
                    log.log(.notice, "resumed by request")
                case .reload:
                    log.log(.notice, "reloading the configuration and the feeds by request")
                    reload = true
                case .status:
                    break
                }
                publishNow = true
            }
            if reload {
                if let reloadSettings, let fresh = reloadSettings() {
                    settings = fresh
                    controller.reconfigure(fresh.marquee, at: now)
                    validUntil = .min
                }
                reloadFeeds(schedule, log: log)
            }
            if now >= validUntil || now < queriedAt {
                let instant = Instant(secondsSinceEpoch: now / 1_000_000_000)
                let current = waitOnScheduleActor { schedule.snapshot(at: instant) }
                controller.update(
                    messages: current.marqueeMessages(idleTemplate: settings.idleText, textColour: settings.textColour),
                    at: now, width: screen.bandWidth)
                validUntil = current.validUntil.instant.secondsSinceEpoch * 1_000_000_000
                queriedAt = now
                snapshot = current
                publishNow = true
            }
            let frame = controller.frame(at: now, width: screen.bandWidth, includingPartialGlyphs: screen.drawsPartialGlyphs)
            if frame.isMoving, now - lastPublish >= Self.statusInterval { publishNow = true }
            do {
                try screen.show(frame, fullRepaint: repaint)
            } catch {
                return ending
            }
            framesSincePublish += 1
            if publishNow {
                publish(at: now, moving: frame.isMoving)
                if let snapshot { systemd.send("STATUS=" + Self.summary(snapshot)) }
            }
            if !ready {
                ready = systemd.send("READY=1")
            }
            if let watchdogInterval, now - lastPing >= watchdogInterval {
                systemd.send("WATCHDOG=1")
                lastPing = now
            }
            var deadline = validUntil
            if screen.isShowing, var next = controller.nextFrameChange(after: now, effectStep: screen.effectStep) {
                if let period = screen.framePeriod { next = max(next, nextFrame(after: now, period: period)) }
                if next < deadline {
                    deadline = next
                    frameDeadline = next
                }
            }
            if let watchdogInterval { deadline = min(deadline, lastPing + watchdogInterval) }
            if let interval = screen.checkInterval { deadline = min(deadline, now + interval) }
            clock.sleep(until: deadline)
        }
    }

    /// The first tick of the display's frame grid after `now` (frames of a framebuffer fall on
    /// a fixed grid of its refresh period, so a late frame never shifts the ones after it). The
    /// grid starts at the first frame, and again after the clock went back.
    func nextFrame(after now: Nanoseconds, period: Nanoseconds) -> Nanoseconds {
        guard let origin = frameGridOrigin, origin <= now else {
            frameGridOrigin = now
            return now + period
        }
        return Self.nextTick(after: now, grid: origin, period: period)
    }

    /// The first instant `origin + k·period` after `now` (`now` not before `origin`).
    static func nextTick(after now: Nanoseconds, grid origin: Nanoseconds, period: Nanoseconds) -> Nanoseconds {
        now + period - (now - origin) % period
    }

    /// "showing 3 messages; next change 21:00" for systemctl status.
    static func summary(_ snapshot: ScheduleSnapshot) -> String {
        let count = snapshot.messages.count
        let showing = count == 0 ? "showing the date" : "showing \(count) message\(count == 1 ? "" : "s")"
        return "\(showing); next change \(snapshot.validUntil.wallClock.clock())"
    }
}
