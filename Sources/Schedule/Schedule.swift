#if canImport(Glibc)
    import Glibc
#endif

/// The messages of a set of iCalendar feeds over time: which are active at an instant, in
/// display order, when that set next changes, and an agenda of changes. Reads files only
/// when told to (`load`); never reads the machine's clock or time zone — both are
/// parameters. A file that stops parsing keeps its last good version in effect.
@ICalActor public final class Schedule {
    public enum ConfigurationError: Error, CustomStringConvertible {
        case unknownTimeZone(String)

        public var description: String {
            switch self {
            case .unknownTimeZone(let name):
                "unknown time zone \"\(name)\" (expected an IANA name such as Europe/Berlin; is tzdata installed?)"
            }
        }
    }

    /// The zone the display shows times in; floating times and all-day dates are read in it.
    public private(set) var displayZoneName: String
    private var context: ExpansionContext
    /// Where last good copies of the feed files are kept, so they survive a restart.
    private let lastGoodDirectory: String?
    private var sources: [String] = []
    private var statuses: [FeedStatus] = []
    /// Per file path: the version in effect, and whether it parsed without errors.
    private var inEffect: [String: (feed: FeedIndex, isGood: Bool)] = [:]
    private var index = ScheduleIndex(feeds: [])

    /// - Parameters:
    ///   - displayZone: an IANA zone name, `UTC`, or a Windows zone name.
    ///   - defaultEventDuration: how long a timed event without DTEND or DURATION lasts.
    ///   - lastGoodDirectory: a folder of its own where the last good version of every feed file
    ///     is kept, so a file that breaks while marquee is not running still shows its old version.
    public init(
        displayZone: String, defaultEventDuration: Int64 = 3600, limits: ScheduleLimits = .init(),
        lastGoodDirectory: String? = nil
    ) throws {
        ICalActor.ensureConfigured()
        guard let zone = SystemZones.zone(named: displayZone) else {
            throw ConfigurationError.unknownTimeZone(displayZone)
        }
        displayZoneName = displayZone
        context = ExpansionContext(displayZone: zone, defaultDuration: defaultEventDuration, limits: limits)
        self.lastGoodDirectory = lastGoodDirectory
    }

    /// Loads (or reloads) feed files and folders: a folder contributes its `*.ics` files
    /// (hidden ones, such as editors' temporary files, are skipped). Returns each file's state.
    @discardableResult public func load(_ paths: [String]) -> [FeedStatus] {
        sources = paths
        var seen: Set<String> = []
        var statuses: [FeedStatus] = []
        var feeds: [FeedIndex] = []
        for path in paths {
            let files: [String]
            switch feedFiles(in: path) {
            case .failure(let problem):
                statuses.append(FeedStatus(path: path, state: .failed(keptLastGood: false), problems: [problem],
                                           eventCount: 0))
                continue
            case .success(let found):
                files = found
            }
            for file in files where seen.insert(file).inserted {
                let copy = lastGoodDirectory.map { $0 + "/" + escapedFileName(file) }
                let parsed = CalendarFile(path: file, goodCopy: copy, displayZone: context.displayZone,
                                          limits: context.limits)
                let state: FeedStatus.State
                if !parsed.hasErrors {
                    inEffect[file] = (FeedIndex(file: parsed, context: context), true)
                    state = .loaded
                } else if let previous = inEffect[file], previous.isGood {
                    state = .failed(keptLastGood: true)
                } else if let saved = copy.map({
                    CalendarFile(path: file, readingFrom: $0, displayZone: context.displayZone, limits: context.limits)
                }), !saved.hasErrors {
                    inEffect[file] = (FeedIndex(file: saved, context: context), true)
                    state = .failed(keptLastGood: true)
                } else {
                    inEffect[file] = (FeedIndex(file: parsed, context: context), false)
                    state = .failed(keptLastGood: false)
                }
                let feed = inEffect[file]!.feed
                feeds.append(feed)
                statuses.append(FeedStatus(path: file, state: state, problems: parsed.problems,
                                           eventCount: feed.file.eventCount))
            }
        }
        inEffect = inEffect.filter { seen.contains($0.key) }
        if let lastGoodDirectory { forgetCopies(in: lastGoodDirectory, keeping: seen) }
        self.statuses = statuses
        index = ScheduleIndex(feeds: feeds)
        return statuses
    }

    /// Shows times in another zone from now on (the system's zone changed): every file is
    /// read again, since floating times and all-day dates depend on the zone.
    public func setDisplayZone(_ name: String) throws {
        guard let zone = SystemZones.zone(named: name) else { throw ConfigurationError.unknownTimeZone(name) }
        displayZoneName = name
        context = ExpansionContext(displayZone: zone, defaultDuration: context.defaultDuration, limits: context.limits)
        inEffect = [:]
        reload()
    }

    /// Loads the same files and folders again.
    @discardableResult public func reload() -> [FeedStatus] {
        load(sources)
    }

    /// Every feed file and its state, including problems found while expanding recurrences.
    public var feeds: [FeedStatus] {
        statuses.map { status in
            var status = status
            if let feed = inEffect[status.path]?.feed { status.problems += feed.warnings }
            return status
        }
    }

    /// The messages active at `instant`, in display order, each text once.
    public func messages(at instant: Instant) -> [Message] {
        var messages = index.activations(at: instant.secondsSinceEpoch).map(message(for:))
        messages.sort(by: Message.displayOrder)
        var seen: Set<String> = []
        return messages.filter { seen.insert($0.text).inserted }
    }

    /// The first instant after `instant` at which a message starts or ends, or nil if none
    /// does within about a year and two months.
    public func nextChange(after instant: Instant) -> Instant? {
        index.nextBoundary(after: instant.secondsSinceEpoch).map(Instant.init(secondsSinceEpoch:))
    }

    /// The messages already active at `from`, then every start and end of a message text up
    /// to `to` (at most `limit` changes).
    public func agenda(from: Instant, to: Instant, limit: Int = 10_000) -> [AgendaEntry] {
        var active = messages(at: from)
        var entries = active.map { AgendaEntry(at: context.displayZone.zoned(from.secondsSinceEpoch), change: .active, message: $0) }
        var now = from
        while entries.count < limit, let next = nextChange(after: now), next < to {
            let current = messages(at: next)
            let at = context.displayZone.zoned(next.secondsSinceEpoch)
            let before = Set(active.map(\.text))
            let after = Set(current.map(\.text))
            for message in active where !after.contains(message.text) {
                entries.append(AgendaEntry(at: at, change: .end, message: message))
            }
            for message in current where !before.contains(message.text) {
                entries.append(AgendaEntry(at: at, change: .start, message: message))
            }
            active = current
            now = next
        }
        return Array(entries.prefix(limit))
    }

    /// An instant with the display zone's UTC offset at that instant.
    public func zoned(_ instant: Instant) -> ZonedTime {
        context.displayZone.zoned(instant.secondsSinceEpoch)
    }

    /// The instant a wall-clock reading in the display zone stands for (RFC 5545 §3.3.5).
    public func instant(ofLocal wall: CivilDateTime) -> Instant {
        Instant(secondsSinceEpoch: context.displayZone.instant(of: wall))
    }

    private func message(for activation: Activation) -> Message {
        let record = activation.record
        let zone = context.displayZone
        let template = activation.alarmText ?? record.text
        let text = fillPlaceholders(template) { name in
            switch name {
            case "age": String(activation.age)
            case "start": zone.zoned(activation.occurrenceStart).wallClock.clock()
            case "end": zone.zoned(activation.occurrenceEnd).wallClock.clock()
            case "date": zone.zoned(activation.occurrenceStart).wallClock.date.dayAndMonth
            default: nil
            }
        }
        return Message(
            text: text, start: zone.zoned(activation.start), end: zone.zoned(activation.end),
            source: activation.source, uid: record.uid, kind: activation.kind, priority: record.priority,
            color: record.color, effect: record.effect)
    }
}

/// One change in an agenda.
public struct AgendaEntry: Hashable, Sendable {
    public enum Change: String, Hashable, Sendable {
        /// Already active when the agenda starts.
        case active
        case start
        case end
    }

    public var at: ZonedTime
    public var change: Change
    public var message: Message
}

/// A feed file's path as one file name (for its last good copy): `%` and `/` escaped.
func escapedFileName(_ path: String) -> String {
    path.replacing("%", with: "%25").replacing("/", with: "%2F") + ".last-good"
}

/// Removes the last good copies of files that are no longer feeds (deleted from the folder).
func forgetCopies(in directory: String, keeping paths: Set<String>) {
    let wanted = Set(paths.map(escapedFileName))
    for name in directoryEntries(directory) ?? [] where name.hasSuffix(".last-good") && !wanted.contains(name) {
        unlink(directory + "/" + name)
    }
}

/// The names in a folder, or nil (with `errno` set) if it cannot be listed.
func directoryEntries(_ path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    return names
}

/// Replaces `{name}` with what `value(name)` gives; unknown names stay as written.
func fillPlaceholders(_ template: String, _ value: (String) -> String?) -> String {
    guard template.contains("{") else { return template }
    var result = ""
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{") {
        result += rest[..<open]
        guard let close = rest[open...].firstIndex(of: "}") else { break }
        let name = String(rest[rest.index(after: open)..<close])
        result += value(name) ?? "{\(name)}"
        rest = rest[rest.index(after: close)...]
    }
    return result + rest
}

/// The feed files a path stands for: the path itself, or a folder's `*.ics` files.
func feedFiles(in path: String) -> Result<[String], FeedProblem> {
    var info = stat()
    guard stat(path, &info) == 0 else {
        let reason = errno == ENOENT ? "does not exist" : String(cString: strerror(errno))
        return .failure(FeedProblem(severity: .error, path: path, line: nil, message: "cannot read: \(reason)"))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else { return .success([path]) }
    guard let entries = directoryEntries(path) else {
        return .failure(FeedProblem(severity: .error, path: path, line: nil,
                                    message: "cannot list the folder: \(String(cString: strerror(errno)))"))
    }
    let names = entries.filter { !$0.hasPrefix(".") && $0.lowercased().hasSuffix(".ics") }
    let folder = path.hasSuffix("/") ? path : path + "/"
    return .success(names.sorted().map { folder + $0 })
}
