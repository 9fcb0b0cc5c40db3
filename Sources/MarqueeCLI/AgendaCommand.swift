import ArgumentParser
import Schedule

/// `marquee agenda`: how the active messages change over a period.
struct AgendaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agenda", abstract: "List when messages start and end over a period.")

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "Start of the period: RFC 3339 or a local '2026-12-24 21:30' (default: now).")
    var from: String?

    @Option(name: .long, help: "Length of the period in days.")
    var days = 7

    @Flag(name: .long, help: "One JSON object per change and line.")
    var json = false

    func validate() throws {
        if let from { _ = try parseTime(from, option: "--from") }
        guard (1...3660).contains(days) else { throw ValidationError("--days must be between 1 and 3660") }
    }

    func run() async throws {
        try await show()
    }

    private struct Line: Encodable {
        var at: String
        var change: String
        var message: Message
    }

    private func show() async throws {
        let file = try feedOptions.configurationFile()
        let (schedule, start) = try await feedOptions.loadSchedule(configuration: file, at: from, option: "--from")
        let sound = file.soundSettings(language: feedOptions.words(file).locale)
        // Days are calendar days: across a change of the clocks a day is 23 or 25 hours.
        var wall = await schedule.zoned(start).wallClock
        wall.date = wall.date.adding(days: days)
        let end = await schedule.instant(ofLocal: wall)
        let agenda = await schedule.agenda(from: start, to: end)
        let entries = agenda.entries
        let stop: (at: ZonedTime, reason: String)? = switch agenda.stop {
        case .cut(let at): (at, "a file's messages after it are computed only when their time comes (see its warning)")
        case .limit(let at): (at, "it has \(agenda.entries.count) changes, as many as it lists")
        case nil: nil
        }
        if json {
            if let stop { standardError("marquee agenda: stops at \(stop.at.rfc3339): \(stop.reason)") }
            for entry in entries {
                print(try jsonLine(Line(at: entry.at.rfc3339, change: entry.change.rawValue, message: entry.message)))
            }
            return
        }
        let (from, to) = (await schedule.zoned(start), await schedule.zoned(end))
        say("From \(shortDate(from)) to \(shortDate(to)) (\(await schedule.displayZoneName)):")
        if entries.isEmpty { say("  no messages") }
        for entry in entries where entry.change != .heard || entry.message.sounding.map(sound.hears) == true {
            let sign = switch entry.change {
            case .active: "already showing"
            case .start: "+ starts"
            case .end: "- ends"
            case .heard: "🔔 heard again"
            }
            // What is heard when it starts: by night only the urgent ones.
            let heard = entry.change == .start && entry.message.sounding.map(sound.hears) == true
            let bell = heard ? (entry.message.isUrgent ? "  🔔 heard" : "  🔔 heard (by day)") : ""
            say("  \(shortDate(entry.at))  \(sign): \(entry.message.text)\(bell)")
        }
        if let stop { say("  \(shortDate(stop.at))  the agenda stops here: \(stop.reason)") }
    }
}
