import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The ledger could not be opened, read or written: what SQLite said, with the file.
package struct LedgerError: Error, CustomStringConvertible, Equatable {
    package var description: String
}

/// The reminder ledger: every reminder's fate, one row per trigger, in an SQLite database in
/// the state folder. Written ahead of what it records (a reminder's fate is kept before it is
/// played), each change one transaction, in WAL mode with `synchronous = FULL`: a `kill -9` or
/// a power cut at any point loses no acknowledgement and leaves no half-written row. Rows are
/// kept `keptSeconds`. One connection per process part (SQLite's connections are not shared
/// between threads here); readers (`marquee reminders`) open their own, read-only.
package final class ReminderLedger {
    /// In the state folder.
    package static let fileName = "reminders.sqlite"

    /// The ledger's file in the state folder `folder`.
    package static func path(inStateFolder folder: String) -> String { folder + "/" + fileName }
    /// How long a reminder is kept after its trigger and its last change: 90 days.
    package static let keptSeconds: Int64 = 90 * 86_400
    /// The layout of the rows (`PRAGMA user_version`).
    static let layout: Int32 = 1

    package var path: String { file.path }
    private let file: SQLiteFile

    /// Opens (and, unless `readOnly`, makes) the ledger at `path`, checking it is whole.
    package init(path: String, readOnly: Bool = false) throws(LedgerError) {
        file = try SQLiteFile(path: path, readOnly: readOnly, layout: Self.layout, schema: """
            CREATE TABLE IF NOT EXISTS reminder (
                event TEXT NOT NULL, trigger INTEGER NOT NULL, origin TEXT NOT NULL, text TEXT NOT NULL,
                trigger_offset INTEGER NOT NULL, fate TEXT NOT NULL, why TEXT, soundings INTEGER NOT NULL,
                total INTEGER NOT NULL, next INTEGER, interval INTEGER NOT NULL, urgent INTEGER NOT NULL,
                decided_at INTEGER NOT NULL, changed_at INTEGER NOT NULL, acknowledged_by TEXT,
                PRIMARY KEY (event, trigger, origin));
            CREATE INDEX IF NOT EXISTS reminder_by_trigger ON reminder (trigger);
            """)
    }

    /// Opens the ledger at `path`; one that is damaged (or not a database) is kept aside as
    /// `PATH.damaged` and a new one made. The problem, said, with the ledger (nil: none could
    /// be opened: reminders are then decided in memory only).
    package static func openOrRebuild(path: String) -> (ledger: ReminderLedger?, problem: String?) {
        do {
            return (try ReminderLedger(path: path), nil)
        } catch {
            let aside = path + ".damaged"
            guard access(path, F_OK) == 0, rename(path, aside) == 0 else {
                return (nil, "the reminder ledger: \(error); what becomes of reminders is kept only until a restart")
            }
            unlink(path + "-wal")
            unlink(path + "-shm")
            do {
                return (try ReminderLedger(path: path),
                        "the reminder ledger: \(error); kept aside as \(aside), a new one was made")
            } catch let again {
                return (nil, "the reminder ledger: \(again); what becomes of reminders is kept only until a restart")
            }
        }
    }

    /// Keeps `entries` (new or changed), all or none: one transaction.
    package func record(_ entries: [LedgerEntry]) throws(LedgerError) {
        guard !entries.isEmpty else { return }
        try file.transaction { () throws(LedgerError) in
            try file.write("""
                INSERT OR REPLACE INTO reminder (event, trigger, origin, text, trigger_offset, fate, why, soundings, total,
                    next, interval, urgent, decided_at, changed_at, acknowledged_by)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                """, entries) { statement, entry in
                SQLiteFile.bind(statement, 1, entry.key.event)
                SQLiteFile.bind(statement, 2, entry.key.trigger)
                SQLiteFile.bind(statement, 3, entry.key.origin)
                SQLiteFile.bind(statement, 4, entry.text)
                SQLiteFile.bind(statement, 5, Int64(entry.triggerOffset))
                SQLiteFile.bind(statement, 6, entry.fate.rawValue)
                SQLiteFile.bind(statement, 7, entry.why)
                SQLiteFile.bind(statement, 8, Int64(entry.soundings))
                SQLiteFile.bind(statement, 9, Int64(entry.total))
                SQLiteFile.bind(statement, 10, entry.next)
                SQLiteFile.bind(statement, 11, entry.interval)
                SQLiteFile.bind(statement, 12, Int64(entry.urgent ? 1 : 0))
                SQLiteFile.bind(statement, 13, entry.decidedAt)
                SQLiteFile.bind(statement, 14, entry.changedAt)
                SQLiteFile.bind(statement, 15, entry.acknowledgedBy)
            }
        }
    }

    /// The reminders whose trigger or last change is at or after `since`, by trigger.
    package func entries(since: Int64) throws(LedgerError) -> [LedgerEntry] {
        let sql = """
            SELECT event, trigger, origin, text, trigger_offset, fate, why, soundings, total, next, interval, urgent,
                decided_at, changed_at, acknowledged_by
            FROM reminder WHERE trigger >= ?1 OR changed_at >= ?1 ORDER BY trigger, event, origin
            """
        // A row of a fate this version does not know is left out.
        let text = SQLiteFile.text
        return try file.rows(sql, binding: { sqlite3_bind_int64($0, 1, since) }) { statement -> LedgerEntry? in
            guard let fate = LedgerEntry.Fate(rawValue: text(statement, 5) ?? "") else { return nil }
            let key = LedgerEntry.Key(event: text(statement, 0) ?? "", trigger: sqlite3_column_int64(statement, 1),
                                      origin: text(statement, 2) ?? "")
            return LedgerEntry(
                key: key, text: text(statement, 3) ?? "", triggerOffset: Int(sqlite3_column_int64(statement, 4)), fate: fate,
                why: text(statement, 6), soundings: Int(sqlite3_column_int64(statement, 7)),
                total: Int(sqlite3_column_int64(statement, 8)),
                next: SQLiteFile.number(statement, 9),
                interval: sqlite3_column_int64(statement, 10), urgent: sqlite3_column_int64(statement, 11) != 0,
                decidedAt: sqlite3_column_int64(statement, 12), changedAt: sqlite3_column_int64(statement, 13),
                acknowledgedBy: text(statement, 14))
        }.compactMap { $0 }
    }

    /// Forgets the reminders settled and older than `keptSeconds` before `now`.
    package func forget(before now: Int64) throws(LedgerError) {
        let limit = now - Self.keptSeconds
        try file.execute("DELETE FROM reminder WHERE trigger < \(limit) AND changed_at < \(limit)")
    }

    /// SQLite's full check of the file: "ok" when whole.
    package func integrityCheck() throws(LedgerError) -> String { try file.integrityCheck() }
}
