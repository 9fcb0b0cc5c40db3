import ArgumentParser
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// The options every offline command shares: where the feeds are and which zone the
/// display is in.
struct FeedOptions: ParsableArguments {
    @Option(name: .long, help: "The feed folder (or a single .ics file).")
    var feeds = "/etc/marquee/feeds.d"

    @Option(name: .long, help: "The display's time zone, e.g. Europe/Berlin (default: the system's).")
    var timezone: String?

    /// A schedule in the chosen zone with the feeds loaded; problems go to standard error.
    @ICalActor func loadSchedule(reportProblems: Bool = true, lastGoodDirectory: String? = nil) throws -> Schedule {
        let schedule: Schedule
        do {
            schedule = try Schedule(displayZone: timezone ?? systemTimeZoneName(), lastGoodDirectory: lastGoodDirectory)
        } catch {
            throw ValidationError("\(error)")
        }
        schedule.load([feeds])
        if reportProblems {
            for problem in schedule.feeds.flatMap(\.problems) { standardError("\(problem)") }
        }
        return schedule
    }
}

/// Parses a TIME option (RFC 3339, or a local `2026-12-24 21:30`).
func parseTime(_ text: String, option: String) throws -> TimeArgument {
    guard let time = TimeArgument(text) else {
        throw ValidationError(
            "\(option): \"\(text)\" is not a time; use RFC 3339 (2026-12-24T21:30:00+01:00) or 2026-12-24 21:30")
    }
    return time
}

/// The machine's time zone name: `$TZ`, else the `/etc/localtime` link, else `/etc/timezone`,
/// else UTC. The only place marquee looks at the machine's zone.
func systemTimeZoneName() -> String {
    if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
        return tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
    }
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/etc/localtime", &buffer, buffer.count - 1)
    if count > 0 {
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = target.split(separator: "zoneinfo/", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, !parts[1].isEmpty { return String(parts[1]) }
    }
    if let file = fopen("/etc/timezone", "r") {
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        if fgets(&line, Int32(line.count), file) != nil {
            let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            let name = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
            if !name.isEmpty { return name }
        }
    }
    return "UTC"
}

/// The current instant from the machine's clock: the CLI is where the clock is read.
func now() -> Instant {
    Instant(secondsSinceEpoch: Int64(time(nil)))
}
