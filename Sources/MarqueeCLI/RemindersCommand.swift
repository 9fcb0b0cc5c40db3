import ArgumentParser
import Daemon
import Ledger
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `--config` and `--state-dir`: the state folder a command reads or writes (`--state-dir`, else
/// the configuration's `state_dir`).
struct StateFolderOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration file (default: \(defaultConfiguration), if it exists): its state_dir.")
    var config: String?

    @Option(name: .long, help: "The state folder (default: the configuration's state_dir).")
    var stateDir: String?

    /// The configuration file; exit 1, saying why, when it cannot be read.
    func configuration() throws -> ConfigurationFile {
        do {
            return try ConfigurationFile.load(config ?? defaultConfiguration, required: config != nil)
        } catch {
            standardError("marquee: \(error)")
            throw ExitCode(1)
        }
    }

    /// The state folder; exit 1 when there is none (`command` names the subcommand).
    func folder(for command: String, file: ConfigurationFile) throws -> String {
        guard let folder = stateDir ?? file.stateDirectory else {
            standardError("marquee \(command): no state folder (state_dir in the configuration, or --state-dir)")
            throw ExitCode(1)
        }
        return folder
    }
}

/// `marquee reminders`: what the reminder ledger says became of each reminder (due, heard,
/// acknowledged, missed, and why): asked of the running display (whoever may read its status
/// may read this), else read from the state folder.
struct RemindersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders",
        abstract: "Show what became of the reminders: heard, acknowledged, missed, and why.")

    /// Where the ledger is read when no display answers (or `--state-dir` says so).
    @OptionGroup var stateFolder: StateFolderOptions

    @Option(name: .long, help: "How far back: 7d, 36h, 90m (default 7d).")
    var since = "7d"

    @Flag(name: .long, help: "One JSON object per reminder.")
    var json = false

    @OptionGroup var socketOption: SocketOption

    func validate() throws {
        guard Self.seconds(since) != nil else { throw ValidationError("--since: \"\(since)\" is not a span such as 7d, 36h or 90m") }
    }

    func run() throws {
        let seconds = Self.seconds(since) ?? 0
        let reminders = try (stateFolder.stateDir == nil ? askTheDisplay(since: seconds) : nil) ?? readTheLedger(since: seconds)
        for reminder in reminders {
            if json {
                print(try jsonLine(reminder))
                continue
            }
            var line = "\(reminder.trigger)  \(reminder.outcome)"
            if reminder.soundings > 0 { line += " (heard \(reminder.soundings) of \(reminder.of ?? reminder.soundings))" }
            if let by = reminder.acknowledgedBy { line += " by \(by) at \(reminder.at)" }
            line += "  \(reminder.text)"
            if let why = reminder.why { line += " — \(why)" }
            print(line)
        }
    }

    /// What the running display's ledger says (nil: no display answers on the socket here).
    private func askTheDisplay(since seconds: Int64) throws -> [SoundStatus.Reminder]? {
        let path = socketOption.path
        guard let connection = try? ControlConnection(path: path) else { return nil }
        let reply = try exchange(ControlRequest(type: .reminders, since: seconds), over: connection, socketPath: path)
        guard reply.ok, let reminders = reply.reminders else {
            standardError("marquee reminders: \(reply.error ?? "the display did not answer with the reminders")")
            throw ExitCode(1)
        }
        return reminders
    }

    /// What the ledger in the state folder says, read here (the display need not run).
    private func readTheLedger(since seconds: Int64) throws -> [SoundStatus.Reminder] {
        let folder = try stateFolder.folder(for: "reminders", file: try stateFolder.configuration())
        let path = ReminderLedger.path(inStateFolder: folder)
        guard access(path, F_OK) == 0 else {
            standardError("marquee reminders: no reminder ledger at \(path) (no reminder was due yet, or access is denied: "
                + "the state folder is for marquee's user; try sudo, or ask the running display)")
            throw ExitCode(1)
        }
        do {
            return try SoundStatus.Reminder.inLedger(at: path, since: machineWallSeconds() - seconds)
        } catch {
            standardError("marquee reminders: \(error)")
            throw ExitCode(1)
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
