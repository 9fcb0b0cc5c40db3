import Ledger
import Support

/// Where the loop keeps what the reminder desk decided: the ledger, written before anything
/// decided is done. A ledger that cannot be opened or written is said once (the journal and the
/// box's problems) and reminders go on being decided in memory: never a reason to stop the
/// display or the sound.
final class ReminderRecords {
    private let ledger: ReminderLedger?
    private let log: EventLog?
    private let state: DisplayState?
    /// The ledger's trouble said last (nil: it writes).
    private var problem: String?
    /// When rows older than the ledger keeps were last forgotten (nil: not in this run).
    private var forgotten: Int64?

    /// - Parameter problem: what went wrong opening it (said now).
    init(ledger: ReminderLedger?, problem: String?, log: EventLog?, state: DisplayState?) {
        self.ledger = ledger
        self.log = log
        self.state = state
        if let problem { say(problem) }
    }

    /// Keeps `entries`, one transaction; once a day forgets what is older than the ledger keeps.
    func record(_ entries: [LedgerEntry], at now: Int64) {
        guard let ledger, !entries.isEmpty else { return }
        do {
            try ledger.record(entries)
            if forgotten.map({ now - $0 >= 86_400 }) ?? true {
                try ledger.forget(before: now)
                forgotten = now
            }
            if problem != nil {
                log?.log(.notice, "the reminder ledger \(ledger.path) is written again")
                replaceProblem(with: nil)
            }
        } catch {
            say("the reminder ledger cannot be written (\(error)): what becomes of reminders is kept only until a restart")
        }
    }

    private func say(_ text: String) {
        guard text != problem else { return }
        log?.tell(.warning, text)
        replaceProblem(with: text)
    }

    /// The box's problems hold `text` in place of the ledger's earlier one.
    private func replaceProblem(with text: String?) {
        let earlier = problem
        problem = text
        state?.update { $0.replaceBoxProblem(earlier, with: text) }
    }
}
