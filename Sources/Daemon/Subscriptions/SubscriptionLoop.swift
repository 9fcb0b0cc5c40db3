import Schedule
import Support

/// Fetches each subscription when it is due, for as long as the task runs: a calendar that
/// changed has the feeds read again (`.feedsChanged`), a failure goes to the journal when it
/// is new (`.subscriptionsChanged`), and the status lists every subscription (times in the
/// display's zone). It looks at least once a minute, so a clock that was set is noticed.
/// `clock` is the machine's (servers' dates and Retry-After are in it, not in the display's,
/// which `--at` shifts).
func keepFetching(
    _ subscriptions: Subscriptions, schedule: Schedule, mailbox: EventMailbox, state: DisplayState, log: EventLog,
    clock: any BoxClock = SystemClock()
) async {
    enum Event: Sendable {
        case fetched(SubscriptionAddress, changed: Bool)
        /// The timer that was due at this second (on `clock`).
        case timer(due: Int64)
        /// Addresses became due before their time.
        case woken
    }
    var reported: [String: String] = [:]
    /// When the armed timer wakes the loop (nil: none armed).
    var timerDue: Int64?
    var listening = false
    await withTaskGroup(of: Event.self) { group in
        while !Task.isCancelled {
            let now = clock.now()
            // Each address on its own: a server that hangs holds up no other.
            for address in await subscriptions.claimDue(at: now) {
                group.addTask { .fetched(address, changed: await subscriptions.refresh(address, at: now)) }
            }
            let statuses = await publishStatuses(of: subscriptions, schedule: schedule, state: state, at: now)
            var errorsChanged = false
            for status in statuses where reported[status.address] != status.error {
                let earlier = reported[status.address]
                reported[status.address] = status.error
                errorsChanged = true
                if let error = status.error {
                    log.log(.warning, "\(status.address): \(error)")
                } else if let earlier {
                    log.log(.notice, "\(status.address): fetched again; it was failing (\(earlier))")
                }
            }
            if errorsChanged { mailbox.post(.subscriptionsChanged) }
            // Woken when a fetch ends, else at the next attempt, and at least each minute. A
            // fetch that ended may have made an attempt sooner than the armed timer (a first
            // boot's network not up yet: asked again in seconds): a sooner timer is armed, and
            // the later one, when it fires, is let pass.
            let next = max(now.secondsSinceEpoch, await subscriptions.nextAttempt(at: now)?.secondsSinceEpoch ?? .max)
            let current = clock.now().secondsSinceEpoch
            let due = current + max(1, min(60, next - current))
            if timerDue.map({ due < $0 }) ?? true {
                timerDue = due
                group.addTask {
                    await clock.sleep(seconds: due - current)
                    return .timer(due: due)
                }
            }
            if !listening {
                listening = true
                group.addTask {
                    var wakeUps = subscriptions.wakeUps.makeAsyncIterator()
                    _ = await wakeUps.next()
                    return .woken
                }
            }
            switch await group.next() {
            case .fetched(let address, let changed)?:
                if changed {
                    log.log(.notice, "\(address.shown): fetched a new version of the calendar")
                    await schedule.replaceFetched(await subscriptions.fetched())
                    mailbox.post(.feedsChanged)
                }
            case .timer(let due)?:
                if due == timerDue { timerDue = nil }
            case .woken?:
                listening = false
            case nil:
                return
            }
        }
        group.cancelAll()
    }
}

/// Puts each subscription's state in the status (times in the display's zone) and returns
/// them: at each turn of the subscription loop, and after each reload (a carer who removed one
/// on the page sees it gone, not listed until the loop's next turn).
@discardableResult
func publishStatuses(of subscriptions: Subscriptions, schedule: Schedule, state: DisplayState, at now: Instant) async
    -> [SubscriptionStatus] {
    let statuses = await subscriptions.statuses(utcOffset: schedule.zoned(now).utcOffset)
    state.update { $0.subscriptions = statuses }
    return statuses
}
