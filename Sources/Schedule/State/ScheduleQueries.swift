import Support

/// What the loaded feeds say: the messages at an instant, when they change, an agenda, a
/// snapshot for the display.
extension ScheduleState {
    /// The messages active at `instant`, in display order, each text once.
    func messages(at instant: Instant) -> [Message] {
        cover(instant.secondsSinceEpoch, through: instant.secondsSinceEpoch)
        let messages = index.activations(at: instant.secondsSinceEpoch).map(message(for:))
        // Sorted by position: a message is large to move.
        let ordered = messages.indices.sorted { Message.displayOrder(messages[$0], messages[$1]) }
        // A text shown once is heard as the last of its messages to ask for it (an alarm with
        // the event's own text, two alarms of one event): that one has just triggered.
        var kept: [String: Int] = [:]
        var result: [Message] = []
        result.reserveCapacity(messages.count)
        for message in ordered.lazy.map({ messages[$0] }) {
            if let earlier = kept[message.text] {
                if let sounding = message.sounding,
                    result[earlier].sounding.map({ $0.trigger < sounding.trigger }) ?? true
                {
                    result[earlier].sounding = sounding
                }
            } else {
                kept[message.text] = result.count
                result.append(message)
            }
        }
        return result
    }

    /// The first instant after `instant` at which a message starts or ends, or nil if none
    /// does within about a year and two months.
    func nextChange(after instant: Instant) -> Instant? {
        let seconds = instant.secondsSinceEpoch
        cover(seconds, through: seconds)
        // What is expanded already may hold the answer; later windows are expanded only if not.
        if let next = knownChange(after: seconds), next < knownUntil { return shown(next) }
        cover(seconds, through: seconds + Int64(ScheduleIndex.horizonWindows + 1) * ScheduleIndex.windowSeconds)
        return knownChange(after: seconds).flatMap(shown)
    }

    /// The first start or end of an activation after `seconds` in the expansions, or where one
    /// of them was cut (what follows is computed then).
    private func knownChange(after seconds: Int64) -> Int64? {
        let cut = cutEnds().filter { $0 > seconds }.min()
        return [index.nextBoundary(after: seconds), cut].compactMap { $0 }.min()
    }

    /// Where the expansions that were cut (by a budget or a deadline) end: what follows is
    /// computed when time reaches it, or never for a file the reader gave up on.
    private func cutEnds(expandableOnly: Bool = false) -> [Int64] {
        order.compactMap { file in
            guard let feed = inEffect[file], feed.expansion.isCut, feed.isExpandable || !expandableOnly else { return nil }
            return feed.expansion.coverage.upperBound
        }
    }

    /// Until when every file's activations are known.
    private var knownUntil: Int64 {
        order.compactMap { inEffect[$0].flatMap { $0.isExpandable ? $0.expansion.coverage.upperBound : nil } }.min()
            ?? .max
    }

    /// The instant, if the display zone can write its year.
    private func shown(_ seconds: Int64) -> Instant? {
        displayZone.writableInstants.contains(seconds) ? Instant(secondsSinceEpoch: seconds) : nil
    }

    /// The messages already active at `from`, then every start and end of a message text up
    /// to `to`, or to where a file's expansion was cut (by its budget or its deadline) or to
    /// `limit` changes.
    func agenda(from: Instant, to: Instant, limit: Int = 10_000) -> Agenda {
        cover(from.secondsSinceEpoch, through: to.secondsSinceEpoch)
        let end = min(to, cutEnds(expandableOnly: true).min().map(Instant.init(secondsSinceEpoch:)) ?? to)
        var active = messages(at: from)
        var entries = active.map { AgendaEntry(at: displayZone.zoned(from.secondsSinceEpoch), change: .active, message: $0) }
        var now = from
        while entries.count < limit, let next = nextChange(after: now), next < end {
            let current = messages(at: next)
            let at = displayZone.zoned(next.secondsSinceEpoch)
            let before = Set(active.map(\.text))
            let after = Set(current.map(\.text))
            for message in active where !after.contains(message.text) {
                entries.append(AgendaEntry(at: at, change: .end, message: message))
            }
            for message in current {
                if !before.contains(message.text) {
                    entries.append(AgendaEntry(at: at, change: .start, message: message))
                } else if let sounding = message.sounding, sounding.trigger.instant == next {
                    entries.append(AgendaEntry(at: at, change: .heard, message: message))
                }
            }
            active = current
            now = next
        }
        if entries.count >= limit {
            return Agenda(entries: Array(entries.prefix(limit)), stop: .limit(entries[limit - 1].at))
        }
        return Agenda(entries: entries, stop: end < to ? .cut(displayZone.zoned(end.secondsSinceEpoch)) : nil)
    }

    /// An instant with the display zone's UTC offset at that instant.
    func zoned(_ instant: Instant) -> ZonedTime {
        displayZone.zoned(instant.secondsSinceEpoch)
    }

    /// The instant a wall-clock reading in the display zone stands for (RFC 5545 §3.3.5).
    func instant(ofLocal wall: CivilDateTime) -> Instant {
        Instant(secondsSinceEpoch: displayZone.instant(of: wall))
    }

    /// The messages at `instant` and until when they hold.
    func snapshot(at instant: Instant) -> ScheduleSnapshot {
        let wall = zoned(instant).wallClock
        let today = wall.date
        let midnight = self.instant(ofLocal: CivilDateTime(date: today.adding(days: 1)))
        var next = nextChange(after: instant).map { min($0, midnight) } ?? midnight
        // The part of the day now and the minute it began.
        let current = orientation.map { (settings: $0, now: $0.parts.current(at: wall.hour * 60 + wall.minute)) }
        let line = current.map { orientationLine(at: wall, part: $0.now.part, $0.settings) }
        if let change = line?.next.map({ self.instant(ofLocal: $0) }), change > instant { next = min(next, change) }
        let offset = zoned(instant).utcOffset
        if zoned(next).utcOffset != offset { next = offsetChange(after: instant, before: next) }
        let partOfDay = current.map { current in
            let began = current.now.start
            let day = began < 0 ? today.adding(days: -1) : today
            let start = (began + 24 * 60) % (24 * 60)
            return (current.now.part, self.instant(ofLocal: CivilDateTime(date: day, hour: start / 60, minute: start % 60)))
        }
        let dark = darkness(at: wall)
        if let change = dark.change, change > instant { next = min(next, change) }
        let retryAt = dueRetries(from: instant.secondsSinceEpoch)
        return ScheduleSnapshot(
            messages: messages(at: instant), validUntil: zoned(next), utcOffset: offset,
            idleText: write(.fullDate, CivilDateTime(date: today)),
            orientation: orientation?.showsLine == true ? line?.text : nil, partOfDay: partOfDay,
            darkUntil: dark.isDark ? dark.change.map(zoned) : nil, feeds: feeds,
            feedsReadAgainAt: retryAt.map { Instant(secondsSinceEpoch: $0) },
            addingCalendars: calendarlessFolder.map { words.addingCalendars(folder: $0) })
    }

    /// Whether `screen_off` keeps the screen dark at the local time `wall`, and when that next
    /// changes (nil: never). "night" is dark from the night's start to the morning's.
    private func darkness(at wall: CivilDateTime) -> (isDark: Bool, change: Instant?) {
        let minute = wall.hour * 60 + wall.minute
        let start: Int, end: Int
        switch screenOff {
        case nil: return (false, nil)
        case .between(let from, let to)?: (start, end) = (from, to)
        case .night?:
            guard let starts = orientation?.parts.starts, let night = starts[.night], let morning = starts[.morning] else {
                return (false, nil)
            }
            (start, end) = (night, morning)
        }
        let isDark = start < end ? (start..<end).contains(minute) : minute >= start || minute < end
        // The next time the clock reads that minute: today if it is still to come, else tomorrow.
        let target = isDark ? end : start
        let day = target > minute ? wall.date : wall.date.adding(days: 1)
        return (isDark, instant(ofLocal: CivilDateTime(date: day, hour: target / 60, minute: target % 60)))
    }

    /// The first second after `start` whose UTC offset differs from `start`'s, given that
    /// `end`'s does.
    private func offsetChange(after start: Instant, before end: Instant) -> Instant {
        let offset = zoned(start).utcOffset
        let seconds = start.secondsSinceEpoch + 1..<end.secondsSinceEpoch
        return Instant(secondsSinceEpoch: seconds.partitionPoint { zoned(Instant(secondsSinceEpoch: $0)).utcOffset == offset })
    }
}

/// How the active messages change over a period.
package struct Agenda: Sendable {
    /// Why an agenda stops before the end of its period.
    package enum Stop: Hashable, Sendable {
        /// A file's messages from here on are computed later, when their time comes: it has more
        /// than its budget, or computing them took too long (its problems say which).
        case cut(ZonedTime)
        /// The agenda reached its limit of changes here.
        case limit(ZonedTime)
    }

    package var entries: [AgendaEntry]
    package var stop: Stop?
}

/// One change in an agenda.
package struct AgendaEntry: Hashable, Sendable {
    package enum Change: String, Hashable, Sendable {
        /// Already active when the agenda starts.
        case active
        case start
        case end
        /// Shown already, and asks to be heard again now (a second alarm of the same text).
        case heard
    }

    package var at: ZonedTime
    package var change: Change
    package var message: Message
}
