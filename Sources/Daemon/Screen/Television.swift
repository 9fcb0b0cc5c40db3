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
/// its own with bounded waits: nothing here stops or delays a frame. A box without an adapter
/// (most PCs) says so once; an adapter with nothing connected is looked at again every minute.
final class Television: TelevisionWaking {
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

    /// What the loop asked last: the latest request wins.
    private enum Request {
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
        /// When it was asked, in `steadySeconds`.
        var askedAt: Int64 = 0
        var reclaimAsked = false
        var stopping = false
    }

    private let choice: CECChoice
    private let reclaimsInput: Bool
    private let log: EventLog?
    private let report: @Sendable (TelevisionStatus) -> Void
    private let shared = Mutex(Shared())
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
        shared.withLock { $0.stopping = true }
        _ = await thread.withLock({ $0 })?.ended(within: .seconds(2))
    }

    /// Turns the television on and to marquee's input, for `reason` (the journal says it).
    func wake(because reason: String) {
        ask(.wake(reason))
    }

    func wakeIfOff(because reason: String) {
        ask(.wakeIfOff(reason))
    }

    /// Puts the television to standby (the screen is dark), for `reason`.
    func standby(because reason: String) {
        ask(.standby(reason))
    }

    private func ask(_ request: Request) {
        shared.withLock { ($0.request, $0.askedAt) = (request, Self.steadySeconds()) }
    }

    private static func steadySeconds() -> Int64 { readClock(CLOCK_MONOTONIC) / 1_000_000_000 }

    func isReadyForSound() -> Bool {
        guard choice != .off else { return true }
        return known.withLock { $0.adapter == nil || $0.power == .on }
    }

    func reclaimInput() {
        guard reclaimsInput else { return }
        shared.withLock { $0.reclaimAsked = true }
    }

    private func run() {
        var adapter: CECAdapter?
        var state: TelevisionState?
        var status = TelevisionStatus(power: .unknown)
        var nextLook: Int64 = 0
        var lastLook: Int64 = 0
        var nextPoll: Int64 = 0
        var saidMissing: String?
        var saidGivingUp = false
        var unanswered = false
        /// A request whose message failed, to be sent again.
        var retry: (request: Request, attempts: Int, at: Int64)?
        func now() -> Int64 { Self.steadySeconds() }
        func publish(_ fresh: TelevisionStatus) {
            guard fresh != status else { return }
            if fresh.summary != status.summary, fresh.power != .unknown || fresh.problem != nil {
                log?.log(.notice, "television: \(fresh.summary)")
            }
            status = fresh
            known.withLock { $0 = fresh }
            report(fresh)
        }
        while !shared.withLock({ $0.stopping }) {
            if adapter == nil {
                // A request waits for an adapter (one plugged in, one that answers again), and
                // has it looked for sooner; not for ever.
                let (waiting, expired) = shared.withLock { shared -> (Bool, Request?) in
                    shared.reclaimAsked = false
                    guard let request = shared.request else { return (false, nil) }
                    guard now() - shared.askedAt <= Self.longestPending else {
                        shared.request = nil
                        return (false, request)
                    }
                    return (true, nil)
                }
                if let expired {
                    log?.log(.warning, "television: \(expired.said) was not sent: no HDMI-CEC adapter for "
                        + "\(Self.longestPending / 60) min")
                }
                guard now() >= (waiting ? min(nextLook, lastLook + Self.lookWhileAskedSeconds) : nextLook) else {
                    usleep(200_000)
                    continue
                }
                lastLook = now()
                nextLook = now() + Self.retrySeconds
                switch open() {
                case (let opened?, _):
                    adapter = opened
                    state = TelevisionState(physicalAddress: opened.physicalAddress, logicalAddress: opened.logicalAddress)
                    saidMissing = nil
                    nextPoll = now()
                    log?.log(.notice, "HDMI-CEC on \(opened.path) as \(CECMessage.shown(opened.physicalAddress)), "
                        + "logical address \(opened.logicalAddress)")
                    var fresh = status
                    fresh.adapter = opened.path
                    fresh.problem = nil
                    publish(fresh)
                case (nil, let why):
                    if saidMissing != why {
                        saidMissing = why
                        log?.log(.notice, "\(why); the television is not woken over HDMI-CEC")
                    }
                    publish(TelevisionStatus(power: .unknown, problem: why))
                    continue
                }
            }
            guard let cec = adapter, var known = state else { continue }
            var fresh = status
            let (asked, reclaim) = shared.withLock { shared in
                defer { (shared.request, shared.reclaimAsked) = (nil, false) }
                return (shared.request, shared.reclaimAsked)
            }
            if asked != nil { retry = nil }
            let request = asked ?? retry.flatMap { now() >= $0.at ? $0.request : nil }
            // The request until its messages went out (a later failure, a poll's, is not its).
            var unsent = request
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
                usleep(200_000)
            }
            state = known
            fresh.power = known.power
            fresh.showingMarquee = known.showsMarquee
            fresh.otherInput = known.otherInput.map(CECMessage.shown)
            publish(fresh)
        }
    }

    /// Sends `answers` in order.
    private func say(_ answers: [TelevisionState.Answer], on cec: CECAdapter) throws(CECAdapter.Failure) {
        for answer in answers { try cec.send(answer.opcode, to: answer.to, operands: answer.operands) }
    }

    /// The adapter `choice` names, opened and with a logical address; or why there is none.
    private func open() -> (CECAdapter?, String) {
        let paths: [String]
        switch choice {
        case .off: return (nil, "HDMI-CEC is off")
        case .device(let path): paths = [path]
        case .auto: paths = CECAdapter.paths()
        }
        guard !paths.isEmpty else { return (nil, "this box has no HDMI-CEC adapter") }
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
}
