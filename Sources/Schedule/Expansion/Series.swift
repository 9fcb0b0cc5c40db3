import CLibical

/// An interval during which one message is active, with what the message needs to be built.
@ICalActor struct EventActivation {
    var start: Int64
    var end: Int64
    var kind: Message.Kind
    var record: EventRecord
    /// Which of the record's alarms it is (nil: the event itself), and the alarm's text.
    var alarm: Int?
    var alarmText: String?
    var occurrenceStart: Int64
    var occurrenceEnd: Int64
    /// Whole years since the series' first occurrence, for `{age}` (`unknownAge`: its first
    /// year is not known).
    var age: Int
    var source: String

    /// The age of a birthday whose year is not known.
    static let unknownAge = -1
}

/// How long an event of no length (DTEND equal to DTSTART) is shown: as a moment it would
/// never be seen, and every answer (messages, agenda, status, screen) must say the same.
let momentShownSeconds: Int64 = 60

/// What expansion needs besides the series itself.
@ICalActor struct ExpansionContext {
    /// All-day dates are local days of the display.
    let displayZone: Zone
    let defaultDuration: Int64
    let limits: ScheduleLimits
    /// After this (`monotonicNanoseconds`) no further window is expanded: the first always is.
    let deadline: Int64

    func instant(of value: TimeValue, floating: Zone) -> Int64 {
        if value.isDate { return displayZone.startOfDay(value.wall.date) }
        switch value.basis {
        case .utc: return value.wall.secondsAsUTC
        case .floating: return floating.instant(of: value.wall)
        case .zone(let zone): return zone.instant(of: value.wall)
        }
    }

    /// When an occurrence that starts at `wall` (read in `zone`) ends.
    func end(of wall: CivilDateTime, start: Int64, length: OccurrenceLength, isDate: Bool, zone: Zone) -> Int64 {
        switch length {
        case .exact(let seconds):
            return start + seconds
        case .wallClock(let seconds):
            // A start shifted out of a spring-forward gap can land on or after the wall-clock
            // end: then the event lasts its exact length (RFC 5545 §3.8.5.3), never zero.
            let end = zone.instant(of: wall.adding(seconds: seconds))
            return end <= start && seconds > 0 ? start + seconds : end
        case .days(let days):
            return displayZone.startOfDay(wall.date.adding(days: days))
        case .nominal(let duration):
            var shifted = wall
            shifted.date = wall.date.adding(days: duration.days)
            let base = isDate ? displayZone.startOfDay(shifted.date) : zone.instant(of: shifted)
            return base + duration.seconds
        }
    }

    /// The zone a value's wall clock is read in.
    func zone(of value: TimeValue, floating: Zone) -> Zone {
        if value.isDate { return displayZone }
        switch value.basis {
        case .utc: return .utc
        case .floating: return floating
        case .zone(let zone): return zone
        }
    }
}

/// How long each occurrence of an event lasts (RFC 5545 §3.8.2.2, §3.8.2.5).
enum OccurrenceLength {
    /// DTEND in another zone than DTSTART (or UTC): the same exact number of seconds.
    case exact(Int64)
    /// DTEND in the same zone as DTSTART: the same span of the wall clock, so a
    /// 21:00–07:00 series ends at 07:00 on DST mornings too (as Google Calendar and Python's
    /// icalendar read it; RFC 5545 §3.8.5.3 would make it 06:00 or 08:00).
    case wallClock(Int64)
    /// DTEND on an all-day event, or none: whole local days.
    case days(Int)
    /// DURATION: days and weeks on the wall clock, the rest exact.
    case nominal(NominalDuration)

    var maximumSeconds: Int64 {
        switch self {
        case .exact(let seconds): seconds
        case .wallClock(let seconds): seconds + 7_200
        case .days(let days): Int64(days) * 90_000
        case .nominal(let duration): duration.maximumSeconds
        }
    }
}

/// One occurrence, before it becomes activations.
@ICalActor struct Occurrence {
    var record: EventRecord
    var wall: CivilDateTime
    var start: Int64
    var end: Int64
}

/// Turns an occurrence into its activations: the event itself and its display alarms.
@ICalActor func appendActivations(
    of occurrence: Occurrence, age: Int, source: String, floating: Zone, isFirst: Bool,
    context: ExpansionContext, into result: inout [EventActivation]
) {
    let record = occurrence.record
    let start = occurrence.start
    let end = max(start, occurrence.end)
    func activation(_ kind: Message.Kind, _ from: Int64, _ to: Int64, alarm: Int?, _ text: String?) -> EventActivation {
        EventActivation(
            start: from, end: to, kind: kind, record: record, alarm: alarm, alarmText: text, occurrenceStart: start,
            occurrenceEnd: end, age: record.yearUnknown ? EventActivation.unknownAge : age, source: source)
    }
    if !record.text.isEmpty {
        result.append(activation(.event, start, end > start ? end : start + momentShownSeconds, alarm: nil, nil))
    }
    for (number, alarm) in record.alarms.enumerated() {
        let trigger: Int64
        switch alarm.trigger {
        case .relative(let seconds, let toEnd):
            trigger = (toEnd ? end : start) + seconds
        case .absolute(let value):
            guard isFirst else { continue }
            trigger = context.instant(of: value, floating: floating)
        }
        let until = trigger < start ? start : (trigger < end ? end : trigger + context.defaultDuration)
        let text = alarm.text ?? (record.text.isEmpty ? nil : record.text)
        if let text { result.append(activation(.alarm, trigger, until, alarm: number, text)) }
    }
}

/// A recurring event (RRULE/RDATE) with its exceptions and overrides, expanded on demand
/// for one window at a time. Recurrence runs in the event's own wall-clock time (a floating
/// copy of DTSTART, so libical's ICU path cannot carry a DST shift into later instances) and
/// each instance is then converted to an instant with the RFC 5545 §3.3.5 rules.
@ICalActor final class Series {
    let master: EventRecord
    let source: String
    private let floating: Zone
    private let zone: Zone
    private let firstWall: CivilDateTime
    private let isDate: Bool
    private let firstStart: Int64
    private let length: OccurrenceLength
    private let context: ExpansionContext
    private var excludedStarts: Set<Int64> = []
    private var excludedDates: Set<CivilDate> = []
    private var futureChanges: [(from: Int64, shift: Int64, record: EventRecord, length: OccurrenceLength)] = []
    /// How far before and after a window occurrences are looked for: the longest reach of an
    /// occurrence or its alarms, of a THISANDFUTURE move, plus `margin`.
    private var lookBack: Int64
    private var lookAhead: Int64
    /// Slack for wall-clock arithmetic: a DST shift (at most two hours) for a timed series; a
    /// day for all-day ones, whose days begin in the display zone.
    private let margin: Int64
    /// No occurrence starts in `quiet` (learnt from an earlier expansion).
    private var quiet: Range<Int64>?
    /// The last expansion hit a limit, so what it saw is not the whole truth.
    private var truncated = false
    /// Where the last expansion stopped keeping occurrences (a limit or the budget): what
    /// starts from here on is unknown.
    private(set) var cut: Int64?
    /// The last expansion stopped because the file's activation budget was spent.
    private(set) var spentBudget = false
    /// The instances of COUNT rules, by rule index.
    private var countedInstances: [Int: [CivilDateTime]] = [:]
    private(set) var warnings: [String] = []

    init(master: EventRecord, start: TimeValue, source: String, floating: Zone, context: ExpansionContext) {
        self.master = master
        self.source = source
        self.floating = floating
        self.context = context
        zone = context.zone(of: start, floating: floating)
        firstWall = start.wall
        isDate = start.isDate
        firstStart = context.instant(of: start, floating: floating)
        length = Self.length(of: master, start: start, floating: floating, context: context)
        var back = length.maximumSeconds
        var ahead: Int64 = 0
        for alarm in master.alarms {
            if case .relative(let seconds, let toEnd) = alarm.trigger {
                back = max(back, (toEnd ? length.maximumSeconds : 0) + seconds + context.defaultDuration)
                ahead = max(ahead, -seconds)
            }
        }
        margin = start.isDate ? 86_400 : 4 * 3_600
        lookBack = back + margin
        lookAhead = ahead + margin
        for exception in master.exceptionDates {
            if exception.isDate || isDate {
                excludedDates.insert(localDate(of: exception))
            } else {
                excludedStarts.insert(context.instant(of: exception, floating: floating))
            }
        }
    }

    static func length(
        of record: EventRecord, start: TimeValue, floating: Zone, context: ExpansionContext
    ) -> OccurrenceLength {
        if let end = record.end {
            if start.isDate && end.isDate {
                return .days(max(1, Int(end.wall.date.daysSinceEpoch - start.wall.date.daysSinceEpoch)))
            }
            if !start.isDate, !end.isDate, sameZone(start.basis, end.basis) {
                return .wallClock(max(0, end.wall.secondsAsUTC - start.wall.secondsAsUTC))
            }
            return .exact(
                max(0, context.instant(of: end, floating: floating) - context.instant(of: start, floating: floating)))
        }
        if let duration = record.duration { return .nominal(duration) }
        return start.isDate ? .days(1) : .exact(context.defaultDuration)
    }

    /// The local date a value falls on, in this series' zone (for DATE matching).
    private func localDate(of value: TimeValue) -> CivilDate {
        if value.isDate { return value.wall.date }
        return zone.wallClock(at: context.instant(of: value, floating: floating)).date
    }

    /// An override (RECURRENCE-ID) removes the instance it replaces, and with
    /// RANGE=THISANDFUTURE moves every later one the same way.
    func applyOverride(_ override: EventRecord, recurrenceID: TimeValue) {
        let originalStart = context.instant(of: recurrenceID, floating: floating)
        if recurrenceID.isDate || isDate {
            excludedDates.insert(localDate(of: recurrenceID))
        } else {
            excludedStarts.insert(originalStart)
        }
        guard override.appliesToFuture, let start = override.start else { return }
        let shift = context.instant(of: start, floating: floating) - originalStart
        let overrideLength = Self.length(of: override, start: start, floating: floating, context: context)
        futureChanges.append((originalStart, shift, override, overrideLength))
        lookBack = max(lookBack, shift + overrideLength.maximumSeconds + margin)
        lookAhead = max(lookAhead, -shift + margin)
        futureChanges.sort { $0.from < $1.from }
    }

    private func end(of wall: CivilDateTime, start: Int64, length: OccurrenceLength) -> Int64 {
        context.end(of: wall, start: start, length: length, isDate: isDate, zone: zone)
    }

    private func instant(of wall: CivilDateTime) -> Int64 {
        isDate ? context.displayZone.startOfDay(wall.date) : zone.instant(of: wall)
    }

    /// Appends the activations of every occurrence that overlaps `window`, while `result`
    /// holds fewer than `budget`; `cut` says where it stopped short.
    func expand(_ window: Range<Int64>, into result: inout [EventActivation], budget: Int) {
        let from = window.lowerBound - lookBack
        let to = window.upperBound + lookAhead
        cut = nil
        spentBudget = false
        if let quiet, quiet.lowerBound <= from, to <= quiet.upperBound { return }
        if result.count >= budget {
            // The budget is spent: nothing of this window is known (libical is not asked).
            cut = window.lowerBound
            spentBudget = true
            return
        }
        var starts: [(wall: CivilDateTime, start: Int64, end: Int64?)] = []
        var nextBeyond = Int64.max
        truncated = false
        func consider(_ wall: CivilDateTime, _ start: Int64, _ end: Int64?) {
            if start >= to {
                nextBeyond = min(nextBeyond, start)
            } else if start >= from {
                starts.append((wall, start, end))
            }
        }
        consider(firstWall, firstStart, nil)
        for (index, rule) in master.rules.enumerated() {
            iterate(index, rule, from: from, to: to, window: window, room: max(0, budget - result.count), consider: consider)
        }
        for date in master.recurrenceDates {
            let start = context.instant(of: date.start, floating: floating)
            let wall = date.start.isDate ? date.start.wall : zone.wallClock(at: start)
            var end: Int64?
            if let periodEnd = date.periodEnd {
                end = context.instant(of: periodEnd, floating: floating)
            } else if let duration = date.periodDuration {
                end = self.end(of: wall, start: start, length: .nominal(duration))
            }
            consider(wall, start, end)
        }
        if starts.isEmpty, !truncated {
            quiet = from..<nextBeyond
            return
        }
        starts.sort { $0.start < $1.start }
        var previous: Int64?
        for candidate in starts where candidate.start != previous {
            previous = candidate.start
            if result.count >= budget {
                cut = min(cut ?? .max, candidate.start)
                spentBudget = true
                break
            }
            if excludedStarts.contains(candidate.start) { continue }
            if !excludedDates.isEmpty, excludedDates.contains(isDate ? candidate.wall.date : zone.wallClock(at: candidate.start).date) {
                continue
            }
            var occurrence = Occurrence(
                record: master, wall: candidate.wall, start: candidate.start,
                end: candidate.end ?? end(of: candidate.wall, start: candidate.start, length: length))
            if let change = futureChanges.last(where: { $0.from < candidate.start }) {
                occurrence.record = change.record
                occurrence.start += change.shift
                occurrence.wall = zone.wallClock(at: occurrence.start)
                occurrence.end = end(of: occurrence.wall, start: occurrence.start, length: change.length)
            }
            var activations: [EventActivation] = []
            appendActivations(
                of: occurrence, age: candidate.wall.date.year - firstWall.date.year, source: source,
                floating: floating, isFirst: candidate.start == firstStart, context: context, into: &activations)
            result.append(contentsOf: activations.filter {
                $0.start < window.upperBound && $0.end > window.lowerBound
            })
        }
    }

    /// Feeds `consider` the rule's instances from `from` to `to`, at most the limit per window
    /// of them and `room` (what is left of the file's budget) in `window`.
    private func iterate(
        _ ruleIndex: Int, _ recurrence: RecurrenceRule, from: Int64, to: Int64, window: Range<Int64>, room: Int,
        consider: (CivilDateTime, Int64, Int64?) -> Void
    ) {
        var until = recurrence.until
        if icaltime_is_null_time(until) == 0, icaltime_is_utc(until) != 0 {
            until = icaltimetype(civil: zone.wallClock(at: until.civil.secondsAsUTC), isDate: isDate)
        }
        let fromWall = zone.wallClock(at: from).adding(seconds: -margin)
        var evenInstances: (() -> CivilDateTime?)?
        var count = recurrence.count
        if let even = recurrence.even {
            if count > 0 {
                // Past year 9999 nothing is shown, so there the count ends nothing that is.
                if let last = even.instance(Int64(count) - 1), last.date.year <= 9999 {
                    until = icaltimetype(civil: last, isDate: isDate)
                }
                count = 0
            }
            // Where the rule has no instance, libical is not asked.
            guard let next = even.firstInstance(atOrAfter: fromWall), next.date.year <= 9999 else { return }
            if next > zone.wallClock(at: to).adding(seconds: margin) {
                consider(next, instant(of: next), nil)
                return
            }
            let untilIsNull = icaltime_is_null_time(until) != 0
            if untilIsNull || (until.is_date != 0) == isDate {
                evenInstances = even.instances(atOrAfter: fromWall, through: untilIsNull ? nil : until.civil)
            }
        }
        // Ended before the window (a day later, for an UNTIL that is a date).
        if icaltime_is_null_time(until) == 0, until.civil.adding(seconds: 86_400) < fromWall { return }
        let nextWall: () -> CivilDateTime?
        if let evenInstances {
            nextWall = evenInstances
        } else {
            var rule = icalproperty_get_rrule(recurrence.property)
            rule.until = until
            rule.count = count
            guard let instances = libicalInstances(ruleIndex, rule, from: from, fromWall: fromWall) else { return }
            nextWall = instances
        }
        var steps = 0
        var kept = 0
        var inWindow = 0
        while let wall = nextWall() {
            steps += 1
            if steps > context.limits.maximumStepsPerSeries {
                stepLimitReached()
                break
            }
            let start = instant(of: wall)
            consider(wall, start, nil)
            if start >= to { break }
            if start >= from {
                kept += 1
                if window.contains(start) { inWindow += 1 }
                if inWindow > room {
                    truncated = true
                    spentBudget = true
                    cut = min(cut ?? .max, start)
                    break
                }
                if kept > context.limits.maximumOccurrencesPerWindow {
                    truncated = true
                    cut = min(cut ?? .max, start)
                    warnOnce("its RRULE yields more than \(context.limits.maximumOccurrencesPerWindow) occurrences "
                        + "in \(ScheduleIndex.windowDays) days; later ones are computed when their time comes")
                    break
                }
            }
        }
    }

    /// The rule's instances as libical's iterator gives them, from about `from` on; nil (with
    /// a warning) when libical cannot expand it.
    private func libicalInstances(
        _ ruleIndex: Int, _ rule: icalrecurrencetype, from: Int64, fromWall: CivilDateTime
    ) -> (() -> CivilDateTime?)? {
        if rule.count > 0 {
            // libical cannot skip ahead in a COUNT rule, so it is expanded once and kept.
            let instances = countedInstances[ruleIndex] ?? expandCounted(rule)
            countedInstances[ruleIndex] = instances
            var index = instances.partitionPoint { $0 < fromWall }
            return {
                guard index < instances.count else { return nil }
                defer { index += 1 }
                return instances[index]
            }
        }
        // libical's skip ahead can lose the rest of the day it lands in (FREQ=HOURLY;BYDAY=TH;
        // BYHOUR=18 set to 09:59 on a Thursday goes on a week later), so it lands a day early.
        let skipWall = zone.wallClock(at: from).adding(seconds: -86_400)
        var iterationStart = firstWall
        var skips = skipWall > firstWall
        // For a sub-daily rule it also loses the INTERVAL's phase (every 5 hours from 10:17
        // gave 02:17, not 06:17): such a rule starts instead at the last step of its own grid
        // before `skipWall`, which is before the window, so whether it matches the rule's BY*
        // parts does not matter.
        if skips, let step = RuleCheck.stepSeconds(rule.freq), step < 86_400 {
            let stride = Int64(step) * Int64(max(1, rule.interval))
            iterationStart = firstWall.adding(
                seconds: (skipWall.secondsAsUTC - firstWall.secondsAsUTC) / stride * stride)
            skips = false
        }
        guard let iterator = RecurrenceIterator(rule: rule, start: iterationStart, isDate: isDate) else {
            warnOnce("its RRULE cannot be expanded by libical; only DTSTART is used")
            return nil
        }
        if skips { iterator.skip(to: skipWall) }
        return iterator.next
    }

    /// Every instance of a COUNT rule, up to the step limit.
    private func expandCounted(_ rule: icalrecurrencetype) -> [CivilDateTime] {
        guard let iterator = RecurrenceIterator(rule: rule, start: firstWall, isDate: isDate) else {
            warnOnce("its RRULE cannot be expanded by libical; only DTSTART is used")
            return []
        }
        var instances: [CivilDateTime] = []
        while let wall = iterator.next() {
            if instances.count >= context.limits.maximumStepsPerSeries {
                stepLimitReached()
                break
            }
            instances.append(wall)
        }
        return instances
    }

    private func stepLimitReached() {
        truncated = true
        warnOnce("its RRULE needs more than \(context.limits.maximumStepsPerSeries) steps to reach the displayed "
            + "period; expansion stopped there")
    }

    private func warnOnce(_ message: String) {
        if !warnings.contains(message) { warnings.append(message) }
    }
}

/// libical's RRULE iterator over wall-clock times. DTSTART is always given floating: with a
/// zone, libical's ICU path moves a DST-gap instance and every later one an hour (libical
/// #318), so zones are applied afterwards by the caller.
@ICalActor final class RecurrenceIterator {
    private let iterator: OpaquePointer
    private let isDate: Bool

    init?(rule: icalrecurrencetype, start: CivilDateTime, isDate: Bool) {
        guard let iterator = icalrecur_iterator_new(rule, icaltimetype(civil: start, isDate: isDate)) else {
            icalerror_clear_errno()
            return nil
        }
        self.iterator = iterator
        self.isDate = isDate
    }

    isolated deinit {
        icalrecur_iterator_free(iterator)
    }

    /// Jumps ahead to the first instance at or after `wall`; libical refuses this for COUNT
    /// rules, which are then iterated from DTSTART.
    @discardableResult func skip(to wall: CivilDateTime) -> Bool {
        defer { icalerror_clear_errno() }
        return icalrecur_iterator_set_start(iterator, icaltimetype(civil: wall, isDate: isDate)) != 0
    }

    func next() -> CivilDateTime? {
        let next = icalrecur_iterator_next(iterator)
        guard icaltime_is_null_time(next) == 0 else {
            icalerror_clear_errno()
            return nil
        }
        return next.civil
    }
}

extension RandomAccessCollection {
    /// The index of the first element for which `isBefore` is false, in a collection where all
    /// elements for which it is true come first: the one binary search.
    func partitionPoint(_ isBefore: (Element) -> Bool) -> Index {
        var low = startIndex
        var remaining = count
        while remaining > 0 {
            let half = remaining / 2
            let middle = index(low, offsetBy: half)
            if isBefore(self[middle]) {
                low = index(after: middle)
                remaining -= half + 1
            } else {
                remaining = half
            }
        }
        return low
    }
}
