import Ledger
import Marquee
import Schedule
import Support

/// One thing the display loop carries out for a decision of the box's desk. The desk decides
/// with the time given; the loop is the only place that acts (the screen, the backlight, the
/// television, the voice, the ledger, the status, the journal).
enum BoxEffect: Equatable, Sendable {
    /// A line in the journal.
    case journal(EventLog.Level, String)
    /// Reminders' fates kept in the ledger: before anything is done for them.
    case record([LedgerEntry])
    /// A reminder's chime and words (once the television can be heard, within a bound).
    case play(ReminderPlan.Due)
    /// How reminders are heard changed (a reload).
    case hearWith(SoundSettings)
    /// Reminders muted (shown, not heard), or heard again.
    case keepMuted(Bool)
    case wakeTelevision(because: String)
    /// Turns it on only if it is in standby (someone may be watching another input).
    case wakeTelevisionIfOff(because: String)
    case standbyTelevision(because: String)
    /// Takes the television's input back if another device took it.
    case reclaimTelevisionInput
    /// The screen and its backlight off: `screen_off` began.
    case darkenScreen
    /// The screen and its backlight on: lit for a reason within `screen_off`, or (nil) its end.
    case lightScreen(because: String?)
    /// The screen dimmed to this step of the night (`NightPolicy.shadeSteps`).
    case shade(step: Int)
    /// The motion's settings from now on.
    case moveText(MarqueeConfiguration)
    case stillText
    case resumeText
    /// The band shown anew with the desk's messages and settings (an acknowledged reminder marked ✓).
    case showMessages
    /// The status told what is shown, how the screen is, how reminders are heard.
    case publishShown
    case publishScreen
    case publishReminders(changed: [LedgerEntry], day: Int64)
}

/// The box's decisions as time goes on — the reminders, the night, the dark screen — each
/// made from an event and the instant given and returned as effects, in the order they are to
/// be carried out. Nothing here acts or reads a clock: a test gives it instants and reads what
/// it decided.
struct BoxDesk {
    private(set) var settings: DisplaySettings
    /// The messages in effect, and the facts of the day they carry.
    private(set) var snapshot: ScheduleSnapshot
    /// Which reminders are heard and what became of them (nil: no sound in this run).
    private(set) var reminders: ReminderPlan?
    /// Whether the screen is to be dark (`screen_off`) now, and why it is lit within it.
    private(set) var lighting = ScreenLighting()
    /// Whether the screen was made dark.
    private(set) var isDark = false
    private(set) var isNight: Bool
    /// How far the screen is dimmed for the night, in steps.
    private(set) var shadeStep = 0
    /// Whether the night stilled the text, and whether the carer paused it (a morning does not
    /// undo that).
    private var stilledForNight = false
    private var pausedByRequest = false
    /// Whether a television is driven (`cec` is not "off").
    private let hasTelevision: Bool
    /// Whether the messages changed since the reminders were looked at.
    private var remindersToLook = true
    /// The local day whose reminders the status last tallied.
    private var publishedReminderDay: Int64?
    /// The lighting the status was last told of.
    private var publishedLighting: ScreenLighting?

    init(settings: DisplaySettings, snapshot: ScheduleSnapshot, reminders: ReminderPlan?, hasTelevision: Bool) {
        self.settings = settings
        self.snapshot = snapshot
        self.reminders = reminders
        self.hasTelevision = hasTelevision
        isNight = NightPolicy.isNight(snapshot.partOfDay)
        lighting.follow(darkUntil: snapshot.darkUntil)
    }

    /// The motion's settings now (slower at night if the settings say so).
    var motion: MarqueeConfiguration { NightPolicy(settings).marquee(atNight: isNight) }

    /// Whether the text stands still: for the night, or paused by the carer.
    var isTextStill: Bool { stilledForNight || pausedByRequest }

    /// The messages as the band shows them: reminders someone acknowledged marked ✓.
    var shownSnapshot: ScheduleSnapshot {
        guard let reminders else { return snapshot }
        var marked = snapshot
        marked.messages = reminders.marked(snapshot.messages)
        return marked
    }

    /// The run's start: the text stilled if it is a still night, the television woken (only if
    /// it is off) when the screen is to be seen, the status told everything once.
    mutating func start(at now: Instant) -> [BoxEffect] {
        var effects: [BoxEffect] = []
        if NightPolicy(settings).stillsText(atNight: isNight) {
            stilledForNight = true
            effects.append(.stillText)
        }
        if !lighting.isDark(at: now), !isNight { effects.append(.wakeTelevisionIfOff(because: "marquee started")) }
        return effects + [.publishShown, publishScreen(), publishingReminders(changed: [], at: now)]
    }

    /// What is due at `wall`, in this order: the reminders (messages that just began, a repeat's
    /// time, the night's end), the night's dimming and motion, the screen dark or lit.
    mutating func turn(at wall: WallInstant) -> [BoxEffect] {
        hearReminders(at: wall.instant) + followTheNight(at: wall) + followTheDark(at: wall.instant)
    }

    /// The first wall time after `wall` at which `turn` has something to do: a step of the
    /// night's dimming, a reminder's repeat, the dark screen's change (nil: none).
    func nextDue(after wall: WallInstant) -> WallInstant? {
        [
            NightPolicy(settings).nextShadeStep(snapshot.partOfDay, after: wall),
            reminders?.nextDue.map(WallInstant.init),
            lighting.nextChange(after: wall.instant).map(WallInstant.init),
        ].compactMap { $0 }.min()
    }

    /// The schedule's new answer. A message announced (typed into the box: one sent now) since
    /// `runBegan` lights the screen and wakes the television: one that began before the run
    /// (its feeds read after a restart) was announced then. Other changed messages, by day on a
    /// lit screen, take the television's input back.
    mutating func show(_ answer: ScheduleSnapshot, at now: Instant, runBegan: Instant) -> [BoxEffect] {
        let announced = Set(snapshot.messages.filter { $0.effect == .typewriter }.map(\.text))
        lighting.follow(darkUntil: answer.darkUntil)
        var effects: [BoxEffect] = []
        if let new = answer.messages.first(where: {
            $0.effect == .typewriter && !announced.contains($0.text) && $0.start.instant >= runBegan
        }) {
            lighting.light(for: new, because: "an announcement", at: now)
            effects.append(.wakeTelevision(because: "an announcement"))
        } else if !isNight, !lighting.isDark(at: now), answer.messages.map(\.text) != snapshot.messages.map(\.text) {
            effects.append(.reclaimTelevisionInput)
        }
        snapshot = answer
        remindersToLook = true
        return effects
    }

    /// New settings (a reload): the night's dimming and motion applied again, the band shown
    /// anew, reminders heard as `sound` says.
    mutating func use(_ fresh: DisplaySettings, sound: SoundSettings?, at now: Instant) -> [BoxEffect] {
        settings = fresh
        var effects: [BoxEffect] = [.shade(step: shadeStep), .moveText(motion), .showMessages]
        if let sound, reminders != nil {
            reminders?.settings = sound
            effects += [.hearWith(sound), publishingReminders(changed: [], at: now)]
        }
        return effects
    }

    /// A key: it acknowledges a reminder sounding, and lights a dark screen for a while.
    mutating func keyPressed(at now: Instant) -> [BoxEffect] {
        (reminders?.isWaiting == true ? acknowledge(at: now, by: "a key") : []) + lightByHand(because: "a key", at: now)
    }

    /// `marquee wake`: the screen lit for a while, the television woken and given marquee's input.
    mutating func wakeRequested(at now: Instant) -> [BoxEffect] {
        lightByHand(because: "a request", at: now) + (hasTelevision
            ? [.journal(.notice, "waking the television by request"), .wakeTelevision(because: "a request")]
            : [.journal(.notice, "asked to wake the television, but HDMI-CEC is off (cec = \"off\")")])
    }

    /// The reminders sounding now were heard: their repeats stop, and they are marked on the band.
    mutating func acknowledge(at now: Instant, by whom: String) -> [BoxEffect] {
        guard var plan = reminders else { return [] }
        let changed = plan.acknowledge(at: now, by: whom)
        reminders = plan
        return (changed.isEmpty ? [] : [.record(changed), .showMessages])
            + [.journal(.notice, ReminderPlan.acknowledgedLine(by: whom, changed: changed)), publishingReminders(changed: changed, at: now)]
    }

    /// Silences the reminders until unmuted (the screen is unchanged), or hears them again.
    mutating func mute(_ muted: Bool, at now: Instant) -> [BoxEffect] {
        guard reminders != nil else { return [] }
        reminders?.muted = muted
        return [
            .keepMuted(muted),
            .journal(.notice, muted ? "reminders muted by request: they are shown, not heard" : "reminders heard again"),
            publishingReminders(changed: [], at: now),
        ]
    }

    /// The carer paused the text; it stays still until resumed, whatever the night does.
    mutating func pause() -> [BoxEffect] {
        pausedByRequest = true
        return [.stillText, .publishShown, .journal(.notice, "paused by request")]
    }

    /// The carer resumed the text, also from a night's stillness.
    mutating func resume() -> [BoxEffect] {
        pausedByRequest = false
        stilledForNight = false
        return [.resumeText, .publishShown, .journal(.notice, "resumed by request")]
    }

    // MARK: - Reminders

    /// What the reminder plan decides now, in its order: the fates kept, the screen lit, the
    /// television woken, the journal, then the sound (which waits for the television).
    private mutating func hearReminders(at now: Instant) -> [BoxEffect] {
        guard var plan = reminders, remindersToLook || plan.nextDue.map({ now >= $0 }) == true else { return [] }
        remindersToLook = false
        let quiet = plan.settings.isQuietNight(darkUntil: snapshot.darkUntil, partOfDay: snapshot.partOfDay?.part)
        let decisions = plan.look(at: snapshot.messages, now: now, isNight: quiet)
        reminders = plan
        for message in decisions.light { lighting.light(for: message, because: "a reminder", at: now) }
        var effects: [BoxEffect] = decisions.record.isEmpty ? [] : [.record(decisions.record)]
        if decisions.wakeTelevision { effects.append(.wakeTelevision(because: "a reminder")) }
        effects += decisions.journal.map { .journal(.warning, $0) } + decisions.notices.map { .journal(.notice, $0) }
        effects += decisions.play.map(BoxEffect.play)
        let day = ReminderTally.localDay(of: now.secondsSinceEpoch, utcOffset: snapshot.utcOffset)
        if !decisions.record.isEmpty || day != publishedReminderDay {
            effects.append(publishingReminders(changed: decisions.record, at: now))
        }
        return effects
    }

    /// The status told of the reminders (their tally is of the local day of `now`).
    private mutating func publishingReminders(changed: [LedgerEntry], at now: Instant) -> BoxEffect {
        let day = ReminderTally.localDay(of: now.secondsSinceEpoch, utcOffset: snapshot.utcOffset)
        publishedReminderDay = day
        return .publishReminders(changed: changed, day: day)
    }

    // MARK: - Night

    /// Dims the screen as the night goes on and brightens it in the morning, a step at a time;
    /// slows or stills the text for the night, as the settings say; wakes the television in
    /// the morning.
    private mutating func followTheNight(at wall: WallInstant) -> [BoxEffect] {
        let policy = NightPolicy(settings)
        var effects: [BoxEffect] = []
        let step = policy.shadeStep(snapshot.partOfDay, at: wall)
        if step != shadeStep {
            shadeStep = step
            effects.append(.shade(step: step))
        }
        let night = NightPolicy.isNight(snapshot.partOfDay)
        guard night != isNight else { return effects }
        isNight = night
        if !night, !lighting.isDark(at: wall.instant) { effects.append(.wakeTelevision(because: "the morning")) }
        effects.append(.moveText(motion))
        let still = policy.stillsText(atNight: night)
        if still, !isTextStill {
            stilledForNight = true
            effects.append(.stillText)
        } else if !still, stilledForNight, !pausedByRequest {
            stilledForNight = false
            effects.append(.resumeText)
        }
        return effects + [.publishShown]
    }

    // MARK: - The dark screen

    /// Darkens the screen when `screen_off`'s hours begin or a light within them ends (the
    /// television to standby too, if the carer asked for it), and lights it again when they
    /// end or something lights it.
    private mutating func followTheDark(at now: Instant) -> [BoxEffect] {
        let dark = lighting.isDark(at: now)
        guard dark != isDark else { return lighting != publishedLighting ? [publishScreen()] : [] }
        isDark = dark
        let effects: [BoxEffect]
        if dark {
            effects = [.darkenScreen] + (settings.televisionStandby ? [.standbyTelevision(because: "screen_off")] : [])
        } else if let reason = lighting.litBecause {
            effects = [.lightScreen(because: reason)]
        } else {
            effects = [.lightScreen(because: nil), .wakeTelevision(because: "the end of screen_off")]
        }
        return effects + [publishScreen()]
    }

    /// A key or a request lights a dark screen for a while; a key wakes the television for it.
    private mutating func lightByHand(because reason: String, at now: Instant) -> [BoxEffect] {
        let before = lighting
        lighting.lightByHand(because: reason, at: now)
        guard lighting != before else { return [] }
        return (isDark && reason == "a key" ? [.wakeTelevision(because: "a key")] : []) + [publishScreen()]
    }

    /// The status told whether the screen is on, dark or lit for a while.
    private mutating func publishScreen() -> BoxEffect {
        publishedLighting = lighting
        return .publishScreen
    }
}
