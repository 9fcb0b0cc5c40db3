import Display
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which HDMI-CEC adapter marquee uses (`cec` in the configuration).
package enum CECChoice: Sendable, Hashable {
    /// The first adapter with something connected (a television's own adapter is not one).
    case auto
    case off
    case device(String)
}

/// What the display loop asks of the television: to be on and show marquee, or in standby
/// while the screen is dark, for a reason.
protocol TelevisionWaking: Sendable {
    func wake(because reason: String)
    /// Turns it on if it is in standby; one that is on is left on its input (marquee started
    /// by day: someone may be watching, and a restart must not take the input each time).
    func wakeIfOff(because reason: String)
    func standby(because reason: String)
    /// The messages changed while marquee should be seen: if another device took the
    /// television's input, marquee takes it back (`reclaim_input`), a few times an hour at most.
    func reclaimInput()
    /// Whether a sound may play now: the television is on, or nothing can be known of it (no
    /// adapter). A reminder's chime waits for it (bounded): HDMI sound into a television in
    /// standby is heard by nobody.
    func isReadyForSound() -> Bool
}

/// The television marquee is plugged into, over HDMI-CEC: woken and switched to marquee's
/// input when it matters (the morning, a reminder), asked for its power every few minutes, and
/// listened to (another input taken, the television put to standby). All of it on a thread of
/// its own with bounded waits (`TelevisionDriver`, one step at a time): nothing here stops or
/// delays a frame. A box without an adapter (most PCs) says so once; an adapter with nothing
/// connected is looked at again every minute.
final class Television: TelevisionWaking {
    private let choice: CECChoice
    private let reclaimsInput: Bool
    private let log: EventLog?
    private let report: @Sendable (TelevisionStatus) -> Void
    private let requests = TelevisionRequests()
    /// What is known of the television now.
    private let known = Mutex(TelevisionStatus(power: .unknown))
    private let thread = Mutex<Completion?>(nil)

    /// - Parameter report: told of what is known of the television whenever it changes.
    init(choice: CECChoice, reclaimsInput: Bool = true, log: EventLog?,
         report: @escaping @Sendable (TelevisionStatus) -> Void) {
        self.choice = choice
        self.reclaimsInput = reclaimsInput
        self.log = log
        self.report = report
    }

    /// Starts the thread; false when none could be started (said).
    @discardableResult
    func start() -> Bool {
        guard choice != .off else { return true }
        let started = runningThread(named: "marquee-cec") { [self] in run() }
        thread.withLock { $0 = started }
        if started == nil { log?.log(.warning, "no thread for HDMI-CEC: the television is not woken") }
        return started != nil
    }

    /// Ends the thread within a second (its waits are bounded).
    func stop() async {
        requests.stop()
        _ = await thread.withLock({ $0 })?.ended(within: .seconds(2))
    }

    /// Turns the television on and to marquee's input, for `reason` (the journal says it).
    func wake(because reason: String) {
        requests.ask(.wake(reason), at: TelevisionDriver.steadySeconds())
    }

    func wakeIfOff(because reason: String) {
        requests.ask(.wakeIfOff(reason), at: TelevisionDriver.steadySeconds())
    }

    /// Puts the television to standby (the screen is dark), for `reason`.
    func standby(because reason: String) {
        requests.ask(.standby(reason), at: TelevisionDriver.steadySeconds())
    }

    func isReadyForSound() -> Bool {
        guard choice != .off else { return true }
        return known.withLock { $0.adapter == nil || $0.power == .on }
    }

    func reclaimInput() {
        guard reclaimsInput else { return }
        requests.askToReclaim()
    }

    private func run() {
        let driver = TelevisionDriver(
            requests: requests, log: log, open: { [choice] in Self.open(choice) }, now: TelevisionDriver.steadySeconds,
            publish: { [self] fresh in
                known.withLock { $0 = fresh }
                report(fresh)
            })
        while !requests.isStopping {
            if driver.step() == .pause { usleep(200_000) }
        }
    }

    /// The adapter `choice` names, opened and with a logical address; or why there is none.
    private static func open(_ choice: CECChoice) -> ((any CECBus)?, String) {
        let paths: [String]
        switch choice {
        case .off: return (nil, "HDMI-CEC is off")
        case .device(let path): paths = [path]
        case .auto: paths = CECAdapter.paths()
        }
        guard !paths.isEmpty else { return (nil, Self.noAdapter) }
        var reasons: [String] = []
        for path in paths {
            do throws(CECAdapter.Failure) {
                return (try CECAdapter(path: path, name: TelevisionState.name), "")
            } catch {
                reasons.append(error.description)
            }
        }
        return (nil, reasons.joined(separator: "; "))
    }

    /// Why there is no adapter on a box that has none (its requests are not said when dropped).
    static let noAdapter = "this box has no HDMI-CEC adapter"
}

/// What the display asks of the television, kept for its driver: the latest request wins, a
/// request to take the input back rides along, and the driver is asked to stop.
final class TelevisionRequests: Sendable {
    enum Request: Equatable, Sendable {
        case wake(String)
        case wakeIfOff(String)
        case standby(String)

        /// "the wake (a reminder)", for the journal.
        var said: String {
            switch self {
            case .wake(let reason), .wakeIfOff(let reason): "the wake (\(reason))"
            case .standby(let reason): "the standby (\(reason))"
            }
        }
    }

    private struct Shared {
        var request: Request?
        /// When it was asked, in the driver's steady seconds.
        var askedAt: Int64 = 0
        var reclaimAsked = false
        var stopping = false
    }

    private let shared = Mutex(Shared())

    func ask(_ request: Request, at seconds: Int64) {
        shared.withLock { ($0.request, $0.askedAt) = (request, seconds) }
    }

    func askToReclaim() {
        shared.withLock { $0.reclaimAsked = true }
    }

    func stop() {
        shared.withLock { $0.stopping = true }
    }

    var isStopping: Bool { shared.withLock { $0.stopping } }

    /// The request and the reclaim asked since the last take, both cleared.
    func take() -> (request: Request?, reclaim: Bool) {
        shared.withLock { shared in
            defer { (shared.request, shared.reclaimAsked) = (nil, false) }
            return (shared.request, shared.reclaimAsked)
        }
    }

    /// While there is no adapter: whether a request waits (a reclaim does not: there is
    /// nothing to take back), and one that waited longer than `longest`, dropped.
    func waiting(at seconds: Int64, longest: Int64) -> (waits: Bool, expired: Request?) {
        shared.withLock { shared in
            shared.reclaimAsked = false
            guard let request = shared.request else { return (false, nil) }
            guard seconds - shared.askedAt <= longest else {
                shared.request = nil
                return (false, request)
            }
            return (true, nil)
        }
    }
}

/// The HDMI-CEC bus as the television's driver uses it: the kernel's adapter (`CECAdapter`),
/// or a television a test scripts.
protocol CECBus: AnyObject {
    var path: String { get }
    var physicalAddress: UInt16 { get }
    var logicalAddress: UInt8 { get }
    /// Sends one message; with `reply`, waits for that answer and returns its operands (nil:
    /// none came). A message nobody acknowledged is a failure.
    func send(_ opcode: CECMessage.Opcode, to: UInt8, operands: [UInt8], reply: CECMessage.Opcode?,
              timeoutMilliseconds: UInt32) throws(CECAdapter.Failure) -> [UInt8]?
    /// Why the box's own address changed (moved to another input, unplugged); nil: it did not.
    func movedTo() -> CECAdapter.Failure?
    func receive(timeoutMilliseconds: UInt32) throws(CECAdapter.Failure) -> CECMessage?
}

extension CECAdapter: CECBus {}

extension CECBus {
    @discardableResult
    func send(_ opcode: CECMessage.Opcode, to: UInt8, operands: [UInt8] = [], reply: CECMessage.Opcode? = nil)
        throws(CECAdapter.Failure) -> [UInt8]? {
        try send(opcode, to: to, operands: operands, reply: reply, timeoutMilliseconds: 1_000)
    }
}

/// The television's driver, one step at a time on the steady clock it is given: finds an
/// adapter (again, when it goes), sends what is asked (a wake waits for an adapter, a failed
/// one is sent again), takes the input back, polls the power and answers on the bus through
/// `TelevisionState`. A test drives it with a scripted bus and a clock of its own.
final class TelevisionDriver {
    /// How often the television is asked for its power, and how soon after a wake.
    static let pollSeconds: Int64 = 300
    static let afterWakeSeconds: Int64 = 3
    /// How often adapters are looked for while there is none that can be used.
    static let retrySeconds: Int64 = 60
    /// How many times a wake or a standby is sent before it is given up (a television that
    /// was reconfiguring its own adapter, a bus error), `afterWakeSeconds` apart.
    static let attempts = 3
    /// A request asked while there is no adapter waits for one this long (the adapter looked
    /// for every `lookWhileAskedSeconds` meanwhile), then is given up and said.
    static let longestPending: Int64 = 600
    static let lookWhileAskedSeconds: Int64 = 5

    /// What a step asks of the thread: go on at once, or pause a little first (nothing to do).
    enum Next: Equatable { case goOn, pause }

    private let requests: TelevisionRequests
    private let log: EventLog?
    private let open: () -> ((any CECBus)?, String)
    private let now: () -> Int64
    private let publish: (TelevisionStatus) -> Void

    private var adapter: (any CECBus)?
    private var state: TelevisionState?
    private var status = TelevisionStatus(power: .unknown)
    private var nextLook: Int64 = 0
    private var lastLook: Int64 = 0
    /// Whether an adapter was used in this run (one gone is waited for; a box that never had
    /// one said so once, and its requests go unsaid).
    private var hadAdapter = false
    private var nextPoll: Int64 = 0
    private var saidMissing: String?
    private var saidGivingUp = false
    private var unanswered = false
    /// A request whose message failed, to be sent again.
    private var retry: (request: TelevisionRequests.Request, attempts: Int, at: Int64)?

    /// - Parameters:
    ///   - open: an adapter, or why there is none.
    ///   - now: steady seconds.
    ///   - publish: told what is known of the television when it changes.
    init(requests: TelevisionRequests, log: EventLog?, open: @escaping () -> ((any CECBus)?, String),
         now: @escaping () -> Int64, publish: @escaping (TelevisionStatus) -> Void) {
        self.requests = requests
        self.log = log
        self.open = open
        self.now = now
        self.publish = publish
    }

    static func steadySeconds() -> Int64 { readClock(CLOCK_MONOTONIC) / 1_000_000_000 }

    private func tell(_ fresh: TelevisionStatus) {
        guard fresh != status else { return }
        if fresh.summary != status.summary, fresh.power != .unknown || fresh.problem != nil {
            log?.log(.notice, "television: \(fresh.summary)")
        }
        status = fresh
        publish(fresh)
    }

    /// One turn: an adapter looked for when there is none, else what was asked sent, the power
    /// polled when due and one message heard (waiting up to 0.2 s for it).
    func step() -> Next {
        guard let cec = adapter ?? findAdapter(), var known = state else { return .pause }
        var fresh = status
        let (asked, reclaim) = requests.take()
        if asked != nil { retry = nil }
        let request = asked ?? retry.flatMap { now() >= $0.at ? $0.request : nil }
        // The request until its messages went out (a later failure, a poll's, is not its).
        var unsent = request
        var next = Next.goOn
        do throws(CECAdapter.Failure) {
            if request == nil, reclaim, let other = known.otherInput {
                if known.reclaims(at: now()) {
                    try say(known.reclaim, on: cec)
                    known.woken()
                    log?.log(.notice, "television: took its input back from \(CECMessage.shown(other))")
                    fresh.lastWake = "taking the input back"
                } else if known.givesUpReclaiming, !saidGivingUp {
                    saidGivingUp = true
                    log?.log(.warning, "television: the device at \(CECMessage.shown(other)) takes the input again each "
                        + "time; marquee stops taking it back for an hour")
                }
            }
            if !known.givesUpReclaiming { saidGivingUp = false }
            var wanted = request
            if case .wakeIfOff(let reason)? = request {
                let reported = try cec.send(.giveDevicePowerStatus, to: CECMessage.television, reply: .reportPowerStatus)
                known.power = reported.flatMap(TelevisionPower.init(reported:)) ?? .unknown
                if known.power == .on || known.power == .goingOn {
                    log?.log(.notice, "television: on; left on its input (\(reason))")
                    wanted = nil
                } else {
                    wanted = .wake(reason)
                }
            }
            switch wanted {
            case .wakeIfOff?, nil:
                break
            case .wake(let reason)?:
                try say(known.wake, on: cec)
                known.woken()
                log?.log(.notice, "television woken and switched to marquee (\(reason))")
                fresh.lastWake = reason
                nextPoll = now() + Self.afterWakeSeconds
            case .standby(let reason)?:
                try say(known.standby, on: cec)
                known.putToStandby()
                log?.log(.notice, "television put to standby (\(reason))")
                fresh.lastStandby = reason
                nextPoll = now() + Self.afterWakeSeconds
            }
            if request != nil { (retry, unsent) = (nil, nil) }
            if now() >= nextPoll {
                nextPoll = now() + Self.pollSeconds
                // The box moved to another input, or the television's side was unplugged.
                if let moved = cec.movedTo() { throw moved }
                let reported = try cec.send(.giveDevicePowerStatus, to: CECMessage.television, reply: .reportPowerStatus)
                known.power = reported.flatMap(TelevisionPower.init(reported:)) ?? .unknown
                if known.power == .goingOn || known.power == .goingToStandby { nextPoll = now() + Self.afterWakeSeconds }
                unanswered = known.power == .unknown
            }
            if let message = try cec.receive(timeoutMilliseconds: 200) {
                try say(known.hear(message), on: cec)
            }
            fresh.problem = unanswered ? "it did not answer when asked for its power" : nil
        } catch {
            // A television that does not answer is not called off: its power is not known.
            known.power = .unknown
            fresh.problem = error.description
            if let request = unsent {
                let attempts = (retry?.attempts ?? 0) + 1
                retry = attempts < Self.attempts ? (request, attempts, now() + Self.afterWakeSeconds) : nil
                if retry == nil { log?.log(.warning, "television: \(error); given up after \(attempts) attempts") }
            }
            if error.isAdapterGone {
                log?.log(.warning, "\(error); looking for an HDMI-CEC adapter again")
                (adapter, nextLook) = (nil, now())
                fresh.adapter = nil
            }
            next = .pause
        }
        state = known
        fresh.power = known.power
        fresh.showingMarquee = known.showsMarquee
        fresh.otherInput = known.otherInput.map(CECMessage.shown)
        tell(fresh)
        return next
    }

    /// Without an adapter: looks for one when due (sooner while a request waits for it, which
    /// is given up after `longestPending`); the adapter found, or nil.
    private func findAdapter() -> (any CECBus)? {
        let (waits, expired) = requests.waiting(at: now(), longest: Self.longestPending)
        if let expired, hadAdapter || saidMissing != Television.noAdapter {
            log?.log(.warning, "television: \(expired.said) was not sent: no HDMI-CEC adapter for "
                + "\(Self.longestPending / 60) min")
        }
        guard now() >= (waits ? min(nextLook, lastLook + Self.lookWhileAskedSeconds) : nextLook) else { return nil }
        lastLook = now()
        nextLook = now() + Self.retrySeconds
        switch open() {
        case (let opened?, _):
            adapter = opened
            hadAdapter = true
            state = TelevisionState(physicalAddress: opened.physicalAddress, logicalAddress: opened.logicalAddress)
            saidMissing = nil
            nextPoll = now()
            log?.log(.notice, "HDMI-CEC on \(opened.path) as \(CECMessage.shown(opened.physicalAddress)), "
                + "logical address \(opened.logicalAddress)")
            var fresh = status
            fresh.adapter = opened.path
            fresh.problem = nil
            tell(fresh)
            return opened
        case (nil, let why):
            if saidMissing != why {
                saidMissing = why
                log?.log(.notice, "\(why); the television is not woken over HDMI-CEC")
            }
            tell(TelevisionStatus(power: .unknown, problem: why))
            return nil
        }
    }

    /// Sends `answers` in order.
    private func say(_ answers: [TelevisionState.Answer], on cec: any CECBus) throws(CECAdapter.Failure) {
        for answer in answers { try cec.send(answer.opcode, to: answer.to, operands: answer.operands) }
    }
}
