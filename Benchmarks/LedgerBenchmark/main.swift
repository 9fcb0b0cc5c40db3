// The reminder ledger's costs (release build), in a temporary folder on this machine's disk:
//   swift build -c release --product ledger-benchmark && .build/release/ledger-benchmark
// 1. One change kept (a transaction, WAL, synchronous = FULL: on disk before the reminder is
//    played): milliseconds per change, p50/p99/max over 500.
// 2. A full ledger: 90 days of 60 reminders a day (5,400 rows): opening it as the display
//    does at a start (with its quick_check), the desk's last 8 days read, the week
//    `marquee reminders` reads, the day forgotten once a day, `PRAGMA integrity_check`.
import Foundation
import Ledger
import Support

func milliseconds(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ p: Int) -> Double { values.sorted()[min(values.count - 1, values.count * p / 100)] }

func shown(_ value: Double) -> String { String(format: "%.2f ms", value) }

func entry(_ index: Int, trigger: Int64, fate: LedgerEntry.Fate) -> LedgerEntry {
    LedgerEntry(key: .init(event: "event-\(index % 60)", trigger: trigger, origin: "audio"),
                text: "Take the blue pills with a glass of water, Anna (\(index))", triggerOffset: 3_600, fate: fate,
                soundings: 1, total: 3, next: fate == .sounding ? trigger + 300 : nil, interval: 300, decidedAt: trigger)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-benchmark-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let now: Int64 = 1_795_000_000

// 1. One change at a time, as the loop keeps them.
let path = ReminderLedger.path(inStateFolder: folder)
let ledger = try ReminderLedger(path: path)
var changes: [Double] = []
for index in 0..<500 {
    let start = ContinuousClock.now
    try ledger.record([entry(index, trigger: now + Int64(index) * 60, fate: index % 2 == 0 ? .sounding : .acknowledged)])
    changes.append(milliseconds(start))
}
print("one change kept (synchronous = FULL): p50 \(shown(percentile(changes, 50))), p99 \(shown(percentile(changes, 99))), "
    + "max \(shown(changes.max() ?? 0)) over \(changes.count)")

// 2. Ninety days of sixty a day.
let full = folder + "/full.sqlite"
do {
    let filling = try ReminderLedger(path: full)
    for day in 0..<90 {
        let rows = (0..<60).map { entry(day * 60 + $0, trigger: now - Int64(90 - day) * 86_400 + Int64($0) * 900, fate: .acknowledged) }
        try filling.record(rows)
    }
}
var start = ContinuousClock.now
let opened = try ReminderLedger(path: full)
print("a start: the ledger of 5,400 rows opened and checked (quick_check) in \(shown(milliseconds(start)))")
start = ContinuousClock.now
let desk = try opened.entries(since: now - 8 * 86_400)
print("the desk's last 8 days (\(desk.count) rows) read in \(shown(milliseconds(start)))")
start = ContinuousClock.now
let week = try opened.entries(since: now - 7 * 86_400)
print("marquee reminders' week (\(week.count) rows) read in \(shown(milliseconds(start)))")
start = ContinuousClock.now
try opened.forget(before: now + 86_400)
print("a day forgotten (rows older than 90 days) in \(shown(milliseconds(start)))")
start = ContinuousClock.now
let integrity = try opened.integrityCheck()
print("PRAGMA integrity_check: \(integrity) in \(shown(milliseconds(start)))")
let size = (try? FileManager.default.attributesOfItem(atPath: full)[.size] as? Int) ?? 0
print("file: \(size / 1024) kB for 90 days")
