import ArgumentParser
import Daemon
import Ledger
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee reminders`: what the reminder ledger says became of each reminder (due, heard,
/// acknowledged, missed, and why), read from the state folder while the display runs or not.
struct RemindersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders",
        abstract: "Show what became of the reminders: heard, acknowledged, missed, and why.")

    @Option(name: .long, help: "The configuration file (default: \(defaultConfiguration), if it exists): its state_dir.")
    var config: String?

    @Option(name: .long, help: "The state folder holding the ledger (default: the configuration's state_dir).")
    var stateDir: String?

    @Option(name: .long, help: "How far back: 7d, 36h, 90m (default 7d).")
    var since = "7d"

    @Flag(name: .long, help: "One JSON object per reminder.")
    var json = false

    func validate() throws {
        guard Self.seconds(since) != nil else { throw ValidationError("--since: \"\(since)\" is not a span such as 7d, 36h or 90m") }
    }

    func run() throws {
        let file: ConfigurationFile
        do {
            file = try ConfigurationFile.load(config ?? defaultConfiguration, required: config != nil)
        } catch {
            standardError("marquee: \(error)")
            throw ExitCode(1)
        }
        guard let folder = stateDir ?? file.stateDirectory else {
            standardError("marquee reminders: no state folder (state_dir in the configuration, or --state-dir): nothing is kept")
            throw ExitCode(1)
        }
        let path = folder + "/" + ReminderLedger.fileName
        guard access(path, F_OK) == 0 else {
            standardError("marquee reminders: no reminder ledger at \(path) (no reminder was due yet, or access is denied: "
                + "the state folder is for marquee's user; try sudo)")
            throw ExitCode(1)
        }
        let entries: [LedgerEntry]
        do {
            let now = machineWallSeconds()
            entries = try ReminderLedger(path: path, readOnly: true).entries(since: now - (Self.seconds(since) ?? 0))
        } catch {
            standardError("marquee reminders: \(error)")
            throw ExitCode(1)
        }
        for entry in entries {
            let shown = SoundStatus.Reminder(entry, utcOffset: entry.triggerOffset)
            if json {
                print(try jsonLine(shown))
                continue
            }
            var line = "\(shown.trigger)  \(shown.outcome)"
            if entry.soundings > 0 { line += " (heard \(entry.soundings) of \(entry.total))" }
            if let by = entry.acknowledgedBy { line += " by \(by) at \(shown.at)" }
            line += "  \(entry.text)"
            if let why = entry.why { line += " — \(why)" }
            print(line)
        }
    }

    /// `7d`, `36h`, `90m`, `600s` in seconds.
    static func seconds(_ span: String) -> Int64? {
        guard let unit = span.last, let count = Int64(span.dropLast()), count >= 0 else { return nil }
        switch unit {
        case "d": return count * 86_400
        case "h": return count * 3_600
        case "m": return count * 60
        case "s": return count
        default: return nil
        }
    }
}
