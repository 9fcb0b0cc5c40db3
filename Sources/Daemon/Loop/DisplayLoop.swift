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
/// is replaced by a new one, and the text goes on where it was.
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

    private let clock: any DisplayClock
    private var screen: any TickerScreen
    private let schedule: ScheduleService
    private let state: DisplayState
    private let systemd: SystemdNotifier
    private let watchdogInterval: Nanoseconds?
    private let log: EventLog?
    private var settings: DisplaySettings
    private let reloadSettings: (@Sendable () -> ReloadedSettings?)?
    private let controller: MarqueeController
    /// Whether the feeds' errors are shown on the screen (the log is silent: its terminal is
    /// the display).
    private let showsProblems: Bool

    /// The messages shown, and until when (wall clock) they hold.
    private var snapshot: ScheduleSnapshot
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
    private var lastPing: SteadyInstant
    private var ready = false
    /// How far the screen is dimmed now, in `shadeSteps`.
    private var shadeStep = 0
    /// The panel's backlight, dimmed at night instead of the colours (nil: none, or one that
    /// failed).
    private var backlight: Backlight?
    /// Whether it is night (the night part of the day), whether the night stilled the text, and
    /// whether the carer paused it (a morning does not undo that).
    private var isNight = false
    private var stilledForNight = false
    private var pausedByRequest = false
    /// Which reminders are heard (nil: no sound in this run), played by `voice`; whether the
    /// messages changed since it last looked.
    private var reminders: ReminderPlan?
    private let voice: ReminderVoice?
    /// Where the reminders' fates are kept, before they are carried out (nil: nowhere).
    private let records: ReminderRecords?
    private var remindersToLook = true
    /// The local day whose reminders the status last tallied.
    private var publishedReminderDay: Int64?
    /// The television over HDMI-CEC, woken when marquee must be seen (nil: `cec = "off"`).
    private let television: (any TelevisionWaking)?
    /// Whether the screen is dark (`screen_off`) and why, whether it was made dark, and how.
    private var lighting = ScreenLighting()
    /// The lighting the status was last told of.
    private var publishedLighting: ScreenLighting?
    private var isDark = false
    private var darkBy: String?
    /// Why the screen or its backlight stayed off when it was to be on (said in the box's
    /// problems), and when that is tried again; nil: it is on.
    private var unlit: (problem: String, retryAt: Instant)?
    static let relightSeconds: Int64 = 10
    /// When this run began, on the steady clock: a message announced (typed in) that began
    /// earlier was announced by the run before (a restart lights and wakes nothing for it).
    private let startedAt: SteadyInstant

    /// - Parameters:
    ///   - snapshot: the messages at the start (the schedule is loaded before the display starts).
    ///   - state: where the status is kept for the control socket.
    ///   - reloadSettings: reads the settings again on a reload (nil: keep the old ones).
    ///   - showsProblems: shows the feeds' errors on the screen, for whoever started marquee
    ///     on the terminal it draws on.
    ///   - backlight: dimmed at night instead of the colours; brightened again when the run ends.
    init(
        clock: any DisplayClock, screen: any TickerScreen, schedule: ScheduleService, snapshot: ScheduleSnapshot,
        settings: DisplaySettings, state: DisplayState, environment: [String: String] = [:], log: EventLog? = nil,
        reloadSettings: (@Sendable () -> ReloadedSettings?)? = nil, showsProblems: Bool = false,
        backlight: Backlight? = nil, reminders: ReminderPlan? = nil, voice: ReminderVoice? = nil,
        records: ReminderRecords? = nil, television: (any TelevisionWaking)? = nil
    ) {
        self.clock = clock
        self.reminders = reminders
        self.voice = voice
        self.records = records
        self.television = television
        self.backlight = backlight
        self.screen = screen
        self.schedule = schedule
        self.snapshot = snapshot
        self.settings = settings
        self.state = state
        self.log = log
        self.reloadSettings = reloadSettings
        self.showsProblems = showsProblems
        systemd = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        let steady = clock.steadyTime()
        lastTurn = (clock.wallTime(), steady)
        startedAt = steady
        lastPing = steady
        validUntil = WallInstant(snapshot.validUntil.instant)
        isNight = NightPolicy.isNight(snapshot.partOfDay)
        lighting.follow(darkUntil: snapshot.darkUntil)
        let night = NightPolicy(settings)
        controller = MarqueeController(
            metrics: screen.metrics, configuration: night.marquee(atNight: isNight), origin: steady)
        if night.stillsText(atNight: isNight) {
            controller.pause(at: steady)
            stilledForNight = true
        }
        controller.announcementBox = screen.announcementBox
        controller.lineBreaking = UnicodeLineBreaking()
        controller.show(marked(snapshot), settings: settings, at: steady, width: screen.bandWidth)
        screen.showOrientation(snapshot.orientationShown(idleTemplate: settings.idleText))
        if !lighting.isDark(at: lastTurn.wall.instant) {
            if backlight?.isSwitchedOff == true {
                log?.log(.notice, "the backlight was left off (marquee stopped while the screen was dark); switched on")
                switchOn(at: lastTurn.wall)
            }
            if !isNight { television?.wakeIfOff(because: "marquee started") }
        }
        publishShown()
        publishScreen(at: lastTurn.wall)
        publishReminders()
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
            systemd.send("STOPPING=1")
            screen.giveBack()
            backlight?.brightenForTheDay()
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
        pingWatchdog(at: clock.steadyTime())
        guard let next = open() else { return false }
        do {
            try next.takeOver()
        } catch {
            log?.tell(.error, "cannot use the new screen: \(error)")
            return false
        }
        screen = next
        dimForTheNight()
        if isDark { darkBy = next.setDark(true) }
        next.showOrientation(snapshot.orientationShown(idleTemplate: settings.idleText))
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
        hearReminders(at: wall)
        followTheNight(steady: steady, wall: wall)
        followTheDark(at: wall)
        if !isDark {
            guard drawFrame(at: steady) else { return .finished(0) }
        }
        tellSystemd(at: steady)
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
            controller.pause(at: steady)
            pausedByRequest = true
            publishShown()
            log?.log(.notice, "paused by request")
        case .control(.resume):
            controller.resume(at: steady)
            pausedByRequest = false
            stilledForNight = false
            publishShown()
            log?.log(.notice, "resumed by request")
        case .control(.reload):
            log?.log(.notice, "reloading the configuration and the feeds by request")
            reload(at: steady)
        case .control(.status), .control(.reminders):
            break
        case .control(.acknowledge):
            acknowledge(at: wall, by: "request")
        case .keyPressed:
            // Any key acknowledges a reminder sounding, and lights a dark screen for a while.
            if reminders?.isWaiting == true { acknowledge(at: wall, by: "a key") }
            lightByHand(because: "a key", at: wall)
        case .control(.mute):
            mute(true)
        case .control(.unmute):
            mute(false)
        case .control(.wake):
            lightByHand(because: "a request", at: wall)
            if let television {
                log?.log(.notice, "waking the television by request")
                television.wake(because: "a request")
            } else {
                log?.log(.notice, "asked to wake the television, but HDMI-CEC is off (cec = \"off\")")
            }
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
            guard let fresh = reloaded?.display else { break }
            settings = fresh
            dimForTheNight()
            controller.reconfigure(NightPolicy(fresh).marquee(atNight: isNight), at: steady)
            controller.show(marked(snapshot), settings: fresh, at: steady, width: screen.bandWidth)
            tellMissingCharacters()
            publishShown()
            if let scheduleSettings = reloaded?.schedule {
                reloadsInFlight += 1
                schedule.apply(scheduleSettings)
            }
            if let style = reloaded?.style { restyle(style) }
            if let sound = reloaded?.sound, reminders != nil {
                reminders?.settings = sound
                voice?.use(sound)
                publishReminders()
            }
        case .feedsReloaded:
            reloadsInFlight = max(0, reloadsInFlight - 1)
            requestMessages(at: wall)
        case .pictureWanted(let request):
            request.answer(isDark ? screen.copyForPicture()?.darkened : screen.copyForPicture())
        case .clockStepped, .feedsPartlyRead:
            requestMessages(at: wall)
        case .subscriptionsChanged, .soundReported:
            showProblems()
        case .schedule(let answer, let number):
            guard number == request else { break }
            awaitingSchedule = false
            // A message announced (typed into the box: one sent now) is for someone to see; one
            // that began before this run (its feeds read after a restart) was announced then.
            let announced = Set(snapshot.messages.filter { $0.effect == .typewriter }.map(\.text))
            lighting.follow(darkUntil: answer.darkUntil)
            // The run's start on the wall clock as it is now (one set back or forward since moves it).
            let began = wall.instant - Int64((steady - startedAt) / 1_000_000_000)
            if let new = answer.messages.first(where: {
                $0.effect == .typewriter && !announced.contains($0.text) && $0.start.instant >= began
            }) {
                lighting.light(for: new, because: "an announcement", at: wall.instant)
                television?.wake(because: "an announcement")
            } else if !isNight, !lighting.isDark(at: wall.instant), answer.messages.map(\.text) != snapshot.messages.map(\.text) {
                television?.reclaimInput()
            }
            snapshot = answer
            validUntil = WallInstant(answer.validUntil.instant)
            controller.show(marked(answer), settings: settings, at: steady, width: screen.bandWidth)
            remindersToLook = true
            screen.showOrientation(answer.orientationShown(idleTemplate: settings.idleText))
            tellMissingCharacters()
            publishShown()
            showProblems()
            systemd.send("STATUS=" + Self.summary(answer))
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

    /// Tells the status what is shown: the messages, the screen, whether paused. Called when
    /// one of them changes, not for every frame.
    private func publishShown() {
        var shown = marked(snapshot)
        let showing = shown.marqueeMessages(idleTemplate: settings.idleText).map(\.text)
        shown.orientation = snapshot.orientationShown(idleTemplate: settings.idleText)
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

    // MARK: - Reminders

    /// Carries out what the reminder desk decides now (messages that just began, a repeat's
    /// time, the night's end), in its order: the fates kept, the screen lit, the television
    /// woken, then the sound (which waits for the television).
    private func hearReminders(at wall: WallInstant) {
        guard var plan = reminders,
              remindersToLook || plan.nextDue.map({ wall.instant >= $0 }) == true
        else { return }
        remindersToLook = false
        let quiet = plan.settings.isQuietNight(darkUntil: snapshot.darkUntil, partOfDay: snapshot.partOfDay?.part)
        let decisions = plan.look(at: snapshot.messages, now: wall.instant, isNight: quiet)
        reminders = plan
        records?.record(decisions.record, at: wall.instant.secondsSinceEpoch)
        for message in decisions.light { lighting.light(for: message, because: "a reminder", at: wall.instant) }
        if decisions.wakeTelevision { television?.wake(because: "a reminder") }
        for line in decisions.journal { log?.log(.warning, line) }
        for line in decisions.notices { log?.log(.notice, line) }
        let ready = television.map { television in { @Sendable in television.isReadyForSound() } }
        for due in decisions.play { voice?.play(due, when: ready) }
        let day = ReminderTally.localDay(of: wall.instant.secondsSinceEpoch, utcOffset: snapshot.utcOffset)
        if !decisions.record.isEmpty || day != publishedReminderDay { publishReminders(changed: decisions.record) }
    }

    /// `snapshot` as the band shows it: reminders someone acknowledged marked ✓.
    private func marked(_ snapshot: ScheduleSnapshot) -> ScheduleSnapshot {
        guard let reminders else { return snapshot }
        var marked = snapshot
        marked.messages = reminders.marked(snapshot.messages)
        return marked
    }

    /// The reminders sounding now were heard: their repeats stop, and they are marked on the band.
    private func acknowledge(at wall: WallInstant, by whom: String) {
        guard var plan = reminders else { return }
        let changed = plan.acknowledge(at: wall.instant, by: whom)
        reminders = plan
        if !changed.isEmpty {
            records?.record(changed, at: wall.instant.secondsSinceEpoch)
            controller.show(marked(snapshot), settings: settings, at: clock.steadyTime(), width: screen.bandWidth)
            tellMissingCharacters()
            publishShown()
        }
        log?.log(.notice, ReminderPlan.acknowledgedLine(by: whom, changed: changed))
        publishReminders(changed: changed)
    }

    /// Silences the reminders until unmuted (the screen is unchanged), or hears them again.
    private func mute(_ muted: Bool) {
        guard reminders != nil else { return }
        reminders?.muted = muted
        voice?.keepMuted(muted)
        log?.log(.notice, muted ? "reminders muted by request: they are shown, not heard" : "reminders heard again")
        publishReminders()
    }

    /// Tells the status how reminders are heard, what became of the last ones and of today's,
    /// and the carer's phone each of the `changed` fates.
    private func publishReminders(changed: [LedgerEntry] = []) {
        guard let plan = reminders else { return }
        let offset = snapshot.utcOffset
        let day = ReminderTally.localDay(of: lastTurn.wall.instant.secondsSinceEpoch, utcOffset: offset)
        publishedReminderDay = day
        state.update { shared in
            shared.noteReminderChanges(changed.map { SoundStatus.Reminder($0, utcOffset: offset) })
            shared.sound = plan.soundStatus(updating: shared.sound, day: day, utcOffset: offset)
            shared.soundProblemIsError = plan.settings.isAskedFor
            shared.version += 1
        }
    }

    // MARK: - Night

    /// Dims the screen as the night goes on and brightens it in the morning, a step at a time,
    /// and slows or stills the text for the night, as the settings say.
    private func followTheNight(steady: SteadyInstant, wall: WallInstant) {
        let policy = NightPolicy(settings)
        let step = policy.shadeStep(snapshot.partOfDay, at: wall)
        if step != shadeStep {
            shadeStep = step
            dimForTheNight()
        }
        let night = NightPolicy.isNight(snapshot.partOfDay)
        guard night != isNight else { return }
        isNight = night
        if !night, !lighting.isDark(at: wall.instant) { television?.wake(because: "the morning") }
        let marquee = policy.marquee(atNight: night)
        if marquee != controller.configuration { controller.reconfigure(marquee, at: steady) }
        let still = policy.stillsText(atNight: night)
        if still, !controller.isPaused {
            controller.pause(at: steady)
            stilledForNight = true
        } else if !still, stilledForNight, !pausedByRequest {
            controller.resume(at: steady)
            stilledForNight = false
        }
        publishShown()
    }

    /// Dims the screen as far as the night's step says: the backlight where there is one, else
    /// the colours (and the colours from the first time the backlight cannot be set).
    private func dimForTheNight() {
        let shade = NightPolicy.shade(ofStep: shadeStep)
        if let backlight {
            do throws(Backlight.Problem) {
                try backlight.setShade(shade, nightPercent: settings.night.backlightPercent)
                return
            } catch {
                log?.tell(.warning, "\(error); the colours are darkened at night instead")
                self.backlight = nil
            }
        }
        screen.setShade(shade)
    }

    // MARK: - The dark screen

    /// Darkens the screen when `screen_off`'s hours begin or a light within them ends (the
    /// television to standby too, if the carer asked for it), and lights it again when they
    /// end or something lights it; frames are drawn only while it is lit.
    private func followTheDark(at wall: WallInstant) {
        let dark = lighting.isDark(at: wall.instant)
        guard dark != isDark else {
            if !dark, let unlit, wall.instant >= unlit.retryAt { switchOn(at: wall) }
            if lighting != publishedLighting { publishScreen(at: wall) }
            return
        }
        isDark = dark
        if dark {
            if let unlit {
                // Dark is what is wanted now: whether it comes on is known when it is lit.
                state.update { $0.replaceBoxProblem(unlit.problem, with: nil) }
                self.unlit = nil
            }
            darkBy = screen.setDark(true)
            if let backlight {
                do throws(Backlight.Problem) {
                    try backlight.setPower(false)
                    darkBy = (darkBy ?? "") + ", the backlight off"
                } catch {
                    log?.log(.warning, "\(error); the screen is dark with its backlight on")
                }
            }
            state.darkened()
            let until = lighting.darkUntil.map { " until " + $0.wallClock.clock() } ?? ""
            log?.log(.notice, "the screen is dark\(until) (screen_off): \(darkBy ?? "")")
            if settings.televisionStandby { television?.standby(because: "screen_off") }
        } else {
            switchOn(at: wall)
            frameDeadline = nil
            frameGridOrigin = nil
            if let reason = lighting.litBecause {
                log?.log(.notice, "the screen is lit for \(reason) within screen_off")
            } else {
                log?.log(.notice, "the screen is lit: screen_off ended")
                television?.wake(because: "the end of screen_off")
            }
        }
        publishScreen(at: wall)
    }

    /// Powers the screen and its backlight on. What fails is said (the journal, the box's
    /// problems: a reminder lit on a screen that stays off is seen by nobody) and tried again
    /// every `relightSeconds`; said again when it works.
    private func switchOn(at wall: WallInstant) {
        var failures: [String] = []
        let screenFailure = screen.setDark(false)
        if !screenFailure.isEmpty { failures.append("the screen \(screenFailure)") }
        if let backlight {
            do throws(Backlight.Problem) { try backlight.setPower(true) } catch { failures.append(error.description) }
        }
        let problem = failures.isEmpty ? nil : failures.joined(separator: "; ") + ": what is shown may be seen by nobody"
        if problem != unlit?.problem {
            if let problem {
                log?.tell(.warning, problem)
            } else {
                log?.log(.notice, "the screen is on again")
            }
            let earlier = unlit?.problem
            state.update { $0.replaceBoxProblem(earlier, with: problem) }
        }
        unlit = problem.map { ($0, wall.instant + Self.relightSeconds) }
    }

    /// A key or a request lights a dark screen for a while, and wakes the television for it.
    private func lightByHand(because reason: String, at wall: WallInstant) {
        let before = lighting
        lighting.lightByHand(because: reason, at: wall.instant)
        guard lighting != before else { return }
        if isDark, reason == "a key" { television?.wake(because: "a key") }
        publishScreen(at: wall)
    }

    /// Tells the status whether the screen is on, dark or lit for a while.
    private func publishScreen(at wall: WallInstant) {
        publishedLighting = lighting
        let screenStatus = lighting.status(at: wall.instant, utcOffset: snapshot.utcOffset, darkBy: darkBy)
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
        guard let again = snapshot.feedsReadAgainAt, again != readAgainAsked, wall.instant >= again else { return }
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

    /// READY=1 after the first turn (its frame drawn, or the screen dark), and the watchdog.
    private func tellSystemd(at steady: SteadyInstant) {
        if !ready {
            ready = systemd.send("READY=1")
            systemd.send("STATUS=" + Self.summary(snapshot))
        }
        if let watchdogInterval, steady - lastPing >= watchdogInterval { pingWatchdog(at: steady) }
    }

    /// Tells systemd's watchdog the display is alive.
    private func pingWatchdog(at steady: SteadyInstant) {
        guard watchdogInterval != nil else { return }
        systemd.send("WATCHDOG=1")
        lastPing = steady
    }

    /// The steady time of the first thing due: the next frame that looks different, the next
    /// change of messages (unless an answer is awaited: it wakes the loop), the watchdog, the
    /// screen's next check.
    private func nextDeadline(steady: SteadyInstant, wall: WallInstant) -> SteadyInstant? {
        var deadline: SteadyInstant? = awaitingSchedule ? nil : steady + max(0, validUntil - wall)
        func consider(_ candidate: SteadyInstant) { deadline = min(deadline ?? candidate, candidate) }
        if screen.isShowing, !isDark, var next = controller.nextFrameChange(after: steady, effectStep: screen.pacing.effectStep) {
            if let period = screen.pacing.framePeriod { next = max(next, nextFrame(after: steady, period: period)) }
            if deadline.map({ next < $0 }) ?? true { frameDeadline = next }
            consider(next)
        }
        if let watchdogInterval { consider(lastPing + watchdogInterval) }
        if let interval = screen.pacing.checkInterval { consider(steady + interval) }
        if let step = NightPolicy(settings).nextShadeStep(snapshot.partOfDay, after: wall) {
            consider(steady + (step - wall))
        }
        if let due = reminders?.nextDue { consider(steady + max(0, WallInstant(due) - wall)) }
        if let again = snapshot.feedsReadAgainAt, again != readAgainAsked {
            consider(steady + max(0, WallInstant(again) - wall))
        }
        if let dark = lighting.nextChange(after: wall.instant) { consider(steady + max(0, WallInstant(dark) - wall)) }
        if let unlit { consider(steady + max(0, WallInstant(unlit.retryAt) - wall)) }
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

    /// "showing 3 messages; next change 21:00" for systemctl status.
    static func summary(_ snapshot: ScheduleSnapshot) -> String {
        let count = snapshot.messages.count
        let showing = count == 0 ? "showing the date" : "showing \(count) message\(count == 1 ? "" : "s")"
        return "\(showing); next change \(snapshot.validUntil.wallClock.clock())"
    }
}
