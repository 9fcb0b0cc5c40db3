import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// What a carer's request does, whichever door it came through (the control socket, the
/// carer's page): the one place that turns a `ControlRequest` into the display's events and a
/// reply. Who may ask is each door's to decide before.
struct ControlDesk: Sendable {
    let state: DisplayState
    let mailbox: EventMailbox
    /// Why the configuration file cannot be used now (nil: it can), asked before a reload.
    let checkConfiguration: (@Sendable () -> ReloadCheck)?
    /// Where a message sent now is kept (nil: no state folder).
    let said: SaidNow?
    /// The reminder ledger's path (nil: no state folder).
    let ledger: String?
    let clock: any BoxClock

    /// Carries `request` out and says how it went (`status` is the door's: it sends the
    /// state's reply as it is).
    func answer(_ request: ControlRequest) -> ControlReply {
        switch request.type {
        case .status:
            return ControlReply(ok: true, status: state.report)
        case .reminders:
            return reminders(since: request.since ?? 7 * 86_400)
        case .reload:
            var restartKeys: [String] = []
            switch checkConfiguration?() {
            case .unusable(let problem)?:
                return ControlReply(ok: false, error: "\(problem); nothing was reloaded")
            case .usable(let keys)?:
                restartKeys = keys
            case nil:
                break
            }
            mailbox.post(.control(request.type))
            return ControlReply(ok: true, note: restartKeys.isEmpty ? nil : restartKeys.joined(separator: ", ")
                + " changed; \(restartKeys.count == 1 ? "it takes" : "they take") effect when marquee restarts "
                + "(sudo systemctl restart marquee)")
        case .pause, .resume, .acknowledge, .mute, .unmute, .wake:
            mailbox.post(.control(request.type))
            return ControlReply(ok: true)
        case .show, .clear:
            guard let said else {
                return ControlReply(ok: false, error: "a message sent now needs a state folder (state_dir) to be kept in")
            }
            let problem: String?
            if request.type == .clear {
                problem = said.clear()
            } else {
                switch SaidNow.validated(SaidNow.Request(text: request.text ?? "", minutes: request.minutes,
                                                         colour: request.colour, speak: request.speak)) {
                case .failure(let refusal): return ControlReply(ok: false, error: refusal.description)
                case .success(let message): problem = said.say(message, at: clock.wallTime().instant)
                }
            }
            if problem == nil { mailbox.post(.control(request.type)) }
            return ControlReply(ok: problem == nil, error: problem)
        }
    }

    /// The ledger's reminders of the last `seconds`, read on a connection of this request's own
    /// (the loop writes on its own; WAL lets both go on).
    private func reminders(since seconds: Int64) -> ControlReply {
        guard let ledger else {
            return ControlReply(ok: false, error: "no reminder ledger: the display keeps nothing (no state_dir)")
        }
        guard access(ledger, F_OK) == 0 else { return ControlReply(ok: true, reminders: []) }
        do {
            let since = clock.wallTime().instant.secondsSinceEpoch - max(0, seconds)
            return ControlReply(ok: true, reminders: try SoundStatus.Reminder.inLedger(at: ledger, since: since))
        } catch {
            return ControlReply(ok: false, error: "\(error)")
        }
    }
}
