/// The activations of all feeds in effect, grouped in fixed windows of the time line that are
/// built on first use, so a query scans one window instead of every activation.
struct ScheduleIndex {
    static let windowDays = 28
    static let windowSeconds = Int64(windowDays) * 86_400
    /// `nextChange` looks this many windows ahead (a yearly event recurs within it).
    static let horizonWindows = 15
    private static let cachedWindows = 64

    /// An activation and the feed (by index) whose templates it uses.
    struct Entry {
        var feed: Int
        var activation: Activation
    }

    /// The activations overlapping one window: short ones sorted by start, so a query
    /// looks only at those that started within the longest of them before it; long ones scanned.
    private struct Window {
        var short: [Entry]
        /// The longest duration among `short` (at most `shortLimit`).
        var longestShort: Int64
        var long: [Entry]
        var boundaries: [Int64]
    }

    private static let shortLimit: Int64 = 2 * 86_400

    /// The expansions, in the order `Entry.feed` counts.
    let feeds: [FeedExpansion]
    private var windows: [Int64: Window] = [:]

    init(feeds: [FeedExpansion]) {
        self.feeds = feeds
    }

    mutating func activations(at instant: Int64) -> [Entry] {
        let window = window(containing: instant)
        var result = window.long.filter { $0.activation.isActive(at: instant) }
        var index = window.short.partitionPoint { $0.activation.start <= instant - window.longestShort - 1 }
        while index < window.short.count, window.short[index].activation.start <= instant {
            if window.short[index].activation.isActive(at: instant) { result.append(window.short[index]) }
            index += 1
        }
        return result
    }

    /// The first instant after `instant` at which an activation starts or ends, within the horizon.
    mutating func nextBoundary(after instant: Int64) -> Int64? {
        for step in 0...Self.horizonWindows {
            let boundaries = window(containing: instant + Int64(step) * Self.windowSeconds).boundaries
            let index = boundaries.partitionPoint { $0 <= instant }
            if index < boundaries.count { return boundaries[index] }
        }
        return nil
    }

    private mutating func window(containing instant: Int64) -> Window {
        let number = floorDivide(instant, Self.windowSeconds)
        if let cached = windows[number] { return cached }
        let range = number * Self.windowSeconds..<(number + 1) * Self.windowSeconds
        var entries: [Entry] = []
        for (feed, expansion) in feeds.enumerated() {
            let startingLater = expansion.activations.partitionPoint { $0.start < range.upperBound }
            for activation in expansion.activations[..<startingLater]
            where activation.end > range.lowerBound || activation.start >= range.lowerBound {
                entries.append(Entry(feed: feed, activation: activation))
            }
        }
        var boundaries: [Int64] = []
        boundaries.reserveCapacity(entries.count * 2)
        for entry in entries {
            if range.contains(entry.activation.start) { boundaries.append(entry.activation.start) }
            if range.contains(entry.activation.end) { boundaries.append(entry.activation.end) }
        }
        boundaries.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(boundaries.count)
        for boundary in boundaries where boundary != unique.last { unique.append(boundary) }
        var short: [Entry] = []
        var longestShort: Int64 = 0
        var long: [Entry] = []
        for entry in entries {
            let duration = entry.activation.end - entry.activation.start
            if duration <= Self.shortLimit {
                short.append(entry)
                longestShort = max(longestShort, duration)
            } else {
                long.append(entry)
            }
        }
        short.sort { $0.activation.start < $1.activation.start }
        let window = Window(short: short, longestShort: longestShort, long: long, boundaries: unique)
        if windows.count >= Self.cachedWindows { windows.removeAll(keepingCapacity: true) }
        windows[number] = window
        return window
    }
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}
