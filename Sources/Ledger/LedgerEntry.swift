/// One reminder in the ledger: one trigger of one event, and what became of it so far.
package struct LedgerEntry: Sendable, Hashable, Codable {
    /// Which reminder: one trigger of one event, whichever file holds it (a calendar saved
    /// under a new name is not a new reminder).
    package struct Key: Hashable, Sendable, Codable, Comparable {
        /// The event's UID, or its text where it has none.
        package var event: String
        /// The trigger, in seconds since 1970 (UTC).
        package var trigger: Int64
        /// What asked for it to be heard: `audio`, `display` (an alarm) or `event`.
        package var origin: String

        package init(event: String, trigger: Int64, origin: String) {
            self.event = event
            self.trigger = trigger
            self.origin = origin
        }

        package static func < (a: Key, b: Key) -> Bool {
            (a.trigger, a.event, a.origin) < (b.trigger, b.event, b.origin)
        }
    }

    /// What became of a reminder (its last state).
    package enum Fate: String, Sendable, Hashable, Codable, CaseIterable {
        /// Sounded (`soundings` of `total`); repeats may follow until it is acknowledged.
        case sounding
        /// Someone acknowledged it (`acknowledgedBy`, at `changedAt`).
        case acknowledged
        /// Sounded every time without being acknowledged.
        case notAcknowledged = "not acknowledged"
        /// Never heard (`why`: the box was off, it reached the box too late, it ended in the night).
        case missed
        /// Not urgent, at night: waits to be heard when the night ends, if it still shows.
        case quietAtNight = "quiet at night"
        /// Shown, not heard: a carer muted the reminders.
        case muted
        /// Shown, not heard: `speak` does not ask for this kind of reminder.
        case shownOnly = "shown only"

        /// Whether nothing more will happen to it.
        package var isSettled: Bool { self != .sounding && self != .quietAtNight }
    }

    package var key: Key
    package var text: String
    /// The UTC offset (seconds) of the trigger's local time, as the display showed it.
    package var triggerOffset: Int
    package var fate: Fate
    /// Why, in words: how late it was heard, why it was missed or only shown (nil: nothing to say).
    package var why: String?
    /// How many times it sounded, of how many at most.
    package var soundings: Int
    package var total: Int
    /// When it sounds next (a repeat), or the morning it waits for; nil: nothing planned.
    package var next: Int64?
    /// Seconds between repeats.
    package var interval: Int64
    package var urgent: Bool
    /// When it was first decided, and when its fate last changed (seconds since 1970).
    package var decidedAt: Int64
    package var changedAt: Int64
    /// Who acknowledged it ("a key", "request", "MQTT").
    package var acknowledgedBy: String?

    package init(
        key: Key, text: String, triggerOffset: Int, fate: Fate, why: String? = nil, soundings: Int = 0, total: Int = 0,
        next: Int64? = nil, interval: Int64 = 0, urgent: Bool = false, decidedAt: Int64, changedAt: Int64? = nil,
        acknowledgedBy: String? = nil
    ) {
        self.key = key
        self.text = text
        self.triggerOffset = triggerOffset
        self.fate = fate
        self.why = why
        self.soundings = soundings
        self.total = total
        self.next = next
        self.interval = interval
        self.urgent = urgent
        self.decidedAt = decidedAt
        self.changedAt = changedAt ?? decidedAt
        self.acknowledgedBy = acknowledgedBy
    }
}
