import ArgumentParser
import Daemon
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// The options every offline command shares: where the feeds are and which zone the
/// display is in.
struct FeedOptions: ParsableArguments {
    @Option(name: .long, help: "The feed folder or a single .ics file (default: \(defaultFeeds)).")
    var feeds: String?

    @Option(name: .long, help: "The display's time zone, e.g. Europe/Berlin (default: the system's).")
    var timezone: String?

    @Option(name: .long, help: "The configuration file (default: \(defaultConfiguration), if it exists).")
    var config: String?

    @Option(name: .long, help: "The language of the orientation line and of dates and times, e.g. de or en_GB (default: the system's).")
    var language: String?

    /// The configuration file's settings (a file that is missing is fine unless named); a
    /// broken one ends the command with its error.
    func configurationFile() throws -> ConfigurationFile {
        do {
            return try loadConfiguration()
        } catch {
            standardError("marquee: \(error)")
            throw ExitCode(1)
        }
    }

    /// The configuration file's settings; a file that is missing is fine unless named.
    func loadConfiguration() throws(ConfigurationError) -> ConfigurationFile {
        try ConfigurationFile.load(configurationPath, required: config != nil)
    }

    /// The configuration file named, or the default one.
    var configurationPath: String { config ?? defaultConfiguration }

    /// The feed folder or file: the option's, else the configuration's, else the default.
    func feedPath(_ configuration: ConfigurationFile) -> String {
        feeds ?? configuration.feeds ?? defaultFeeds
    }

    /// The display's zone: the option's, else the configuration's, else the system's.
    func displayZone(_ configuration: ConfigurationFile) -> String {
        timezone ?? configuration.timezone ?? SystemTimeZone.name(environment: environment())
    }

    /// The display's language: the option's, else the configuration's, else the system's
    /// (`LC_ALL`, `LC_TIME`, `LANG`); its clock as the configuration says.
    func words(_ configuration: ConfigurationFile) -> CalendarWords {
        let system = environment()
        let posix = [system["LC_ALL"], system["LC_TIME"], system["LANG"]].compactMap { $0 }.first { !$0.isEmpty }
        let locale = language ?? configuration.language ?? CalendarWords.locale(fromPOSIX: posix)
        return CalendarWords(locale: locale, twelveHours: configuration.clockHours.map { $0 == 12 })
    }

    /// A schedule in the chosen zone with the feeds loaded around the instant a TIME option
    /// names (default: now); problems go to standard error.
    /// - Parameters:
    ///   - configuration: what the configuration file says (the options win).
    ///   - requireFeeds: a feed folder or file that does not exist (or cannot be read) ends
    ///     the command with exit status 1 once its problem is said.
    func loadSchedule(
        configuration: ConfigurationFile, at time: String? = nil, option: String = "--at", reportProblems: Bool = true,
        lastGoodDirectory: String? = nil, requireFeeds: Bool = true
    ) async throws -> (Schedule, Instant) {
        let schedule: Schedule
        do {
            schedule = try await Schedule(
                displayZone: displayZone(configuration),
                defaultEventDuration: Int64(configuration.defaultEventMinutes ?? 60) * 60,
                reader: feedReader, lastGoodDirectory: lastGoodDirectory, words: words(configuration),
                orientation: configuration.orientationSettings)
        } catch {
            throw ValidationError("\(error)")
        }
        let instant = if let time { await schedule.instant(of: try parseTime(time, option: option)) } else { now() }
        let path = feedPath(configuration)
        await schedule.load([path], around: instant)
        if reportProblems {
            for problem in await schedule.feeds.flatMap(\.problems) { standardError("\(problem)") }
        }
        if requireFeeds, access(path, R_OK) != 0 { throw ExitCode(1) }
        return (schedule, instant)
    }
}

/// libical runs in a helper: this binary's hidden `read-feed` command.
let feedReader = FeedReader.helper(executable: "/proc/self/exe", arguments: ["read-feed"])

/// Where feed files are unless told otherwise.
let defaultFeeds = "/etc/marquee/feeds.d"

/// Where the configuration file is unless told otherwise.
let defaultConfiguration = "/etc/marquee/marquee.toml"

/// Parses a TIME option (RFC 3339, or a local `2026-12-24 21:30`).
func parseTime(_ text: String, option: String) throws -> TimeArgument {
    guard let time = TimeArgument(text) else {
        throw ValidationError(
            "\(option): \"\(text)\" is not a time; use RFC 3339 (2026-12-24T21:30:00+01:00) or 2026-12-24 21:30")
    }
    return time
}

/// Parses the TIME a display's clock starts at (`run --at`, `snapshot --at`): the display
/// counts nanoseconds, so the years 1970 to 2261.
func parseDisplayTime(_ text: String, option: String) throws -> TimeArgument {
    let time = try parseTime(text, option: option)
    let year = switch time {
    case .instant(let instant): CivilDateTime(secondsAsUTC: instant.secondsSinceEpoch).date.year
    case .local(let wall): wall.date.year
    }
    guard (1970...2261).contains(year) else {
        throw ValidationError("\(option): \"\(text)\" is outside the years a display can show (1970 to 2261)")
    }
    return time
}

/// The current instant from the machine's clock: the CLI is where the clock is read.
func now() -> Instant {
    Instant(secondsSinceEpoch: Int64(time(nil)))
}
