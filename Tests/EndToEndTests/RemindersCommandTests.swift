import Ledger
import Support
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee reminders` as a carer runs it: the ledger's rows in words and in JSON, and clear
/// errors for a ledger that is missing or damaged and a span it cannot read.
@Suite struct RemindersCommandTests {
    @Test func whatBecameOfTheReminders() throws {
        try withTemporaryFolder { folder in
            let now = machineWallSeconds()
            let ledger = try ReminderLedger(path: folder.path + "/" + ReminderLedger.fileName)
            try ledger.record([
                LedgerEntry(key: .init(event: "pills", trigger: now - 3_600, origin: "audio"), text: "Pills now, Anna",
                            triggerOffset: 3_600, fate: .acknowledged, soundings: 2, total: 3, interval: 300,
                            decidedAt: now - 3_600, changedAt: now - 3_000, acknowledgedBy: "a key"),
                LedgerEntry(key: .init(event: "bins", trigger: now - 2 * 86_400, origin: "event"), text: "Put the bins out",
                            triggerOffset: 3_600, fate: .missed, why: "its event ended in the quiet night, before it could be heard",
                            decidedAt: now - 2 * 86_400),
                LedgerEntry(key: .init(event: "old", trigger: now - 30 * 86_400, origin: "event"), text: "Long ago",
                            triggerOffset: 0, fate: .missed, decidedAt: now - 30 * 86_400),
            ])
            let words = try CommandLineTests.marquee("reminders", "--state-dir", folder.path)
            #expect(words.status == 0, "\(words.errors)")
            let lines = words.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.contains("+01:00  missed  Put the bins out — its event ended in the quiet night") == true)
            #expect(lines.last?.contains("acknowledged (heard 2 of 3) by a key at ") == true)
            #expect(lines.last?.hasSuffix("Pills now, Anna") == true)
            let json = try CommandLineTests.marquee("reminders", "--state-dir", folder.path, "--since", "60d", "--json")
            #expect(json.output.split(separator: "\n").count == 3)
            #expect(json.output.contains(#""acknowledgedBy":"a key""#) && json.output.contains(#""outcome":"acknowledged""#))
        }
    }

    @Test func aMissingOrDamagedLedgerIsSaid() throws {
        try withTemporaryFolder { folder in
            let missing = try CommandLineTests.marquee("reminders", "--state-dir", folder.path)
            #expect(missing.status == 1 && missing.errors.contains("no reminder ledger at \(folder.path)/reminders.sqlite"))
            let file = try #require(fopen(folder.path + "/" + ReminderLedger.fileName, "w"))
            fputs(String(repeating: "garbage, not SQLite\n", count: 500), file)
            fclose(file)
            let damaged = try CommandLineTests.marquee("reminders", "--state-dir", folder.path)
            #expect(damaged.status == 1 && damaged.errors.contains("\(folder.path)/reminders.sqlite"), "\(damaged.errors)")
            let span = try CommandLineTests.marquee("reminders", "--state-dir", folder.path, "--since", "soon")
            #expect(span.status != 0 && span.errors.contains("is not a span such as 7d"))
        }
    }
}
