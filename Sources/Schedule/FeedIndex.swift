/// A parsed feed file turned into what queries need: the activations of its one-off events,
/// computed once, and its recurring series, expanded window by window. Groups the VEVENTs of
/// each calendar by UID: the master with the highest SEQUENCE, and per RECURRENCE-ID the
/// override with the highest SEQUENCE.
@ICalActor final class FeedIndex {
    let file: CalendarFile
    private(set) var statics: [Activation] = []
    private(set) var series: [Series] = []
    private let context: ExpansionContext

    init(file: CalendarFile, context: ExpansionContext) {
        self.file = file
        self.context = context
        for calendar in file.calendars {
            index(calendar.records, floating: calendar.floatingZone)
        }
    }

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
        var masterByUID: [String: Int] = [:]
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

/// Activations of all feeds in effect, grouped in fixed windows of the time line that are
/// built on first use, so a query scans one window instead of expanding every series.
@ICalActor final class ScheduleIndex {
    static let windowDays = 28
    static let windowSeconds = Int64(windowDays) * 86_400
    /// `nextChange` looks this many windows ahead (a yearly event recurs within it).
    static let horizonWindows = 15
    private static let cachedWindows = 64

    /// The activations overlapping one window: short ones sorted by start, so a query
    /// looks only at those that started within `shortLimit` before it; long ones scanned.
    private struct Window {
        var short: [Activation]
        var long: [Activation]
        var boundaries: [Int64]
    }

    private static let shortLimit: Int64 = 2 * 86_400

    private let feeds: [FeedIndex]
    private var windows: [Int64: Window] = [:]

    init(feeds: [FeedIndex]) {
        self.feeds = feeds
    }

    func activations(at instant: Int64) -> [Activation] {
        let window = window(containing: instant)
        var result = window.long.filter { $0.isActive(at: instant) }
        var index = firstIndex(in: window.short, startingAfter: instant - Self.shortLimit - 1)
        while index < window.short.count, window.short[index].start <= instant {
            if window.short[index].isActive(at: instant) { result.append(window.short[index]) }
            index += 1
        }
        return result
    }

    private func firstIndex(in activations: [Activation], startingAfter instant: Int64) -> Int {
        var low = 0
        var high = activations.count
        while low < high {
            let middle = (low + high) / 2
            if activations[middle].start <= instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first instant after `instant` at which an activation starts or ends.
    func nextBoundary(after instant: Int64) -> Int64? {
        for step in 0...Self.horizonWindows {
            let probe = instant + Int64(step) * Self.windowSeconds
            let boundaries = window(containing: probe).boundaries
            var low = 0
            var high = boundaries.count
            while low < high {
                let middle = (low + high) / 2
                if boundaries[middle] <= instant { low = middle + 1 } else { high = middle }
            }
            if low < boundaries.count { return boundaries[low] }
        }
        return nil
    }

    private func window(containing instant: Int64) -> Window {
        let number = floorDivide(instant, Self.windowSeconds)
        if let cached = windows[number] { return cached }
        let range = number * Self.windowSeconds..<(number + 1) * Self.windowSeconds
        var activations: [Activation] = []
        for feed in feeds {
            for activation in feed.statics
            where activation.start < range.upperBound
                && (activation.end > range.lowerBound || activation.start >= range.lowerBound)
            {
                activations.append(activation)
            }
            for series in feed.series {
                series.expand(range, into: &activations)
            }
        }
        var boundaries: [Int64] = []
        boundaries.reserveCapacity(activations.count * 2)
        for activation in activations {
            if range.contains(activation.start) { boundaries.append(activation.start) }
            if range.contains(activation.end) { boundaries.append(activation.end) }
        }
        boundaries.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(boundaries.count)
        for boundary in boundaries where boundary != unique.last { unique.append(boundary) }
        var short: [Activation] = []
        var long: [Activation] = []
        for activation in activations {
            if activation.end - activation.start <= Self.shortLimit {
                short.append(activation)
            } else {
                long.append(activation)
            }
        }
        short.sort { $0.start < $1.start }
        let window = Window(short: short, long: long, boundaries: unique)
        if windows.count >= Self.cachedWindows { windows.removeAll(keepingCapacity: true) }
        windows[number] = window
        return window
    }
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}
