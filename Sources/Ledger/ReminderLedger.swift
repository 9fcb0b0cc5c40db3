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

    package let path: String
    private let database: OpaquePointer

    /// Opens (and, unless `readOnly`, makes) the ledger at `path`, checking it is whole.
    package init(path: String, readOnly: Bool = false) throws(LedgerError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let code = sqlite3_open_v2(path, &opened, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close(opened)
            throw LedgerError(description: "cannot open \(path): \(message)")
        }
        database = opened
        sqlite3_busy_timeout(database, 2_000)
        do throws(LedgerError) {
            if !readOnly {
                try execute("PRAGMA journal_mode = WAL")
                try execute("PRAGMA synchronous = FULL")
            }
            let check = try rows("PRAGMA quick_check") { String(cString: sqlite3_column_text($0, 0)) }
            guard check == ["ok"] else {
                throw LedgerError(description: "\(path) is damaged: \(check.prefix(3).joined(separator: "; "))")
            }
            let version = try rows("PRAGMA user_version") { sqlite3_column_int($0, 0) }.first ?? 0
            if version == 0, !readOnly {
                try execute("""
                    CREATE TABLE IF NOT EXISTS reminder (
                        event TEXT NOT NULL, trigger INTEGER NOT NULL, origin TEXT NOT NULL, text TEXT NOT NULL,
                        trigger_offset INTEGER NOT NULL, fate TEXT NOT NULL, why TEXT, soundings INTEGER NOT NULL,
                        total INTEGER NOT NULL, next INTEGER, interval INTEGER NOT NULL, urgent INTEGER NOT NULL,
                        decided_at INTEGER NOT NULL, changed_at INTEGER NOT NULL, acknowledged_by TEXT,
                        PRIMARY KEY (event, trigger, origin));
                    CREATE INDEX IF NOT EXISTS reminder_by_trigger ON reminder (trigger);
                    PRAGMA user_version = \(Self.layout);
                    """)
            } else if version != Self.layout {
                throw LedgerError(description: "\(path) is a ledger of layout \(version), not \(Self.layout)")
            }
        } catch {
            sqlite3_close(database)
            throw error
        }
    }

    deinit {
        sqlite3_close(database)
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
        try execute("BEGIN IMMEDIATE")
        do throws(LedgerError) {
            let statement = try prepare("""
                INSERT OR REPLACE INTO reminder (event, trigger, origin, text, trigger_offset, fate, why, soundings, total,
                    next, interval, urgent, decided_at, changed_at, acknowledged_by)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                """)
            defer { sqlite3_finalize(statement) }
            for entry in entries {
                sqlite3_reset(statement)
                bind(statement, 1, entry.key.event)
                sqlite3_bind_int64(statement, 2, entry.key.trigger)
                bind(statement, 3, entry.key.origin)
                bind(statement, 4, entry.text)
                sqlite3_bind_int64(statement, 5, Int64(entry.triggerOffset))
                bind(statement, 6, entry.fate.rawValue)
                bind(statement, 7, entry.why)
                sqlite3_bind_int64(statement, 8, Int64(entry.soundings))
                sqlite3_bind_int64(statement, 9, Int64(entry.total))
                if let next = entry.next { sqlite3_bind_int64(statement, 10, next) } else { sqlite3_bind_null(statement, 10) }
                sqlite3_bind_int64(statement, 11, entry.interval)
                sqlite3_bind_int64(statement, 12, entry.urgent ? 1 : 0)
                sqlite3_bind_int64(statement, 13, entry.decidedAt)
                sqlite3_bind_int64(statement, 14, entry.changedAt)
                bind(statement, 15, entry.acknowledgedBy)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("cannot write to") }
            }
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
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
        return try rows(sql, binding: { sqlite3_bind_int64($0, 1, since) }) { statement -> LedgerEntry? in
            guard let fate = LedgerEntry.Fate(rawValue: text(statement, 5) ?? "") else { return nil }
            let key = LedgerEntry.Key(event: text(statement, 0) ?? "", trigger: sqlite3_column_int64(statement, 1),
                                      origin: text(statement, 2) ?? "")
            return LedgerEntry(
                key: key, text: text(statement, 3) ?? "", triggerOffset: Int(sqlite3_column_int64(statement, 4)), fate: fate,
                why: text(statement, 6), soundings: Int(sqlite3_column_int64(statement, 7)),
                total: Int(sqlite3_column_int64(statement, 8)),
                next: sqlite3_column_type(statement, 9) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 9),
                interval: sqlite3_column_int64(statement, 10), urgent: sqlite3_column_int64(statement, 11) != 0,
                decidedAt: sqlite3_column_int64(statement, 12), changedAt: sqlite3_column_int64(statement, 13),
                acknowledgedBy: text(statement, 14))
        }.compactMap { $0 }
    }

    /// Forgets the reminders settled and older than `keptSeconds` before `now`.
    package func forget(before now: Int64) throws(LedgerError) {
        let limit = now - Self.keptSeconds
        try execute("DELETE FROM reminder WHERE trigger < \(limit) AND changed_at < \(limit)")
    }

    /// SQLite's full check of the file: "ok" when whole.
    package func integrityCheck() throws(LedgerError) -> String {
        try rows("PRAGMA integrity_check") { String(cString: sqlite3_column_text($0, 0)) }.joined(separator: "; ")
    }

    // MARK: - SQLite

    private func execute(_ sql: String) throws(LedgerError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
            let said = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(database))
            sqlite3_free(message)
            throw LedgerError(description: "\(path): \(said)")
        }
    }

    private func prepare(_ sql: String) throws(LedgerError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("cannot read")
        }
        return statement
    }

    /// The values of `sql`'s rows, its parameters bound by `binding`.
    private func rows<Value>(
        _ sql: String, binding: (OpaquePointer) -> Void = { _ in }, _ value: (OpaquePointer) -> Value
    ) throws(LedgerError) -> [Value] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        binding(statement)
        var values: [Value] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return values }
            guard step == SQLITE_ROW else { throw failure("cannot read") }
            values.append(value(statement))
        }
    }

    private func failure(_ what: String) -> LedgerError {
        LedgerError(description: "\(what) \(path): \(String(cString: sqlite3_errmsg(database)))")
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String?) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the text before this returns.
        sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: text)
    }
}
