import ArgumentParser
import Daemon
import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The options every offline command shares: where the feeds are and which zone the
/// display is in.
struct FeedOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A feed folder, a single .ics file, or a calendar's address (https://, webcal://); may be repeated.",
        discussion: "Default: the configuration's feeds and subscriptions, else \(defaultFeeds)."))
    var feeds: [String] = []

    @Option(name: .long, help: "The display's time zone, e.g. Europe/Berlin (default: the system's).")
    var timezone: String?

    @Option(name: .long, help: "The configuration file (default: \(defaultConfiguration), if it exists).")
    var config: String?

    @Option(name: .long, help: "The language of the orientation line and of dates and times, e.g. de or en_GB (default: the system's).")
    var language: String?

    func validate() throws {
        if let language, let problem = CalendarWords.unknownLanguage(language) { throw ValidationError("--language: " + problem) }
        if let timezone, !isKnownTimeZone(timezone) {
            throw ValidationError("--timezone: unknown time zone \"\(timezone)\" (an IANA name such as Europe/Berlin, or a POSIX rule)")
        }
    }

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

    /// The feed folders and files, and the subscriptions: the options', else the configuration's
    /// `feeds` (default: the feed folder) and `subscriptions`. Something that looks like a web
    /// address and is not one marquee can fetch (`htps://`, a space inside) is refused, shown
    /// redacted: it is never taken for a file name, whose errors would print it whole.
    func feedSources(_ configuration: ConfigurationFile) throws -> (paths: [String], addresses: [SubscriptionAddress]) {
        let named = feeds.isEmpty ? [configuration.feeds ?? defaultFeeds] + configuration.subscriptions : feeds
        var sources: (paths: [String], addresses: [SubscriptionAddress]) = ([], [])
        for source in named {
            if let address = SubscriptionAddress(source) {
                if address.given != source {
                    standardError("marquee: warning: \(address.shown): the spaces around the address were left out")
                }
                sources.addresses.append(address)
            } else if SubscriptionAddress.looksLikeAddress(source) {
                throw ValidationError(
                    "\(SubscriptionAddress.redacted(source)): not a calendar address marquee can fetch "
                        + "(it must start with https://, http:// or webcal:// and have no spaces)")
            } else {
                sources.paths.append(source)
            }
        }
        return sources
    }

    /// The display's zone: the option's, else the configuration's, else the system's (a `TZ`
    /// that cannot be followed is said on standard error).
    func displayZone(_ configuration: ConfigurationFile) -> String {
        if let chosen = timezone ?? configuration.timezone { return chosen }
        if let problem = SystemTimeZone.unreadableTZ(environment: environment()) { standardError("marquee: warning: " + problem) }
        return SystemTimeZone.name(environment: environment())
    }

    /// The display's language: the option's, else the configuration's, else the system's
    /// (`LC_ALL`, `LC_TIME`, `LANG`); its clock as the configuration says.
    func words(_ configuration: ConfigurationFile) -> CalendarWords {
        let system = environment()
        let posix = [system["LC_ALL"], system["LC_TIME"], system["LANG"]].compactMap { $0 }.first { !$0.isEmpty }
        let locale = language ?? configuration.language ?? CalendarWords.locale(fromPOSIX: posix)
        return CalendarWords(locale: locale, twelveHours: configuration.clockHours.map { $0 == 12 })
    }

    /// How the schedule counts and writes time: the options', else the configuration's.
    func scheduleSettings(_ configuration: ConfigurationFile) -> ScheduleSettings {
        ScheduleSettings(
            displayZone: displayZone(configuration), words: words(configuration),
            orientation: configuration.orientationSettings,
            defaultEventDuration: Int64(configuration.defaultEventMinutes ?? 60) * 60, screenOff: configuration.screenOff)
    }

    /// A schedule in the chosen zone with the feeds loaded around the instant a TIME option
    /// names (default: now); problems go to standard error. Subscriptions are fetched once,
    /// all at once, and held in memory: nothing is left on disk, even after Ctrl-C.
    /// - Parameters:
    ///   - configuration: what the configuration file says (the options win).
    ///   - requireFeeds: a feed folder or file that does not exist (or cannot be read), or a
    ///     subscription that cannot be fetched, ends the command with exit status 1 once its
    ///     problem is said.
    func loadSchedule(
        configuration: ConfigurationFile, at time: String? = nil, option: String = "--at", reportProblems: Bool = true,
        requireFeeds: Bool = true
    ) async throws -> (Schedule, Instant) {
        let feeds = try await openFeeds(
            configuration: configuration, at: time, option: option, reportProblems: reportProblems,
            subscriptionFolder: nil, fetchNow: true)
        if reportProblems {
            for status in await feeds.subscriptions?.statuses() ?? [] {
                if let line = status.errorLine { standardError(line) }
            }
        }
        if requireFeeds, !feeds.allRead { throw ExitCode(1) }
        return (feeds.schedule, feeds.instant)
    }

    /// The schedule with the feeds loaded, the instant they were loaded around, and the
    /// subscriptions, their copies kept in `subscriptionFolder` (nil: held in memory).
    /// - Parameters:
    ///   - lastGoodDirectory: where last good copies of feed files outlive a restart.
    ///   - fetchNow: whether each subscription is fetched before the feeds are read (else only
    ///     the copies in the folder are read).
    ///   - load: whether the feeds are read now (else the caller reads them: `marquee run`
    ///     does once its display runs).
    ///   - ahead: how far the first queries reach after the instant, in seconds (a day if nil).
    ///   - subscribesAlways: whether there are subscriptions without any address (a reload or
    ///     the carer's page may add one).
    func openFeeds(
        configuration: ConfigurationFile, at time: String?, option: String = "--at", reportProblems: Bool,
        lastGoodDirectory: String? = nil, subscriptionFolder: String?, fetchNow: Bool, load: Bool = true,
        ahead: Int64? = nil, subscribesAlways: Bool = false
    ) async throws -> LoadedFeeds {
        let schedule: Schedule
        let settings = scheduleSettings(configuration)
        do {
            schedule = try await Schedule(
                displayZone: settings.displayZone, defaultEventDuration: settings.defaultEventDuration,
                reader: feedReader, lastGoodDirectory: lastGoodDirectory, words: settings.words,
                orientation: settings.orientation, screenOff: settings.screenOff)
        } catch {
            throw ValidationError("\(error)")
        }
        let instant = if let time { await schedule.instant(of: try parseTime(time, option: option)) } else { now() }
        let (paths, addresses) = try feedSources(configuration)
        var allRead = paths.allSatisfy { access($0, R_OK) == 0 }
        var subscriptions: Subscriptions?
        if !addresses.isEmpty || subscribesAlways {
            let opened = Subscriptions(
                addresses: addresses, folder: subscriptionFolder,
                refreshSeconds: Int64(configuration.refreshMinutes ?? 5) * 60,
                certificateAuthorities: configuration.subscriptionCertificateAuthorities ?? environment()["SSL_CERT_FILE"],
                inspect: { await schedule.inspect($0, name: $1) }, seed: UInt64(bitPattern: now().secondsSinceEpoch) ^ UInt64(getpid()))
            if fetchNow {
                await opened.refreshAll(at: now())
                for status in await opened.statuses() where status.lastSuccess == nil { allRead = false }
            }
            subscriptions = opened
        }
        if load {
            await schedule.load(paths, fetched: await subscriptions?.fetched() ?? [], around: instant, ahead: ahead)
            if reportProblems {
                for problem in await schedule.feeds.flatMap(\.problems) { standardError("\(problem)") }
            }
        }
        return LoadedFeeds(schedule: schedule, instant: instant, subscriptions: subscriptions, paths: paths, allRead: allRead)
    }
}

/// A schedule with its feeds loaded.
struct LoadedFeeds {
    var schedule: Schedule
    /// Where the feeds were loaded around.
    var instant: Instant
    var subscriptions: Subscriptions?
    /// The feed folders and files.
    var paths: [String]
    /// Whether every folder and file could be read and every subscription fetched.
    var allRead: Bool
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
    Instant(secondsSinceEpoch: machineWallSeconds())
}
