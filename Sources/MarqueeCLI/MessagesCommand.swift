import ArgumentParser
import Schedule

/// `marquee messages`: the messages active at an instant, in display order.
struct MessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages", abstract: "Show the messages active at an instant (default: now), in display order.")

    @OptionGroup var feedOptions: FeedOptions

    @Option(name: .long, help: "The instant: RFC 3339 or a local '2026-12-24 21:30' (default: now).")
    var at: String?

    @Flag(name: .long, help: "One JSON object per message and line.")
    var json = false

    func validate() throws {
        if let at { _ = try parseTime(at, option: "--at") }
    }

    func run() async throws {
        try await show()
    }

    private func show() async throws {
        let (schedule, instant) = try await feedOptions.loadSchedule(configuration: try feedOptions.configurationFile(), at: at)
        let messages = await schedule.messages(at: instant)
        if json {
            for message in messages { print(try jsonLine(message)) }
            return
        }
        let when = await schedule.zoned(instant).wallClock
        say("At \(when.date.spokenForm) \(when.clock()) (\(await schedule.displayZoneName)):")
        if messages.isEmpty {
            say("  nothing is scheduled; the display shows the date")
        }
        for message in messages {
            say("  \(message.text)")
            var details = ["\(interval(message.start, message.end))", message.kind.rawValue]
            if message.priority != 5 { details.append("priority \(message.priority)") }
            if let color = message.color { details.append("colour \(color)") }
            if let effect = message.effect { details.append(effect.rawValue) }
            details.append(message.source)
            say("      " + details.joined(separator: " · "))
        }
    }
}

/// "Sat 21 Nov 21:00 – Sun 22 Nov 07:00": an interval as a person reads it.
func interval(_ start: ZonedTime, _ end: ZonedTime) -> String {
    "\(shortDate(start)) – \(shortDate(end))"
}

func shortDate(_ time: ZonedTime) -> String {
    let wall = time.wallClock
    let weekday = String(CivilDate.weekdayName(wall.date.weekday).prefix(3))
    let month = String(CivilDate.monthName(wall.date.month).prefix(3))
    return "\(weekday) \(wall.date.day) \(month) \(wall.date.year) \(wall.clock())"
}
