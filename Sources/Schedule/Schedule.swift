#if canImport(Glibc)
    import Glibc
#endif

/// The messages of a set of iCalendar feeds over time: which are active at an instant, in
/// display order, when that set next changes, and an agenda of changes. Reads files only
/// when told to (`load`); never reads the machine's clock or time zone — both are
/// parameters. A file that stops parsing keeps its last good version in effect.
///
/// Safe to share: the work runs on libical's one actor, so callers anywhere await it and
/// only Swift values come back.
package final class Schedule: Sendable {
    package enum ConfigurationError: Error, CustomStringConvertible {
        case unknownTimeZone(String)

        package var description: String {
            switch self {
            case .unknownTimeZone(let name):
                "unknown time zone \"\(name)\" (expected an IANA name such as Europe/Berlin; is tzdata installed?)"
            }
        }
    }

    private let state: ScheduleState
    private let inspections = Admission(limit: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    /// One expansion for later times at a time: queries that need it wait for it, others do not.
    private let covers = Admission(limit: 1)

    /// - Parameters:
    ///   - displayZone: an IANA zone name, `UTC`, or a Windows zone name.
    ///   - defaultEventDuration: how long a timed event without DTEND or DURATION lasts.
    ///   - reader: where libical runs (`.helper` in the daemon and the CLI).
    ///   - lastGoodDirectory: a folder of its own where the last good version of every feed file
    ///     is kept, so a file that breaks while marquee is not running still shows its old version.
    ///   - words: the language of dates and times in messages, the idle text and the orientation line.
    ///   - orientation: the orientation line's settings (nil: no line).
    ///   - screenOff: when the screen is dark (nil: never).
    package init(
        displayZone: String, defaultEventDuration: Int64 = 3600, limits: ScheduleLimits = .init(),
        reader: FeedReader = .inProcess, lastGoodDirectory: String? = nil, words: CalendarWords = .init(),
        orientation: OrientationSettings? = nil, screenOff: DarkHours? = nil
    ) async throws {
        state = try await ScheduleState(
            displayZone: displayZone, defaultEventDuration: defaultEventDuration, limits: limits, reader: reader,
            lastGoodDirectory: lastGoodDirectory, words: words, orientation: orientation, screenOff: screenOff)
    }

    /// Loads (or reloads) feed files and folders: a folder contributes its `*.ics` files
    /// (hidden ones, such as editors' temporary files, are skipped). Returns each file's state.
    /// - Parameter around: where the first queries will be (saves expanding twice).
    /// - Parameter ahead: how far after `around` they reach, in seconds (a day, unless told:
    ///   `check` looks a year ahead, and reads each file once for it).
    /// - Parameter fetched: calendars fetched from an address, read from their copies on disk
    ///   (or as held in memory) and named by their address (one with neither is left out).
    /// - Parameter progress: called with their states each time files read so far were put in
    ///   effect while others are still being read (a file that hangs libical holds up only itself).
    ///
    /// The files are read beside the schedule's actor: the messages of now, an agenda or a
    /// snapshot are answered meanwhile from what is in effect.
    @discardableResult package func load(
        _ paths: [String], fetched: [FetchedFeed] = [], around instant: Instant? = nil, ahead: Int64? = nil,
        progress: (@Sendable ([FeedStatus]) -> Void)? = nil
    ) async -> [FeedStatus] {
        let (generation, requests) = await state.beginLoad(paths, fetched: fetched, around: instant, ahead: ahead)
        guard !requests.isEmpty else { return await state.finishLoad([], generation: generation) }
        let (reader, limits) = (state.reader, state.limits)
        let (arrivals, arriving) = AsyncStream.makeStream(of: [(index: Int, expansion: FeedExpansion)].self)
        async let expansions = {
            let expansions = await reader.expandBeside(requests, limits: limits) { arriving.yield($0) }
            arriving.finish()
            return expansions
        }()
        for await arrived in arrivals {
            let taken = await state.takeArrived(arrived, generation: generation)
            if !taken.isEmpty { progress?(taken) }
        }
        return await state.finishLoad(await expansions, generation: generation)
    }

    /// Expands the files further for a query from `instant` to `through` when their expansions
    /// do not reach it, beside the actor: a file read again for tomorrow (or one that hangs
    /// libical there) never holds up the messages of now.
    private func cover(_ instant: Int64, through: Int64) async {
        guard await !state.isCovered(instant, through: through) else { return }
        await covers.enter()
        if let plan = await state.planCover(instant, through: through) {
            let expansions = plan.requests.isEmpty ? [] : await state.reader.expandBeside(plan.requests, limits: state.limits)
            await state.finishCover(plan, expansions)
        }
        await covers.leave()
    }

    /// What a calendar's bytes would give, without putting them in effect: how many events,
    /// its problems (named `name`), and how often it asks to be fetched again.
    /// It runs beside the schedule, not on its actor: a big calendar fetched never holds up
    /// the messages of now or a feed file that changed.
    /// A few at a time (the cores' count): ten big calendars fetched at once are not all held
    /// in memory twice at once.
    package func inspect(_ bytes: [UInt8], name: String) async -> FeedInspection {
        await inspections.enter()
        let (request, reader, limits) = await state.inspection(of: bytes, name: name)
        let expansion = await reader.expandBeside([request], limits: limits)[0]
        await inspections.leave()
        return FeedInspection(eventCount: expansion.eventCount, problems: expansion.problems,
                              refreshSeconds: expansion.refreshSeconds)
    }

    /// The fetched calendars as they are now, for the next reload (a calendar held in memory
    /// is replaced by value).
    package func replaceFetched(_ fetched: [FetchedFeed]) async {
        await state.replaceFetched(fetched)
    }

    /// Loads the same files and folders again.
    @discardableResult package func reload(progress: (@Sendable ([FeedStatus]) -> Void)? = nil) async -> [FeedStatus] {
        let (paths, fetched) = await (state.sources, state.fetchedSources)
        return await load(paths, fetched: fetched, progress: progress)
    }

    /// The zone the display shows times in; floating times and all-day dates are read in it.
    package var displayZoneName: String {
        get async { await state.displayZoneName }
    }

    /// Shows times in another zone from now on (the system's zone changed): every file is
    /// read again, since floating times and all-day dates depend on the zone.
    package func setDisplayZone(_ name: String) async throws {
        if try await state.setDisplayZone(name) { await reload() }
    }

    /// Counts and writes times as `settings` say from now on (a carer's reload); a new zone
    /// or default length of an event reads every file again.
    package func apply(_ settings: ScheduleSettings) async throws {
        if try await state.apply(settings) { await reload() }
    }

    /// Every feed file and its state, including problems found while expanding recurrences.
    package var feeds: [FeedStatus] {
        get async { await state.feeds }
    }

    /// The messages active at `instant`, in display order, each text once.
    package func messages(at instant: Instant) async -> [Message] {
        await cover(instant.secondsSinceEpoch, through: instant.secondsSinceEpoch)
        return await state.messages(at: instant)
    }

    /// The first instant after `instant` at which a message starts or ends, or nil if none
    /// does within about a year and two months.
    package func nextChange(after instant: Instant) async -> Instant? {
        await cover(instant.secondsSinceEpoch, through: instant.secondsSinceEpoch)
        return await state.nextChange(after: instant)
    }

    /// The messages at `instant` and until when they hold, computed in one step.
    package func snapshot(at instant: Instant) async -> ScheduleSnapshot {
        await cover(instant.secondsSinceEpoch, through: instant.secondsSinceEpoch)
        return await state.snapshot(at: instant)
    }

    /// The messages already active at `from`, then every start and end of a message text up
    /// to `to`, or to where a file's expansion was cut (by its budget or its deadline) or to
    /// `limit` changes.
    package func agenda(from: Instant, to: Instant, limit: Int = 10_000) async -> Agenda {
        await cover(from.secondsSinceEpoch, through: to.secondsSinceEpoch)
        return await state.agenda(from: from, to: to, limit: limit)
    }

    /// An instant with the display zone's UTC offset at that instant.
    package func zoned(_ instant: Instant) async -> ZonedTime {
        await state.zoned(instant)
    }

    /// The instant a wall-clock reading in the display zone stands for (RFC 5545 §3.3.5).
    package func instant(ofLocal wall: CivilDateTime) async -> Instant {
        await state.instant(ofLocal: wall)
    }

    /// The instant a command-line time stands for; local times are read in the display zone.
    package func instant(of time: TimeArgument) async -> Instant {
        switch time {
        case .instant(let instant): instant
        case .local(let wall): await instant(ofLocal: wall)
        }
    }
}

/// A calendar fetched from an address (a subscription): its copy on disk, read like a feed
/// file — or the calendar itself when no copy is kept (a one-shot command keeps none, and a
/// state folder that is read-only, full or missing cannot) — and the name it goes by in
/// problems, messages and status (the address, its secrets hidden).
package struct FetchedFeed: Sendable, Hashable {
    package var name: String
    /// Where its copy is (nil: none is kept).
    package var file: String?
    /// The calendar held in memory, read instead of the copy (nil: the copy is read).
    package var held: [UInt8]?

    package init(name: String, file: String?, held: [UInt8]? = nil) {
        self.name = name
        self.file = file
        self.held = held
    }
}

/// What a calendar's bytes would give if they were put in effect.
package struct FeedInspection: Sendable, Hashable {
    package var eventCount: Int
    package var problems: [FeedProblem]
    /// How often the calendar asks to be fetched again, in seconds (REFRESH-INTERVAL).
    package var refreshSeconds: Int64?
}

/// What a display needs from the schedule at an instant: the messages to show and until
/// when they hold (the next change, or local midnight, when the idle date changes).
package struct ScheduleSnapshot: Sendable {
    package var messages: [Message]
    /// The next change of messages, local midnight (the idle date changes) or a change of the
    /// display zone's UTC offset, whichever comes first, with the zone's offset then.
    package var validUntil: ZonedTime
    /// The display zone's UTC offset from the snapshot's instant until `validUntil` (seconds east).
    package var utcOffset: Int
    /// Today's date written out, shown when nothing is scheduled.
    package var idleText: String
    /// The day, the part of it and the date in words ("Monday morning · 23 November 2026"),
    /// when the display shows the orientation line; `validUntil` is no later than its next change.
    package var orientation: String?
    /// The part of the day, and when it began (for dimming at night and brightening in the
    /// morning); nil without day parts.
    package var partOfDay: (part: PartOfDay, began: Instant)?
    /// When the screen is lit again, while `screen_off` keeps it dark (nil: lit);
    /// `validUntil` is no later than the next start or end of the dark hours.
    package var darkUntil: ZonedTime?
    /// The feed files and their state.
    package var feeds: [FeedStatus]
    /// When a file the reader gave up on (it hung, used its time) is to be read again: the
    /// display reloads then (nil: none is).
    package var feedsReadAgainAt: Instant? = nil
    /// How a carer adds calendars, in the display's language, once the feeds were read and
    /// there is none — no file in any folder, no subscription (nil: there are calendars, or
    /// they were not read yet).
    package var addingCalendars: AddingCalendars? = nil
}

/// What the screen says while the box has no calendar: how to add one, through the carer's
/// page where it is served, else by copying files into the feed folder.
package struct AddingCalendars: Sendable, Hashable {
    /// With `{address}` where the page's address goes.
    package var throughPage: String
    /// With the folder named.
    package var throughFolder: String
    /// With `{problem}` where what the carer's setup file could not use goes ("page_password:
    /// must be at least 8 characters"): said instead, while there is such a problem.
    package var setupFileProblem: String

    /// The words for the page at `address`, or for the folder when there is no page.
    package func words(pageAddress address: String?) -> String {
        address.map { address in fillPlaceholders(throughPage) { $0 == "address" ? address : nil } } ?? throughFolder
    }

    /// The words for what the setup file could not use (the carer setting the box up is the
    /// one who looks at it then).
    package func words(setupProblem problem: String) -> String {
        fillPlaceholders(setupFileProblem) { $0 == "problem" ? problem : nil }
    }
}

/// How a schedule counts and writes time, as the configuration says: what a carer's reload
/// may change without a restart.
package struct ScheduleSettings: Sendable, Hashable {
    /// An IANA zone name, `UTC`, or a Windows zone name.
    package var displayZone: String
    package var words: CalendarWords
    /// nil: no orientation line.
    package var orientation: OrientationSettings?
    /// How long a timed event without DTEND or DURATION lasts, in seconds.
    package var defaultEventDuration: Int64
    /// When the screen is dark (`screen_off`; nil: never).
    package var screenOff: DarkHours?

    package init(displayZone: String, words: CalendarWords, orientation: OrientationSettings?, defaultEventDuration: Int64,
                screenOff: DarkHours? = nil) {
        self.displayZone = displayZone
        self.words = words
        self.orientation = orientation
        self.defaultEventDuration = defaultEventDuration
        self.screenOff = screenOff
    }
}

/// The hours a carer asked the screen to be dark (`screen_off`), in the display zone's local
/// time: a bedroom's screen that is lit only for a reminder. Never by default.
package enum DarkHours: Sendable, Hashable {
    /// The night part of the day.
    case night
    /// From one minute after midnight to another (`23:00-06:30` spans midnight); never empty
    /// and never the whole day.
    case between(start: Int, end: Int)
}

/// The orientation line: the day and the part of it, the date, and if asked the time, in
/// words, for those who lose track of time first (dementia day clocks).
package struct OrientationSettings: Sendable, Hashable {
    package var parts: DayParts
    /// Whether the line is shown (the parts of the day count for the night all the same).
    package var showsLine: Bool
    /// The time of day too ("· 10:41"); the line then changes every minute.
    package var showsTime: Bool

    package init(parts: DayParts = .init(), showsLine: Bool = true, showsTime: Bool = false) {
        self.parts = parts
        self.showsLine = showsLine
        self.showsTime = showsTime
    }
}
