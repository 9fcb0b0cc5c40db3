import Ledger
import Schedule
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// What marquee kept before the reminder ledger (`reminders-heard.json` in the state folder:
/// every trigger decided, what waited for a repeat or for the morning, the last reminders'
/// stories), taken into the ledger at the first start with it and then removed: an upgrade
/// never sounds again, or calls missed, a reminder decided before it.
enum HeardFileImport {
    static let fileName = "reminders-heard.json"

    /// The file as the earlier versions wrote it (the first of them: only the list of decided
    /// triggers).
    private struct Kept: Decodable {
        /// The ledger's key is what these versions kept, field for field.
        typealias Key = LedgerEntry.Key

        struct Heard: Decodable {
            var key: Key
            var decidedAt: Int64
        }

        struct Waiting: Decodable {
            var key: Key
            var text: String
            var urgent: Bool
            var next: Int64
            var interval: Int64
            var soundings: Int
            var total: Int
        }

        struct Record: Decodable {
            var key: Key
            var text: String
            var trigger: ZonedTime
            var outcome: String
            var at: Instant
            var soundings: Int
        }

        var heard: [Heard]
        var waiting: [Waiting] = []
        var quietAtNight: [Key] = []
        var recent: [Record] = []

        private enum CodingKeys: String, CodingKey { case heard, waiting, quietAtNight, recent }

        init(from decoder: any Decoder) throws {
            if let heard = try? [Heard](from: decoder) {
                self.heard = heard
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            heard = try container.decode([Heard].self, forKey: .heard)
            waiting = try container.decodeIfPresent([Waiting].self, forKey: .waiting) ?? []
            quietAtNight = try container.decodeIfPresent([Key].self, forKey: .quietAtNight) ?? []
            recent = try container.decodeIfPresent([Record].self, forKey: .recent) ?? []
        }
    }

    /// Takes the file in `folder` into `ledger` and removes it. Nil when there was none or it
    /// was taken in; else what went wrong (the file is then left as it is, to be tried again).
    static func take(from folder: String, into ledger: ReminderLedger) -> String? {
        let path = folder + "/" + fileName
        guard access(path, F_OK) == 0 else { return nil }
        let kept: Kept
        switch readFile(path, limit: 64 << 20) {
        case .success(let bytes):
            guard let decoded = try? JSONDecoder().decode(Kept.self, from: Data(bytes)) else {
                return "\(path) (kept by an earlier version) cannot be read as what it kept; left as it is"
            }
            kept = decoded
        case .failure(let error):
            return "\(path) (kept by an earlier version) cannot be read: \(error); left as it is"
        }
        do {
            try ledger.record(entries(kept))
        } catch {
            return "\(path) (kept by an earlier version) cannot be taken into the reminder ledger: \(error)"
        }
        unlink(path)
        return nil
    }

    /// A row for every trigger decided: waiting for a repeat, kept for the morning, or what its
    /// story said; one without a story is not known to have been acknowledged.
    private static func entries(_ kept: Kept) -> [LedgerEntry] {
        let waiting = Dictionary(kept.waiting.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        let quiet = Set(kept.quietAtNight)
        let stories = Dictionary(kept.recent.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        return kept.heard.map { heard in
            let key = heard.key
            let story = stories[key]
            var entry = LedgerEntry(
                key: key, text: story?.text ?? key.event, triggerOffset: story?.trigger.utcOffset ?? 0,
                fate: .notAcknowledged, why: "decided by an earlier version of marquee, which did not keep what became of it",
                decidedAt: heard.decidedAt, changedAt: story?.at.secondsSinceEpoch ?? heard.decidedAt)
            if let waits = waiting[key] {
                (entry.fate, entry.why, entry.text, entry.next) = (.sounding, nil, waits.text, waits.next)
                (entry.soundings, entry.total, entry.interval, entry.urgent) = (waits.soundings, waits.total, waits.interval, waits.urgent)
            } else if quiet.contains(key) {
                (entry.fate, entry.why) = (.quietAtNight, nil)
            } else if let story, let fate = LedgerEntry.Fate(rawValue: story.outcome) {
                (entry.fate, entry.why, entry.soundings) = (fate, nil, story.soundings)
            }
            return entry
        }
    }
}
