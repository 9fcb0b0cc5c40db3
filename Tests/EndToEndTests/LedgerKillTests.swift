import Foundation
import Ledger
import LoopbackServers
import TestSupport
import Testing

/// The reminder ledger as `marquee run` keeps it, killed with SIGKILL again and again at
/// random moments around a reminder's time (a power cut, as near as a test gets): the database
/// is whole after every kill, nothing was heard that it does not know of, nothing is called
/// missed, and a reminder the box said was acknowledged is never heard again.
@Suite(.tags(.live), .tier(.live, needs: [.program("/usr/bin/script")]))
struct LedgerKillTests {
    /// 2026-07-01T10:00:00Z: the pills' time; an audio alarm at it, repeated every minute.
    private let triggerSeconds: Int64 = 1_782_900_000

    /// The ledger's rows after a kill, and whether it is whole (opened as a restart opens it).
    private func ledger(_ folder: String) throws -> (rows: [LedgerEntry], integrity: String) {
        let path = folder + "/state/" + ReminderLedger.fileName
        guard FileManager.default.fileExists(atPath: path) else { return ([], "ok") }
        let ledger = try ReminderLedger(path: path)
        return (try ledger.entries(since: 0), try ledger.integrityCheck())
    }

    /// What the status says became of the latest reminder (nil: no answer yet).
    private func outcome(_ folder: String) throws -> String? {
        let status = try CommandLineTests.marquee("status", "--json", "--socket", folder + "/marquee.sock")
        guard status.status == 0 else { return nil }
        let report = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let sound = report?["sound"] as? [String: Any]
        return (sound?["reminders"] as? [[String: Any]])?.first?["outcome"] as? String
    }

    @Test(.timeLimit(.minutes(5))) func killedAtAnyMomentTheLedgerKeepsItsWord() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let wav = folder + "/played.wav"
            try FileManager.default.createDirectory(atPath: folder + "/feeds", withIntermediateDirectories: true)
            try calendar(event(
                "UID:pills", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z", "SUMMARY:Pills now, Anna",
                "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:PT0S", "REPEAT:20", "DURATION:PT1M", "END:VALARM"))
                .write(toFile: folder + "/feeds/pills.ics", atomically: true, encoding: .utf8)
            try "state_dir = \"\(folder)/state\"\nsound_device = \"file:FILE=\(wav),FORMAT=wav\"\n"
                .write(toFile: folder + "/marquee.toml", atomically: true, encoding: .utf8)
            var random = SystemRandomNumberGenerator()

            // Before anyone acknowledges it: killed 0.5–4.5 s after a start 3 s before its time,
            // often while it is decided and written.
            var heard = 0
            for round in 0..<10 {
                try? FileManager.default.removeItem(atPath: wav)
                let display = try ScriptedDisplay(folder: folder, at: "2026-07-01T09:59:57Z")
                Thread.sleep(forTimeInterval: Double.random(in: 0.5...4.5, using: &random))
                display.kill()
                let (rows, integrity) = try ledger(folder)
                #expect(integrity == "ok", "round \(round)")
                #expect(rows.allSatisfy { $0.fate == .sounding }, "round \(round): \(rows.map(\.fate))")
                if FileManager.default.fileExists(atPath: wav) {
                    heard += 1
                    #expect(rows.count == 1, "round \(round): heard, so written first")
                }
            }
            #expect(heard <= 1, "heard once, not again after a restart (\(heard) times)")

            // Acknowledged: once the status says so, a kill at once keeps it.
            let display = try ScriptedDisplay(folder: folder, at: "2026-07-01T09:59:57Z")
            #expect(waitUntil(within: .seconds(30)) { (try? outcome(folder)) == "sounding" })
            #expect(try CommandLineTests.marquee("ack", "--socket", folder + "/marquee.sock").status == 0)
            #expect(waitUntil(within: .seconds(10)) { (try? outcome(folder)) == "acknowledged" })
            display.kill()

            // Never heard again: restarted at its time and at its repeats' times, killed at random.
            for round in 0..<8 {
                try? FileManager.default.removeItem(atPath: wav)
                let start = round % 2 == 0 ? "2026-07-01T09:59:57Z" : "2026-07-01T10:0\(round):58Z"
                let display = try ScriptedDisplay(folder: folder, at: start)
                Thread.sleep(forTimeInterval: Double.random(in: 0.5...4.5, using: &random))
                display.kill()
                let (rows, integrity) = try ledger(folder)
                #expect(integrity == "ok", "round \(round)")
                #expect(rows.map(\.fate) == [.acknowledged] && rows.first?.key.trigger == triggerSeconds,
                        "round \(round): \(rows.map(\.fate))")
                #expect(!FileManager.default.fileExists(atPath: wav), "round \(round): heard again from \(start)")
            }
        }
    }
}
