/// A reminder a carer wrote on the page, as the carer wrote it: kept in the state folder's
/// `written.sqlite` (what the page lists and edits), and from it the box's own calendar file,
/// which the display reads through libical as any feed.
package struct WrittenReminder: Sendable, Equatable {
    /// How it comes back.
    package enum Repetition: String, Sendable, CaseIterable {
        case once, daily, weekdays, weekly, yearly
    }

    /// Unique in the box (the calendar's `UID` is made of it).
    package var id: String
    package var text: String
    /// The first day, `YYYY-MM-DD` (a birthday: the day of birth, so `{age}` counts from it).
    package var day: String
    /// `HH:MM` on the display's clock; nil: the whole day.
    package var time: String?
    package var repetition: Repetition
    /// For `weekly`: the days, as RFC 5545 writes them (`MO`…`SU`).
    package var weekdays: [String]
    /// How long it shows (a whole-day one shows all day).
    package var minutes: Int
    /// Heard when it starts (the chime and the words, or the recording).
    package var heard: Bool
    /// Heard at night too (`PRIORITY:1`).
    package var urgent: Bool
    /// The carer's recorded voice: a file beside the calendar, played instead of the words.
    package var recording: String?
    /// When it was written or last changed (seconds since the epoch).
    package var changedAt: Int64

    package init(id: String, text: String, day: String, time: String?, repetition: Repetition, weekdays: [String],
                 minutes: Int, heard: Bool, urgent: Bool, recording: String?, changedAt: Int64) {
        (self.id, self.text, self.day, self.time, self.repetition, self.weekdays) = (id, text, day, time, repetition, weekdays)
        (self.minutes, self.heard, self.urgent, self.recording, self.changedAt) = (minutes, heard, urgent, recording, changedAt)
    }
}

/// The carer's written reminders, in an SQLite database of their own (WAL, `synchronous =
/// FULL`): a change is whole or not made at all.
package final class WrittenReminders {
    /// In the state folder.
    package static let fileName = "written.sqlite"
    static let layout: Int32 = 1

    private let file: SQLiteFile

    package init(path: String) throws(LedgerError) {
        file = try SQLiteFile(path: path, readOnly: false, layout: Self.layout, schema: """
            CREATE TABLE IF NOT EXISTS written (
                id TEXT PRIMARY KEY, text TEXT NOT NULL, day TEXT NOT NULL, time TEXT, repetition TEXT NOT NULL,
                weekdays TEXT NOT NULL, minutes INTEGER NOT NULL, heard INTEGER NOT NULL, urgent INTEGER NOT NULL,
                recording TEXT, changed_at INTEGER NOT NULL);
            """)
    }

    /// Every written reminder, in the order of their first day and time.
    package func all() throws(LedgerError) -> [WrittenReminder] {
        let text = SQLiteFile.text, number = SQLiteFile.number
        return try file.rows("""
            SELECT id, text, day, time, repetition, weekdays, minutes, heard, urgent, recording, changed_at
            FROM written ORDER BY day, time, id
            """) { row -> WrittenReminder? in
            guard let repetition = WrittenReminder.Repetition(rawValue: text(row, 4) ?? "") else { return nil }
            return WrittenReminder(
                id: text(row, 0) ?? "", text: text(row, 1) ?? "", day: text(row, 2) ?? "", time: text(row, 3),
                repetition: repetition, weekdays: (text(row, 5) ?? "").split(separator: ",").map(String.init),
                minutes: Int(number(row, 6) ?? 0), heard: number(row, 7) == 1, urgent: number(row, 8) == 1,
                recording: text(row, 9), changedAt: number(row, 10) ?? 0)
        }.compactMap { $0 }
    }

    /// Keeps `reminder`, new or changed.
    package func keep(_ reminder: WrittenReminder) throws(LedgerError) {
        try file.write("""
            INSERT OR REPLACE INTO written (id, text, day, time, repetition, weekdays, minutes, heard, urgent, recording,
                changed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """, [reminder]) { statement, reminder in
            SQLiteFile.bind(statement, 1, reminder.id)
            SQLiteFile.bind(statement, 2, reminder.text)
            SQLiteFile.bind(statement, 3, reminder.day)
            SQLiteFile.bind(statement, 4, reminder.time)
            SQLiteFile.bind(statement, 5, reminder.repetition.rawValue)
            SQLiteFile.bind(statement, 6, reminder.weekdays.joined(separator: ","))
            SQLiteFile.bind(statement, 7, Int64(reminder.minutes))
            SQLiteFile.bind(statement, 8, Int64(reminder.heard ? 1 : 0))
            SQLiteFile.bind(statement, 9, Int64(reminder.urgent ? 1 : 0))
            SQLiteFile.bind(statement, 10, reminder.recording)
            SQLiteFile.bind(statement, 11, reminder.changedAt)
        }
    }

    /// Forgets the reminder `id` (nothing when there is none).
    package func remove(_ id: String) throws(LedgerError) {
        try file.write("DELETE FROM written WHERE id = ?1", [id]) { statement, id in SQLiteFile.bind(statement, 1, id) }
    }
}
