import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a database file of the state folder, as everything marquee keeps is kept:
/// WAL with `synchronous = FULL` (a power cut loses no finished transaction), checked whole when
/// opened, its rows laid out by `PRAGMA user_version`. Not shared between threads.
package final class SQLiteFile {
    package let path: String
    private let database: OpaquePointer

    /// Opens (and, unless `readOnly`, makes) the database at `path`, checks it is whole, and
    /// lays out a new one with `schema` as layout `layout`; one of another layout is refused.
    package init(path: String, readOnly: Bool, layout: Int32, schema: String) throws(LedgerError) {
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
                try execute(schema + "\nPRAGMA user_version = \(layout);")
            } else if version != layout {
                throw LedgerError(description: "\(path) is a database of layout \(version), not \(layout)")
            }
        } catch {
            sqlite3_close(database)
            throw error
        }
    }

    deinit {
        sqlite3_close(database)
    }

    package func execute(_ sql: String) throws(LedgerError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
            let said = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(database))
            sqlite3_free(message)
            throw LedgerError(description: "\(path): \(said)")
        }
    }

    /// Runs `work` in one transaction: all of it is kept, or none.
    package func transaction(_ work: () throws(LedgerError) -> Void) throws(LedgerError) {
        try execute("BEGIN IMMEDIATE")
        do throws(LedgerError) {
            try work()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `sql` once for each of `items`, its parameters bound by `binding`.
    package func write<Item>(_ sql: String, _ items: [Item], binding: (OpaquePointer, Item) -> Void) throws(LedgerError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        for item in items {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            binding(statement, item)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("cannot write to") }
        }
    }

    /// The values of `sql`'s rows, its parameters bound by `binding`.
    package func rows<Value>(
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

    /// SQLite's full check of the file: "ok" when whole.
    package func integrityCheck() throws(LedgerError) -> String {
        try rows("PRAGMA integrity_check") { String(cString: sqlite3_column_text($0, 0)) }.joined(separator: "; ")
    }

    /// Binds `text` (or NULL) to parameter `index`.
    package static func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String?) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the text before this returns.
        sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// Binds `number` (or NULL) to parameter `index`.
    package static func bind(_ statement: OpaquePointer, _ index: Int32, _ number: Int64?) {
        if let number { sqlite3_bind_int64(statement, index, number) } else { sqlite3_bind_null(statement, index) }
    }

    /// Column `column`'s text (nil: NULL).
    package static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: text)
    }

    /// Column `column`'s number (nil: NULL).
    package static func number(_ statement: OpaquePointer, _ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    private func prepare(_ sql: String) throws(LedgerError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("cannot read")
        }
        return statement
    }

    private func failure(_ what: String) -> LedgerError {
        LedgerError(description: "\(what) \(path): \(String(cString: sqlite3_errmsg(database)))")
    }
}
