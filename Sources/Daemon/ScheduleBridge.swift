import CLinux
import Dispatch
import Marquee
import Schedule

/// What the display needs from the schedule at an instant: the messages to show and until
/// when they hold (the next change, or local midnight, when the idle date changes).
public struct ScheduleSnapshot: Sendable {
    public var messages: [Message]
    /// The next change of messages, or local midnight, with the display zone's offset.
    public var validUntil: ZonedTime
    /// Today's date written out, shown when nothing is scheduled.
    public var idleText: String
    /// The feed files and their state.
    public var feeds: [FeedStatus]

    /// The messages for the marquee; the idle text (by default the date) when there are none,
    /// so the screen is never blank.
    public func marqueeMessages(idleTemplate: String = "{date}", textColour: Colour? = nil) -> [MarqueeMessage] {
        guard !messages.isEmpty else {
            let idle = idleTemplate.replacing("{date}", with: idleText)
            return [MarqueeMessage(text: idle.isEmpty ? idleText : idle, colour: textColour)]
        }
        return messages.map { message in
            MarqueeMessage(
                text: message.text,
                colour: message.color.map { Colour(red: $0.red, green: $0.green, blue: $0.blue) } ?? textColour,
                effect: message.effect.flatMap { MessageEffect(rawValue: $0.rawValue) } ?? .scroll)
        }
    }
}

extension Schedule {
    /// The snapshot at `instant`.
    public func snapshot(at instant: Instant) -> ScheduleSnapshot {
        let today = zoned(instant).wallClock.date
        let midnight = self.instant(ofLocal: CivilDateTime(date: today.adding(days: 1)))
        let next = nextChange(after: instant).map { min($0, midnight) } ?? midnight
        return ScheduleSnapshot(
            messages: messages(at: instant), validUntil: zoned(next), idleText: today.spokenForm, feeds: feeds)
    }
}

/// Reloads the feeds on the schedule's actor, logs what became of them, then wakes the
/// render thread to show the result.
public func reloadFeeds(_ schedule: Schedule, log: EventLog?) {
    Task { @ICalActor in
        schedule.reload()
        log?.feeds(schedule.feeds)
        mq_wake_sleeper()
    }
}

/// After `/etc/localtime` changed: shows times in the new system zone (if it is a new one),
/// logs it, and wakes the render thread. Returns the zone now in use.
@ICalActor @discardableResult
public func followSystemZone(_ schedule: Schedule, etc: String, log: EventLog?) -> String {
    let name = SystemTimeZone.name(environment: [:], etc: etc)
    if name != schedule.displayZoneName {
        do {
            try schedule.setDisplayZone(name)
            log?.log(.notice, "the system time zone is now \(name); recomputing the messages")
        } catch {
            log?.log(.error, "the system time zone changed to \(name), which is unknown; keeping \(schedule.displayZoneName)")
        }
        mq_wake_sleeper()
    }
    return schedule.displayZoneName
}

/// Runs `work` on the schedule's actor and waits for it, from a thread outside Swift
/// concurrency (the render thread): schedule queries are rare and take microseconds.
func waitOnScheduleActor<T: Sendable>(_ work: @escaping @Sendable @ICalActor () -> T) -> T {
    let result = ResultSlot<T>()
    let done = DispatchSemaphore(value: 0)
    Task { @ICalActor in
        result.value = work()
        done.signal()
    }
    done.wait()
    return result.value!
}

/// Hands one value from the actor's task to the waiting thread; the semaphore orders the
/// write before the read.
private final class ResultSlot<T>: @unchecked Sendable {
    var value: T?
}
