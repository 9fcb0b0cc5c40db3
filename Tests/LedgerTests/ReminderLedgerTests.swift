import Ledger
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ReminderLedgerTests {
    private func entry(_ event: String, trigger: Int64, fate: LedgerEntry.Fate = .sounding, changedAt: Int64? = nil)
        -> LedgerEntry {
        LedgerEntry(key: .init(event: event, trigger: trigger, origin: "audio"), text: "Pills now, Anna", triggerOffset: 3_600,
                    fate: fate, why: fate == .missed ? "the box was off" : nil, soundings: 1, total: 3,
                    next: fate == .sounding ? trigger + 300 : nil, interval: 300, urgent: true, decidedAt: trigger,
                    changedAt: changedAt, acknowledgedBy: fate == .acknowledged ? "a key" : nil)
    }

    /// What is recorded is read back whole by another connection, a change replaces its row,
    /// and `since` picks by trigger or last change.
    @Test func rowsAreKeptAndReadBack() throws {
        try withTemporaryFolder { folder in
            let path = folder.path + "/" + ReminderLedger.fileName
            let ledger = try ReminderLedger(path: path)
            let pills = entry("pills", trigger: 1_000_000)
            let old = entry("dentist", trigger: 500_000, fate: .missed)
            try ledger.record([pills, old])
            var acknowledged = pills
            acknowledged.fate = .acknowledged
            acknowledged.next = nil
            acknowledged.acknowledgedBy = "a key"
            acknowledged.changedAt = 1_000_100
            try ledger.record([acknowledged])
            let reader = try ReminderLedger(path: path, readOnly: true)
            #expect(try reader.entries(since: 0) == [old, acknowledged])
            #expect(try reader.entries(since: 900_000) == [acknowledged])
            #expect(try reader.integrityCheck() == "ok")
        }
    }

    /// Settled rows older than 90 days (trigger and last change) are forgotten; newer are kept.
    @Test func ninetyDaysAreKept() throws {
        try withTemporaryFolder { folder in
            let ledger = try ReminderLedger(path: folder.path + "/" + ReminderLedger.fileName)
            let now: Int64 = 200 * 86_400
            let kept = entry("kept", trigger: now - 89 * 86_400, fate: .acknowledged)
            let changedLately = entry("late", trigger: now - 95 * 86_400, fate: .missed, changedAt: now - 10 * 86_400)
            try ledger.record([entry("gone", trigger: now - 91 * 86_400, fate: .missed), kept, changedLately])
            try ledger.forget(before: now)
            #expect(try ledger.entries(since: 0).map(\.key.event) == ["late", "kept"])
        }
    }

    /// A file that is not a ledger (garbage, or a database cut short) is kept aside and a new
    /// ledger made, said with its path; one that cannot be made at all is said too.
    @Test(arguments: ["garbage", "truncated", "empty"])
    func aDamagedLedgerIsRebuilt(damage: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.path + "/" + ReminderLedger.fileName
            switch damage {
            case "garbage":
                try writeText(String(repeating: "not a database\n", count: 1_000), to: path)
            case "truncated":
                // Closed (its log moved into the file), then cut short.
                try ReminderLedger(path: path).record((0..<2_000).map { entry("event \($0)", trigger: Int64($0)) })
                #expect(truncate(path, 8_192) == 0)
            default:
                try writeText("", to: path)
            }
            let (ledger, problem) = ReminderLedger.openOrRebuild(path: path)
            let opened = try #require(ledger)
            try opened.record([entry("pills", trigger: 1)])
            #expect(try opened.entries(since: 0).count == 1)
            if damage == "empty" {
                #expect(problem == nil)
            } else {
                #expect(problem?.contains("kept aside as \(path).damaged, a new one was made") == true, "\(problem ?? "")")
                #expect(access(path + ".damaged", F_OK) == 0)
            }
        }
        let (none, problem) = ReminderLedger.openOrRebuild(path: "/proc/no-ledger-here/" + ReminderLedger.fileName)
        #expect(none == nil)
        #expect(problem?.hasSuffix("what becomes of reminders is kept only until a restart") == true)
    }

    private func writeText(_ text: String, to path: String) throws {
        let file = try #require(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
    }
}
