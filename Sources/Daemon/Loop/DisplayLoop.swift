import Display
import Ledger
import Marquee
import Schedule
import Support

/// The display loop: the schedule, the marquee and the screen wired together on the render
/// thread, for as long as the display runs. Everything it reacts to arrives as a
/// `DisplayEvent` in one mailbox; each turn handles the events, brings the messages up to
/// date, draws a frame and computes when it next has to wake (the next frame that looks
/// different, the next change of messages, the watchdog), so still pictures cost no wakeups.
/// Motion runs on the steady clock; the wall clock only decides which messages are due, so a
/// clock step changes the messages, never where the text is. A screen whose device goes away
/// is replaced by a new one, and the text goes on where it was. What the box does about the
/// reminders, the night and the dark screen is decided by its `BoxDesk`; the loop carries out
/// the effects (`perform`), and is the only place that does.
final class DisplayLoop {
    /// What a turn decided.
    enum Turn: Equatable {
        /// Wake at this steady time, or at the next event (nil: only at the next event).
        case wait(until: SteadyInstant?)
        /// The screen's device went away (a DRM driver replaced the firmware framebuffer): a
        /// new screen is to be opened and given to `replaceScreen`.
        case screenGone
        /// Stopped (a signal, the terminal gone): the process exits with this status.
        case finished(Int32)
    }

    /// A wall clock that moved this much against the steady clock between two turns was set.
    static let clockStepTolerance: Nanoseconds = 1_000_000_000

    private let clock: any BoxClock
    private var screen: any TickerScreen
    private let schedule: ScheduleService
    private let state: DisplayState
    private var systemd: SystemdHeartbeat
    private let log: EventLog?
    private let reloadSettings: (@Sendable () -> ReloadedSettings?)?
    private let controller: MarqueeController
    /// Whether the feeds' errors are shown on the screen (the log is silent: its terminal is
    /// the display).
    private let showsProblems: Bool

    /// The reminders, the night and the dark screen, decided; this loop carries them out.
    private var desk: BoxDesk
    /// Until when (wall clock) the messages shown hold.
    private var validUntil: WallInstant
    /// The last request for messages, and whether its answer is still to come.
    private var request = 0
    private var awaitingSchedule = false
    /// Reloads asked of the schedule and not yet reported done.
    private var reloadsInFlight = 0
    /// The time of the snapshot's "read again" for which a reload was asked (a file the reader
    /// gave up on is read again once, when that time comes).
    private var readAgainAsked: Instant?
    /// Both clocks at the last turn: the wall clock moving otherwise than the steady one was set.
    private var lastTurn: (wall: WallInstant, steady: SteadyInstant)
    private var frameDeadline: SteadyInstant?
    private var frameGridOrigin: SteadyInstant?
    /// The screen's power and backlight, as the desk decides.
    private let power: ScreenPower
    /// Plays the reminders the desk decides on (nil: no sound in this run).
    private let voice: ReminderVoice?
    /// Where the reminders' fates are kept, before they are carried out (nil: nowhere).
    private let records: ReminderRecords?
    /// The television over HDMI-CEC, woken when marquee must be seen (nil: `cec = "off"`).
    private let television: (any TelevisionWaking)?
    /// When this run began, on the steady clock: a message announced (typed in) that began
    /// earlier was announced by the run before (a restart lights and wakes nothing for it).
    private let startedAt: SteadyInstant
    /// The row below the band as last shown (the orientation line, or how to add calendars).
    private var orientation: String?
    /// While that row would name the page but the box has no address on the home network
    /// yet (DHCP comes after the display), when it looks again.
    private var addingCalendarsDue: SteadyInstant?
    static let addingCalendarsInterval: Nanoseconds = 10_000_000_000
    /// The box's address on the home network (`homeNetworkAddress`; a test's own).
    private let homeAddress: @Sendable () -> String?

    /// - Parameters:
    ///   - snapshot: the messages at the start (the schedule is loaded before the display starts).
    ///   - state: where the status is kept for the control socket.
    ///   - reloadSettings: reads the settings again on a reload (nil: keep the old ones).
    ///   - showsProblems: shows the feeds' errors on the screen, for whoever started marquee
    ///     on the terminal it draws on.
    ///   - backlight: dimmed at night instead of the colours; brightened again when the run ends.
    init(
        clock: any BoxClock, screen: any TickerScreen, schedule: ScheduleService, snapshot: ScheduleSnapshot,
        settings: DisplaySettings, state: DisplayState, environment: [String: String] = [:], log: EventLog? = nil,
        reloadSettings: (@Sendable () -> ReloadedSettings?)? = nil, showsProblems: Bool = false,
        backlight: Backlight? = nil, reminders: ReminderPlan? = nil, voice: ReminderVoice? = nil,
        records: ReminderRecords? = nil, television: (any TelevisionWaking)? = nil,
        homeAddress: @escaping @Sendable () -> String? = homeNetworkAddress
    ) {
        self.clock = clock
        self.homeAddress = homeAddress
        self.voice = voice
        self.records = records
        self.television = television
        power = ScreenPower(backlight: backlight, state: state, log: log)
        self.screen = screen
        self.schedule = schedule
        self.state = state
        self.log = log
        self.reloadSettings = reloadSettings
        self.showsProblems = showsProblems
        let steady = clock.steadyTime()
        systemd = SystemdHeartbeat(environment: environment, at: steady)
        lastTurn = (clock.wallTime(), steady)
        startedAt = steady
        validUntil = WallInstant(snapshot.validUntil.instant)
        desk = BoxDesk(settings: settings, snapshot: snapshot, reminders: reminders, hasTelevision: television != nil)
        controller = MarqueeController(metrics: screen.metrics, configuration: desk.motion, origin: steady)
        controller.announcementBox = screen.announcementBox
        controller.lineBreaking = UnicodeLineBreaking()
        controller.show(desk.shownSnapshot, settings: settings, at: steady, width: screen.bandWidth)
        showOrientation(of: snapshot, on: screen, at: steady)
        if !desk.lighting.isDark(at: lastTurn.wall.instant) { power.switchOnIfLeftOff(screen, at: lastTurn.wall.instant) }
        perform(desk.start(at: lastTurn.wall.instant), steady: steady, wall: lastTurn.wall)
        showProblems()
        tellMissingCharacters()
    }

    /// Takes the screen, turns until an event ends the run, then gives the screen back as it
    /// was. A screen whose device went away is replaced by what `reopenScreen` opens (nil: the
    /// run ends). Under systemd SIGHUP reloads instead of stopping, READY=1 follows the first
    /// frame, STATUS= says what is shown, and WATCHDOG=1 comes from this loop, so a stuck
    /// display gets restarted.
    func run(mailbox: EventMailbox, reopenScreen: () -> (any TickerScreen)?) -> Int32 {
        do {
            try screen.takeOver()
        } catch {
            log?.tell(.error, "cannot use the screen: \(error)")
            return 1
        }
        var events: [DisplayEvent] = []
        while true {
            let status: Int32
            switch turn(events) {
            case .finished(let finished):
                status = finished
            case .screenGone:
                if replaceScreen(opening: reopenScreen) {
                    events = mailbox.take()
                    continue
                }
                status = 1
            case .wait(let deadline):
                mailbox.wait(nanoseconds: deadline.map { $0 - clock.steadyTime() })
                events = mailbox.take()
                continue
            }
            systemd.stopping()
            screen.giveBack()
            power.brightenForTheDay()
            return status
        }
    }

    /// Draws on the screen `open` opens from now on (nil: it could not, and said why): it is
    /// taken over, the marquee measures its text in the new screen's units and goes on from the
    /// letter it was at, and the next frame is drawn in full. The old screen is not given back
    /// (its console stays in graphics mode, taken again by the new screen). The watchdog hears
    /// from the loop before, since opening may take seconds (udev, fonts). False when there is
    /// no new screen to draw on.
    func replaceScreen(opening open: () -> (any TickerScreen)?) -> Bool {
        systemd.ping(at: clock.steadyTime())
        guard let next = open() else { return false }
        do {
            try next.takeOver()
        } catch {
            log?.tell(.error, "cannot use the new screen: \(error)")
            return false
        }
        screen = next
        power.dim(next, toStep: desk.shadeStep, nightPercent: desk.settings.night.backlightPercent)
        if desk.isDark { power.keepDark(next) }
        showOrientation(of: desk.snapshot, on: next, at: clock.steadyTime())
        controller.announcementBox = next.announcementBox
        controller.remeasure(with: next.metrics, at: clock.steadyTime(), width: next.bandWidth)
        tellMissingCharacters()
        frameDeadline = nil
        frameGridOrigin = nil
        publishShown()
        showProblems()
        return true
    }

    /// One turn: handles `events`, brings the messages up to date, draws a frame, and says
    /// when to wake next.
    func turn(_ events: [DisplayEvent]) -> Turn {
        let steady = clock.steadyTime()
        let wall = clock.wallTime()
        if abs((wall - lastTurn.wall) - (steady - lastTurn.steady)) > Self.clockStepTolerance {
            log?.log(.notice, "the wall clock was set; recomputing the messages")
            requestMessages(at: wall)
        }
        lastTurn = (wall, steady)
        for event in events {
            if let status = handle(event, steady: steady, wall: wall) { return .finished(status) }
        }
        do {
            try screen.noticeChanges(at: steady)
        } catch {
            log?.log(.warning, "\(error); opening the screen again")
            return .screenGone
        }
        if wall >= validUntil, !awaitingSchedule { requestMessages(at: wall) }
        readFeedsAgainIfDue(at: wall)
        perform(desk.turn(at: wall), steady: steady, wall: wall)
        if !desk.isDark, let retry = power.retryAt, wall.instant >= retry { power.switchOn(screen, at: wall.instant) }
        if let due = addingCalendarsDue, steady >= due { lookAgainAtAddingCalendars(at: steady) }
        if !desk.isDark {
            guard drawFrame(at: steady) else { return .finished(0) }
        }
        systemd.turned(at: steady, showing: desk.snapshot)
        let deadline = nextDeadline(steady: steady, wall: wall)
        // A paced screen (a framebuffer) makes its next frame ready now; a terminal has nothing
        // to make ready, and its frame is not computed twice.
        if let due = frameDeadline, screen.isShowing, screen.pacing.framePeriod != nil {
            screen.prepare(controller.frame(at: due, width: screen.bandWidth, includingPartialGlyphs: screen.pacing.drawsPartialGlyphs))
        }
        return .wait(until: deadline)
    }

    /// Whether the loop waits for the schedule's answer or a reload (the test kit waits with it).
    var isAwaitingSchedule: Bool { awaitingSchedule || reloadsInFlight > 0 }

    /// Reacts to one event; the exit status when it stops the run.
    private func handle(_ event: DisplayEvent, steady: SteadyInstant, wall: WallInstant) -> Int32? {
        switch event {
        case .stop:
            log?.log(.notice, "stopping")
            return 0
        case .hangUp:
            guard systemd.isActive else { return 0 }
            log?.log(.notice, "SIGHUP: reloading the configuration and the feeds")
            reload(at: steady)
        case .control(.pause):
            perform(desk.pause(), steady: steady, wall: wall)
        case .control(.resume):
            perform(desk.resume(), steady: steady, wall: wall)
        case .control(.reload):
            log?.log(.notice, "reloading the configuration and the feeds by request")
            reload(at: steady)
        case .control(.status), .control(.reminders):
            break
        case .control(.acknowledge):
            perform(desk.acknowledge(at: wall.instant, by: "request"), steady: steady, wall: wall)
        case .keyPressed:
            perform(desk.keyPressed(at: wall.instant), steady: steady, wall: wall)
        case .control(.mute):
            perform(desk.mute(true, at: wall.instant), steady: steady, wall: wall)
        case .control(.unmute):
            perform(desk.mute(false, at: wall.instant), steady: steady, wall: wall)
        case .control(.wake):
            perform(desk.wakeRequested(at: wall.instant), steady: steady, wall: wall)
        case .control(.show):
            log?.log(.notice, "showing a message sent now by request")
            reloadsInFlight += 1
            schedule.reload()
        case .control(.clear):
            log?.log(.notice, "the message sent now was taken off by request")
            reloadsInFlight += 1
            schedule.reload()
        case .feedsChanged:
            reloadsInFlight += 1
            schedule.reload()
        case .systemZoneChanged:
            reloadsInFlight += 1
            schedule.followSystemZone()
        case .settingsRead(let reloaded):
            defer { state.update { $0.settingsTaken += 1 } }
            guard let fresh = reloaded?.display else { break }
            perform(desk.use(fresh, sound: reloaded?.sound, at: wall.instant), steady: steady, wall: wall)
            if let scheduleSettings = reloaded?.schedule {
                reloadsInFlight += 1
                schedule.apply(scheduleSettings)
            }
            if let style = reloaded?.style { restyle(style) }
        case .feedsReloaded:
            reloadsInFlight = max(0, reloadsInFlight - 1)
            requestMessages(at: wall)
        case .pictureWanted(let request):
            request.answer(desk.isDark ? screen.copyForPicture()?.darkened : screen.copyForPicture())
        case .clockStepped, .feedsPartlyRead:
            requestMessages(at: wall)
        case .pageChanged:
            lookAgainAtAddingCalendars(at: steady)
        case .subscriptionsChanged, .soundReported:
            showProblems()
        case .schedule(let answer, let number):
            guard number == request else { break }
            awaitingSchedule = false
            // The run's start on the wall clock as it is now (one set back or forward since moves it).
            let began = wall.instant - Int64((steady - startedAt) / 1_000_000_000)
            perform(desk.show(answer, at: wall.instant, runBegan: began), steady: steady, wall: wall)
            validUntil = WallInstant(answer.validUntil.instant)
            showOrientation(of: answer, on: screen, at: steady)
            perform([.showMessages], steady: steady, wall: wall)
            showProblems()
            systemd.tell(answer)
        case .resized:
            notice(.resized)
        case .consoleSwitchRequested:
            notice(.consoleSwitchRequested)
        case .screenDeviceChanged:
            notice(.deviceChanged)
        }
        return nil
    }

    /// Tells the screen; its description and its announcement box (a terminal's size) may
    /// change with it.
    private func notice(_ change: ScreenChange) {
        screen.notice(change)
        controller.announcementBox = screen.announcementBox
        publishShown()
    }

    // MARK: - Carrying out

    /// Carries out what the desk decided, in its order.
    private func perform(_ effects: [BoxEffect], steady: SteadyInstant, wall: WallInstant) {
        for effect in effects {
            switch effect {
            case .journal(let level, let line): log?.log(level, line)
            case .record(let entries): records?.record(entries, at: wall.instant.secondsSinceEpoch)
            case .play(let due): voice?.play(due, when: television.map { television in { @Sendable in television.isReadyForSound() } })
            case .hearWith(let sound): voice?.use(sound)
            case .keepMuted(let muted): voice?.keepMuted(muted)
            case .wakeTelevision(let reason): television?.wake(because: reason)
            case .wakeTelevisionIfOff(let reason): television?.wakeIfOff(because: reason)
            case .standbyTelevision(let reason): television?.standby(because: reason)
            case .reclaimTelevisionInput: television?.reclaimInput()
            case .darkenScreen: power.darken(screen, until: desk.lighting.darkUntil)
            case .lightScreen(let reason): light(because: reason, at: wall)
            case .shade(let step): power.dim(screen, toStep: step, nightPercent: desk.settings.night.backlightPercent)
            case .moveText(let motion): if motion != controller.configuration { controller.reconfigure(motion, at: steady) }
            case .stillText: controller.pause(at: steady)
            case .resumeText: controller.resume(at: steady)
            case .showMessages:
                controller.show(desk.shownSnapshot, settings: desk.settings, at: steady, width: screen.bandWidth)
                tellMissingCharacters()
                publishShown()
            case .publishShown: publishShown()
            case .publishScreen: publishScreen(at: wall)
            case .publishReminders(let changed, let day): publishReminders(changed: changed, day: day)
            }
        }
    }

    /// Tells the status what is shown: the messages, the screen, whether paused. Called when
    /// one of them changes, not for every frame.
    private func publishShown() {
        var shown = desk.shownSnapshot
        let showing = shown.marqueeMessages(idleTemplate: desk.settings.idleText).map(\.text)
        shown.orientation = orientation
        let output = screen.outputDescription
        let paused = controller.isPaused
        state.update { shared in
            shared.snapshot = shown
            shared.showing = showing
            shared.output = output
            shared.paused = paused
            shared.version += 1
        }
    }

    /// Tells the status how reminders are heard, what became of the last ones and of `day`'s,
    /// and the carer's phone each of the `changed` fates.
    private func publishReminders(changed: [LedgerEntry], day: Int64) {
        guard let plan = desk.reminders else { return }
        let offset = desk.snapshot.utcOffset
        state.update { shared in
            shared.noteReminderChanges(changed.map { SoundStatus.Reminder($0, utcOffset: offset) })
            shared.sound = plan.soundStatus(updating: shared.sound, day: day, utcOffset: offset)
            shared.soundProblemIsError = plan.settings.isAskedFor
            shared.version += 1
        }
    }

    /// Lights the screen again, for `reason` within `screen_off` (nil: its end), drawing the
    /// next frame at once.
    private func light(because reason: String?, at wall: WallInstant) {
        power.switchOn(screen, at: wall.instant)
        frameDeadline = nil
        frameGridOrigin = nil
        log?.log(.notice, reason.map { "the screen is lit for \($0) within screen_off" } ?? "the screen is lit: screen_off ended")
    }

    /// Tells the status whether the screen is on, dark or lit for a while.
    private func publishScreen(at wall: WallInstant) {
        let screenStatus = desk.lighting.status(at: wall.instant, utcOffset: desk.snapshot.utcOffset, darkBy: power.darkBy)
        state.update { shared in
            shared.screen = screenStatus
            shared.version += 1
        }
    }

    /// Characters of the messages that no font of the screen has, once each: they are left out.
    private func tellMissingCharacters() {
        for character in screen.takeMissingCharacters() {
            log?.log(.warning, "\(FontStack.noFontHas(character)); it is left out of the messages")
        }
    }

    /// The errors of the feeds and the subscriptions to the screen, when it shows them: each on
    /// a line, at most three, then how many more there are.
    private func showProblems() {
        guard showsProblems else { return }
        screen.showProblems(state.errors(atMost: 3).map { "marquee: \($0)" })
    }

    /// Reads the settings and the feeds again (off this thread; the answers come as events),
    /// and asks for the subscriptions.
    private func reload(at steady: SteadyInstant) {
        if let reloadSettings { schedule.readSettings(reloadSettings) }
        reloadsInFlight += 1
        schedule.reload()
        schedule.askSubscriptionsAgain()
    }

    /// Draws in another font, text size or glyph budget from now on: the same device in a new
    /// layout, the text going on from the letter it was at. Fonts that cannot be used keep the
    /// screen as it was.
    private func restyle(_ style: FramebufferStyle) {
        do {
            guard let next = try screen.restyled(style) else { return }
            if replaceScreen(opening: { next }) { log?.log(.notice, "drawing in the new text style on \(next.outputDescription)") }
        } catch {
            log?.log(.error, "\(error); the text keeps its font and size")
        }
    }

    /// Reloads the feeds when a file the reader gave up on (it hung, or used its time) is due
    /// to be read again.
    private func readFeedsAgainIfDue(at wall: WallInstant) {
        guard let again = desk.snapshot.feedsReadAgainAt, again != readAgainAsked, wall.instant >= again else { return }
        readAgainAsked = again
        log?.log(.notice, "reading again the calendars the reader gave up on")
        reloadsInFlight += 1
        schedule.reload()
    }

    /// Asks the schedule for the messages at `wall`; what is shown stays until the answer.
    private func requestMessages(at wall: WallInstant) {
        request += 1
        awaitingSchedule = true
        schedule.requestSnapshot(at: wall.instant, request: request)
    }

    /// Draws the frame at `steady` and notes it in the status; false when the screen is gone
    /// (the terminal closed). Woken less than a refresh period after a frame's deadline, it
    /// draws the frame of the deadline: the one made ready, and motion as even as the grid. A
    /// screen that knows when the frame will be seen (KMS: the vertical blank of its flip) has
    /// it computed for that instant.
    private func drawFrame(at steady: SteadyInstant) -> Bool {
        var lateness: Nanoseconds?
        if let due = frameDeadline, steady >= due { lateness = steady - due }
        frameDeadline = nil
        let due = lateness.flatMap { late in screen.pacing.framePeriod.flatMap { late < $0 ? steady - late : nil } } ?? steady
        let seenAt = screen.isShowing ? screen.presentationTime(ofFrameDueAt: due, now: steady) : due
        let frame = controller.frame(at: seenAt, width: screen.bandWidth, includingPartialGlyphs: screen.pacing.drawsPartialGlyphs)
        do {
            try screen.show(frame)
        } catch {
            return false
        }
        let figures = screen.figures
        state.frameDrawn(at: steady, lateness: lateness, moving: frame.isMoving, inView: frame.textsInView,
                         glyphCache: figures.glyphCache, pageFlips: figures.pageFlips)
        return true
    }

    /// Shows the row below the band for `snapshot` on `screen`: while the box has no
    /// calendar, the page's address as the box can be reached now.
    private func showOrientation(of snapshot: ScheduleSnapshot, on screen: any TickerScreen, at steady: SteadyInstant) {
        let page = state.page
        var waitingForNetwork = false
        orientation = snapshot.orientationShown(idleTemplate: desk.settings.idleText, setupProblem: state.setupProblems.first) {
            let reachable = page?.reachableAt(boxAddress: homeAddress)
            waitingForNetwork = page?.address != nil && reachable == nil
            return reachable
        }
        addingCalendarsDue = waitingForNetwork ? steady + Self.addingCalendarsInterval : nil
        screen.showOrientation(orientation)
    }

    /// Says how to add calendars again, where the page or the box's address changed.
    private func lookAgainAtAddingCalendars(at steady: SteadyInstant) {
        guard desk.snapshot.addingCalendars != nil else { return }
        let before = orientation
        showOrientation(of: desk.snapshot, on: screen, at: steady)
        if orientation != before { publishShown() }
    }

    /// The steady time of the first thing due: the next frame that looks different, the next
    /// change of messages (unless an answer is awaited: it wakes the loop), the watchdog, the
    /// screen's next check.
    private func nextDeadline(steady: SteadyInstant, wall: WallInstant) -> SteadyInstant? {
        var deadline: SteadyInstant? = awaitingSchedule ? nil : steady + max(0, validUntil - wall)
        func consider(_ candidate: SteadyInstant) { deadline = min(deadline ?? candidate, candidate) }
        if screen.isShowing, !desk.isDark, var next = controller.nextFrameChange(after: steady, effectStep: screen.pacing.effectStep) {
            if let period = screen.pacing.framePeriod { next = max(next, nextFrame(after: steady, period: period)) }
            if deadline.map({ next < $0 }) ?? true { frameDeadline = next }
            consider(next)
        }
        if let ping = systemd.nextPing { consider(ping) }
        if let interval = screen.pacing.checkInterval { consider(steady + interval) }
        if let due = desk.nextDue(after: wall) { consider(steady + max(0, due - wall)) }
        if let again = desk.snapshot.feedsReadAgainAt, again != readAgainAsked {
            consider(steady + max(0, WallInstant(again) - wall))
        }
        if let retry = power.retryAt { consider(steady + max(0, WallInstant(retry) - wall)) }
        if let due = addingCalendarsDue { consider(due) }
        return deadline
    }

    /// The first tick of the display's frame grid after `now` (frames of a framebuffer fall on
    /// a fixed grid of its refresh period, so a late frame never shifts the ones after it). The
    /// grid starts at the first frame.
    func nextFrame(after now: SteadyInstant, period: Nanoseconds) -> SteadyInstant {
        guard let origin = frameGridOrigin else {
            frameGridOrigin = now
            return now + period
        }
        return Self.nextTick(after: now, grid: origin, period: period)
    }

    /// The first instant `origin + k·period` after `now` (`now` not before `origin`).
    static func nextTick(after now: SteadyInstant, grid origin: SteadyInstant, period: Nanoseconds) -> SteadyInstant {
        now + period - (now - origin) % period
    }
}
