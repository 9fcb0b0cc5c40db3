import Ledger
import Testing

/// The carer's daily summary: the reminders due on a local day, each on the day its trigger
/// falls at its own UTC offset.
@Suite struct ReminderTallyTests {
    private func entry(_ event: String, _ trigger: Int64, _ fate: LedgerEntry.Fate, offset: Int = 3_600) -> LedgerEntry {
        LedgerEntry(key: .init(event: event, trigger: trigger, origin: "audio"), text: event, triggerOffset: offset,
                    fate: fate, decidedAt: trigger)
    }

    /// 2026-11-28T23:00:00Z is 00:00 on the 29th at +01:00: the 29th's, not the 28th's.
    @Test func aReminderCountsOnItsLocalDay() {
        let midnight: Int64 = 1_795_906_800
        let day = ReminderTally.localDay(of: midnight, utcOffset: 3_600)
        #expect(day == ReminderTally.localDay(of: 1_795_910_400, utcOffset: 0), "2026-11-29")
        let entries = [
            entry("pills", midnight + 8 * 3_600, .acknowledged), entry("walk", midnight + 10 * 3_600, .acknowledged),
            entry("lunch", midnight + 12 * 3_600, .notAcknowledged), entry("tea", midnight + 16 * 3_600, .missed),
            entry("bed", midnight - 1, .acknowledged), entry("late", midnight + 86_399, .sounding),
            entry("next day", midnight + 86_400, .missed),
        ]
        let today = ReminderTally(entries, day: day)
        #expect(today.due == 5)
        #expect(today.fates == ["acknowledged": 2, "not acknowledged": 1, "missed": 1, "sounding": 1])
        #expect(today.summary == "5 due: 1 sounding, 2 acknowledged, 1 not acknowledged, 1 missed")
        #expect(ReminderTally(entries, day: day - 1).summary == "1 due: 1 acknowledged")
        #expect(ReminderTally(entries, day: day + 2).summary == "none due")
    }

    /// Before 1970 the day is still the floor, never rounded toward zero.
    @Test func daysBeforeNineteenSeventyAreFloored() {
        #expect(ReminderTally.localDay(of: -1, utcOffset: 0) == -1)
        #expect(ReminderTally.localDay(of: -86_400, utcOffset: 0) == -1)
        #expect(ReminderTally.localDay(of: -86_401, utcOffset: 0) == -2)
        #expect(ReminderTally.localDay(of: 3_599, utcOffset: -3_600) == -1)
    }
}
