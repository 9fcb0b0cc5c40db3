import Support

#if canImport(Glibc)
    import Glibc
#endif

/// A parsed feed file turned into what queries need: the activations of its one-off events,
/// computed once, and its recurring series, expanded window by window. Groups the VEVENTs of
/// each calendar by UID: the master with the highest SEQUENCE, and per RECURRENCE-ID the
/// override with the highest SEQUENCE.
@ICalActor final class FeedIndex {
    let file: CalendarFile
    private(set) var statics: [EventActivation] = []
    private(set) var series: [Series] = []
    private let context: ExpansionContext

    init(file: CalendarFile, context: ExpansionContext) {
        self.file = file
        self.context = context
        for calendar in file.calendars {
            index(calendar.records, floating: calendar.floatingZone)
        }
    }

    /// The shortest window a spent budget shrinks the expansion to: within it the budget's
    /// activations are taken in order of their start.
    static let shortestWindow: Int64 = 60

    /// The file's activations from `focus` on, over `span` seconds (in windows of at most
    /// `ScheduleIndex.windowSeconds`) or until `budget` activations are reached or the context's
    /// deadline passes (checked between windows), whichever comes first.
    func expansion(from focus: Int64, span: Int64, budget: Int) -> FeedExpansion {
        var result = FeedExpansion(problems: file.problems + repairs, eventCount: file.eventCount, refreshSeconds: file.refreshSeconds)
        guard span > 0 else { return result }
        var until = focus + span
        var found = statics.filter { $0.start < until && $0.end > focus }
        var windowStart = focus
        var outOfTime = false
        while windowStart < until, found.count < budget {
            if windowStart > focus, readClock(CLOCK_MONOTONIC) >= context.deadline {
                outOfTime = true
                until = windowStart
                break
            }
            var window = windowStart..<min(until, windowStart + ScheduleIndex.windowSeconds)
            let foundBefore = found.count
            let untilBefore = until
            var shortened = false
            // A window whose series spend the budget is tried again shorter, so what is kept is
            // everything up to a time rather than the series that happen to come first in the file.
            while true {
                until = shortened ? min(untilBefore, window.upperBound) : untilBefore
                var spentAt: Int?
                for (position, series) in series.enumerated() {
                    series.expand(window, into: &found, budget: budget)
                    if let cut = series.cut { until = min(until, cut) }
                    if series.spentBudget {
                        spentAt = position
                        break
                    }
                }
                guard let spentAt else { break }
                let length = window.upperBound - window.lowerBound
                guard length > Self.shortestWindow, readClock(CLOCK_MONOTONIC) < context.deadline else {
                    // The series after the one that spent it are not known from the window's start.
                    if spentAt < series.count - 1 { until = min(until, window.lowerBound) }
                    break
                }
                let perSecond = Double(found.count - foundBefore) * Double(series.count) / Double(spentAt + 1)
                    / Double(length)
                let fitting = min(Double(length / 2), Double(budget - foundBefore) / max(perSecond, 1e-9) * 0.9)
                found.removeSubrange(foundBefore...)
                window = window.lowerBound..<window.lowerBound + max(Self.shortestWindow, Int64(fitting))
                shortened = true
            }
            windowStart = window.upperBound
        }
        if found.count > budget { found.sort { $0.start < $1.start } }
        // The budget ran out on what is active at the focus already: those that started first
        // are kept and the others left out for an hour (and said so), never claimed to come later.
        let crowded = until <= focus || (found.count > budget && found[budget].start <= focus)
        if crowded {
            let leftOut: ArraySlice<EventActivation> = found.count > budget ? found[budget...] : []
            until = min(focus + 3_600, leftOut.first { $0.start > focus }?.start ?? .max)
            found.removeSubrange(min(budget, found.count)...)
            result.problems.append(FeedProblem(
                severity: .warning, path: file.path, line: nil,
                message: "more than \(budget) messages are active at once at \(Instant(secondsSinceEpoch: focus)); "
                    + "only the \(budget) that started first are shown until \(Instant(secondsSinceEpoch: until))"))
        } else if found.count > budget {
            until = min(until, found[budget].start)
        }
        result.isCut = until < focus + span
        if result.isCut, !crowded {
            let reason = outOfTime ? "computing its repeats takes too long here" : "more than \(budget) messages from here on"
            result.problems.append(FeedProblem(
                severity: .warning, path: file.path, line: nil,
                message: "\(reason); those after \(Instant(secondsSinceEpoch: until)) are computed when their "
                    + "time comes"))
        }
        result.coverage = focus..<until
        var templateIndex: [TemplateKey: Int] = [:]
        var seen: Set<ActivationKey> = []
        for activation in found where activation.start < until {
            let key = TemplateKey(record: ObjectIdentifier(activation.record), alarm: activation.alarm)
            let template = templateIndex[key] ?? {
                let record = activation.record
                result.templates.append(MessageTemplate(
                    text: activation.alarmText ?? record.text, uid: record.uid, priority: record.priority,
                    color: record.color, effect: record.effect, sound: SoundTemplate(record, alarm: activation.alarm)))
                templateIndex[key] = result.templates.count - 1
                return result.templates.count - 1
            }()
            let plain = Activation(
                start: activation.start, end: activation.end, kind: activation.kind, template: template,
                occurrenceStart: activation.occurrenceStart, occurrenceEnd: activation.occurrenceEnd,
                age: activation.age)
            if seen.insert(ActivationKey(plain)).inserted { result.activations.append(plain) }
        }
        result.activations.sort { $0.start < $1.start }
        result.problems += warnings
        return result
    }

    private struct TemplateKey: Hashable {
        var record: ObjectIdentifier
        var alarm: Int?
    }

    /// An activation met in two windows is kept once.
    private struct ActivationKey: Hashable {
        var start, end, occurrenceStart: Int64
        var template: Int
        var kind: Message.Kind

        init(_ activation: Activation) {
            start = activation.start
            end = activation.end
            occurrenceStart = activation.occurrenceStart
            template = activation.template
            kind = activation.kind
        }
    }

    /// What was read differently from how it was written, and why.
    private var repairs: [FeedProblem] = []

    /// Expansion problems of the series, as problems of this file.
    var warnings: [FeedProblem] {
        series.flatMap { series in
            series.warnings.map {
                FeedProblem(severity: .warning, path: file.path, line: series.master.line,
                            message: "VEVENT \"\(series.master.uid)\": \($0)")
            }
        }
    }

    private func index(_ records: [EventRecord], floating: Zone) {
        var masters: [EventRecord] = []
        var masterByUID: [String: Int] = Dictionary(minimumCapacity: records.count)
        var overridesByUID: [String: [Int64: EventRecord]] = [:]
        for record in records where record.start != nil {
            if let recurrenceID = record.recurrenceID {
                let key = context.instant(of: recurrenceID, floating: floating)
                if let existing = overridesByUID[record.uid]?[key], existing.sequence > record.sequence { continue }
                overridesByUID[record.uid, default: [:]][key] = record
            } else if !record.uid.isEmpty, let existing = masterByUID[record.uid] {
                if masters[existing].sequence <= record.sequence { masters[existing] = record }
            } else {
                if !record.uid.isEmpty { masterByUID[record.uid] = masters.count }
                masters.append(record)
            }
        }
        // Google exports a series whose master is missing as one VEVENT with both RRULE and
        // RECURRENCE-ID: that VEVENT is the series.
        for uid in Array(overridesByUID.keys) where masterByUID[uid] == nil {
            guard let (key, lone) = overridesByUID[uid]?.first(where: { $0.value.isRecurring }) else { continue }
            overridesByUID[uid]?[key] = nil
            masters.append(lone)
            repairs.append(FeedProblem(
                severity: .warning, path: file.path, line: lone.line,
                message: "VEVENT \"\(uid)\" has both RRULE and RECURRENCE-ID and no series of its own; read as the series"))
        }
        for master in masters {
            guard let start = master.start else { continue }
            let overrides = overridesByUID.removeValue(forKey: master.uid).map { Array($0.values) } ?? []
            if master.cancelled { continue }
            let length = Series.length(of: master, start: start, floating: floating, context: context)
            guard master.isRecurring || !overrides.isEmpty else {
                addSingle(master, start: start, length: length, firstYear: start.wall.date.year, floating: floating)
                continue
            }
            let series = Series(master: master, start: start, source: file.path, floating: floating, context: context)
            for override in overrides.sorted(by: { ($0.line ?? 0) < ($1.line ?? 0) }) {
                guard let recurrenceID = override.recurrenceID else { continue }
                series.applyOverride(override, recurrenceID: recurrenceID)
                inherit(override, from: master)
                addOverride(override, masterLength: length, firstYear: start.wall.date.year, floating: floating)
            }
            self.series.append(series)
        }
        for orphans in overridesByUID.values {
            for override in orphans.values {
                guard let start = override.start else { continue }
                addOverride(override, masterLength: nil, firstYear: start.wall.date.year, floating: floating)
            }
        }
    }

    /// An override that leaves out SUMMARY, COLOR or the effect keeps the master's.
    private func inherit(_ override: EventRecord, from master: EventRecord) {
        if override.text.isEmpty { override.text = master.text }
        if override.color == nil { override.color = master.color }
        if override.effect == nil { override.effect = master.effect }
    }

    private func addOverride(
        _ override: EventRecord, masterLength: OccurrenceLength?, firstYear: Int, floating: Zone
    ) {
        guard !override.cancelled, let start = override.start else { return }
        let ownLength = Series.length(of: override, start: start, floating: floating, context: context)
        let hasOwnLength = override.end != nil || override.duration != nil
        addSingle(override, start: start, length: hasOwnLength ? ownLength : (masterLength ?? ownLength),
                  firstYear: firstYear, floating: floating)
    }

    private func addSingle(
        _ record: EventRecord, start: TimeValue, length: OccurrenceLength, firstYear: Int, floating: Zone
    ) {
        let instant = context.instant(of: start, floating: floating)
        let zone = context.zone(of: start, floating: floating)
        let end = context.end(of: start.wall, start: instant, length: length, isDate: start.isDate, zone: zone)
        appendActivations(
            of: Occurrence(record: record, wall: start.wall, start: instant, end: end),
            age: start.wall.date.year - firstYear, source: file.path, floating: floating, isFirst: true,
            context: context, into: &statics)
    }
}
