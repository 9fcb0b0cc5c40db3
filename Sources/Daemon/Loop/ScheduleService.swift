import Schedule
import Support
import Synchronization

/// The schedule as the display loop uses it: asked for the messages at an instant, told to
/// reload (the configuration file too) or to follow the system's zone. Each request is answered
/// in a child task of `serve` — one running part owns them all, and ending it cancels them —
/// and every answer comes back through the mailbox, so the loop never waits for it — not even
/// while a reload waits for a slow reader process — and keeps drawing what it has. Answers are
/// tagged: one that arrives after a later request is the loop's to drop.
final class ScheduleService: Sendable {
    /// What the loop asks of the schedule.
    private enum Request: Sendable {
        /// The first reading of `paths` and the subscriptions' copies, then `then`.
        case readFirst(paths: [String], around: Instant, then: @Sendable () -> Void)
        case snapshot(at: Instant, request: Int)
        case reload
        case readSettings(@Sendable () -> ReloadedSettings?)
        case apply(ScheduleSettings)
        case askSubscriptionsAgain
        case followSystemZone
    }

    private let schedule: Schedule
    private let mailbox: EventMailbox
    private let log: EventLog?
    /// `/etc`, when the display follows the system's time zone.
    private let systemZoneFolder: String?
    /// The calendar subscriptions, asked again at once on a carer's reload.
    private let subscriptions: Subscriptions?
    /// Told after each reading: the reminders' recordings at addresses and their words in the
    /// chosen voice are looked at again.
    private let afterReading: @Sendable () -> Void
    /// The machine's clock, which subscriptions are fetched on (not the display's, which `--at` shifts).
    private let machineClock: any BoxClock
    /// Told what a reload read (its subscriptions in use already), before the display is: the
    /// broker's picture follows it, and the status lists the subscriptions as they now are.
    private let settingsRead: (@Sendable (ReloadedSettings) async -> Void)?
    private let requests: AsyncStream<Request>
    private let asked: AsyncStream<Request>.Continuation

    init(
        schedule: Schedule, mailbox: EventMailbox, log: EventLog?, systemZoneFolder: String? = nil,
        subscriptions: Subscriptions? = nil, afterReading: @escaping @Sendable () -> Void = {}, machineClock: any BoxClock = SystemClock(),
        settingsRead: (@Sendable (ReloadedSettings) async -> Void)? = nil
    ) {
        self.machineClock = machineClock
        self.settingsRead = settingsRead
        self.schedule = schedule
        self.mailbox = mailbox
        self.log = log
        self.systemZoneFolder = systemZoneFolder
        self.subscriptions = subscriptions
        self.afterReading = afterReading
        (requests, asked) = AsyncStream.makeStream(of: Request.self)
    }

    /// Answers the requests, each in a task of its own beside the others (a snapshot is not
    /// held up by a reload), until cancelled; then the answers under way are cancelled too.
    func serve() async {
        await withDiscardingTaskGroup { group in
            for await request in requests {
                group.addTask { await self.answer(request) }
            }
        }
    }

    /// Reads `paths` (and the subscriptions' copies) for the first time, queries `around` in
    /// mind, logging what became of them (`readAndLog`); then calls `then`.
    func readFirst(_ paths: [String], around instant: Instant, then: @escaping @Sendable () -> Void) {
        asked.yield(.readFirst(paths: paths, around: instant, then: then))
    }

    /// Posts `.schedule(snapshot, request)` with the messages at `instant`.
    func requestSnapshot(at instant: Instant, request: Int) {
        asked.yield(.snapshot(at: instant, request: request))
    }

    /// Reads the feeds again, logs what became of them (`readAndLog`), then posts `.feedsReloaded`.
    func reload() {
        asked.yield(.reload)
    }

    /// Reads the configuration file again with `read` (nil: it cannot be used), then posts
    /// `.settingsRead`: like the feeds, a big or slow file never holds up a frame.
    func readSettings(_ read: @escaping @Sendable () -> ReloadedSettings?) {
        asked.yield(.readSettings(read))
    }

    /// Counts and writes times as a reload read them (every file is read again for a new zone
    /// or default length of an event), then posts `.feedsReloaded`.
    func apply(_ settings: ScheduleSettings) {
        asked.yield(.apply(settings))
    }

    /// A carer's reload: every subscription is asked for again now (a calendar that changes
    /// has the feeds read again as it arrives); the machine's clock says when now is.
    func askSubscriptionsAgain() {
        asked.yield(.askSubscriptionsAgain)
    }

    /// After `/etc/localtime` changed: shows times in the system's zone, if it is a new one
    /// (all-day and floating times move with it), then posts `.feedsReloaded`.
    func followSystemZone() {
        asked.yield(.followSystemZone)
    }

    private func answer(_ request: Request) async {
        switch request {
        case .readFirst(let paths, let instant, let then):
            let fetched = await subscriptions?.fetched() ?? []
            await readAndLog(log: log, mailbox: mailbox) {
                await schedule.load(paths, fetched: fetched, around: instant, progress: $0)
            }
            then()
        case .snapshot(let instant, let number):
            mailbox.post(.schedule(await schedule.snapshot(at: instant), request: number))
        case .reload:
            await readAndLog(log: log, mailbox: mailbox) { await schedule.reload(progress: $0) }
            mailbox.post(.feedsReloaded)
            afterReading()
        case .readSettings(let read):
            // On a thread of its own: a disk that hangs holds none of the threads tasks share.
            let settings = await onThread(named: "marquee-config", read) ?? nil
            if let addresses = settings?.subscriptions, let subscriptions, await subscriptions.use(addresses) {
                // An address added is fetched at once; one removed is shown no more.
                await schedule.replaceFetched(await subscriptions.fetched())
                mailbox.post(.feedsChanged)
            }
            if let settings { await settingsRead?(settings) }
            mailbox.post(.settingsRead(settings))
        case .apply(let settings):
            do {
                try await schedule.apply(settings)
            } catch {
                log?.log(.error, "\(error); keeping the time zone in use")
            }
            mailbox.post(.feedsReloaded)
        case .askSubscriptionsAgain:
            await subscriptions?.askAgainNow(at: machineClock.now())
        case .followSystemZone:
            if let systemZoneFolder { await adoptSystemZone(schedule, etc: systemZoneFolder, log: log) }
            mailbox.post(.feedsReloaded)
        }
    }
}

/// Runs `load` (a reading of the feeds) and logs what became of each file: while a file is
/// slow to read, those read already are posted as `.feedsPartlyRead` and logged as they come
/// into effect — the journal says when a dropped-in file was shown, not when the slowest file
/// was read — and the rest when the reading ends.
func readAndLog(
    log: EventLog?, mailbox: EventMailbox, _ load: (@escaping @Sendable ([FeedStatus]) -> Void) async -> [FeedStatus]
) async {
    let logged = Mutex<Set<FeedStatus>>([])
    let statuses = await load { taken in
        log?.feeds(taken)
        logged.withLock { $0.formUnion(taken) }
        mailbox.post(.feedsPartlyRead)
    }
    log?.feeds(logged.withLock { logged in statuses.filter { !logged.contains($0) } })
}

/// Shows times in the system zone named under `etc`, if it is not the one in use, and logs
/// it. True when the zone changed.
@discardableResult
func adoptSystemZone(_ schedule: Schedule, etc: String, log: EventLog?) async -> Bool {
    let name = SystemTimeZone.name(environment: [:], etc: etc)
    let current = await schedule.displayZoneName
    guard name != current else { return false }
    do {
        try await schedule.setDisplayZone(name)
        log?.log(.notice, "the system time zone is now \(name); recomputing the messages")
        return true
    } catch {
        log?.log(.error, "the system time zone changed to \(name), which is unknown; keeping \(current)")
        return false
    }
}
