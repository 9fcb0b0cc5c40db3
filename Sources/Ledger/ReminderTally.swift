/// How the reminders due on one local day fared: the carer's daily summary ("4 due: 3
/// acknowledged, 1 missed"), the same in the status, on MQTT and from `marquee reminders`.
package struct ReminderTally: Sendable, Hashable, Codable {
    /// The local day, days since 1970-01-01.
    package var day: Int64
    package var due: Int
    /// How many ended in each fate, by `LedgerEntry.Fate`'s raw value; fates none had are left out.
    package var fates: [String: Int]

    /// The tally of those of `entries` whose trigger falls on local `day` (each at its own UTC offset).
    package init(_ entries: some Sequence<LedgerEntry>, day: Int64) {
        self.day = day
        let onTheDay = entries.filter { Self.localDay(of: $0.key.trigger, utcOffset: $0.triggerOffset) == day }
        due = onTheDay.count
        fates = Dictionary(grouping: onTheDay, by: \.fate.rawValue).mapValues(\.count)
    }

    /// The local day (days since 1970-01-01) of `seconds` since 1970 at `utcOffset`.
    package static func localDay(of seconds: Int64, utcOffset: Int) -> Int64 {
        let local = seconds + Int64(utcOffset)
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// "4 due: 3 acknowledged, 1 missed", the fates in the order a carer reads them; "none due".
    package var summary: String {
        guard due > 0 else { return "none due" }
        let counted = LedgerEntry.Fate.allCases.compactMap { fate in fates[fate.rawValue].map { "\($0) \(fate.rawValue)" } }
        return "\(due) due: " + counted.joined(separator: ", ")
    }
}
