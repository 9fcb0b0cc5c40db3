import Support
#if canImport(Glibc)
    import Glibc
#endif

/// What `Schedule` holds and computes, on libical's actor: the feeds in effect, their
/// expansions and the index over them.
@ICalActor final class ScheduleState {
    /// The zone the display shows times in; floating times and all-day dates are read in it.
    private(set) var displayZoneName: String
    private var displayZone: Zone
    private var defaultDuration: Int64
    private let limits: ScheduleLimits
    private let reader: FeedReader
    /// Where last good copies of the feed files are kept, so they survive a restart.
    private let lastGoodDirectory: String?
    private var sources: [String] = []
    private var fetchedSources: [FetchedFeed] = []
    /// The names of the fetched calendars: their copies on disk are last good versions already.
    private var fetchedNames: Set<String> = []
    private var statuses: [FeedStatus] = []
    /// Per file path: the version in effect.
    private var inEffect: [String: FeedInEffect] = [:]
    /// The files in effect, in the order of `statuses`.
    private var order: [String] = []
    private var index = ScheduleIndex(feeds: [])
    /// Where expansions start; nil until a load or a query names an instant.
    private var focus: Int64?
    /// The language dates and times are written in.
    private var words: CalendarWords
    /// The orientation line's settings (nil: no line).
    private var orientation: OrientationSettings?
    /// Dates and times written out already: ICU is asked once for each.
    private var written: [WrittenKey: String] = [:]

    private struct WrittenKey: Hashable {
        enum Kind: Hashable { case clock, date, dayAndMonth, fullDate, dayAndPart(PartOfDay) }
        var kind: Kind
        var time: CivilDateTime
    }

    /// A file's version in effect: where its bytes are (to expand again for later times) and what they gave.
    private struct FeedInEffect {
        /// Where its bytes are, for expanding them further when time moves on.
        var source: FeedSource
        var expansion: FeedExpansion
        var isGood: Bool
        /// False once the reader gave up on these bytes (a hang or crash): they are not
        /// expanded again until the file is reloaded.
        var isExpandable = true
    }

    /// How far a load expands: the first query's day. Later times are expanded when a query
    /// reaches them (a file is then parsed again), so a load costs little more than libical's
    /// parse however far a file's repeats reach.
    private static let loadedSpan: Int64 = 86_400
    /// The farthest one expansion reaches.
    private static let longestSpan = 2 * Int64(ScheduleIndex.horizonWindows) * ScheduleIndex.windowSeconds

    /// - Parameters:
    ///   - displayZone: an IANA zone name, `UTC`, or a Windows zone name.
    ///   - defaultEventDuration: how long a timed event without DTEND or DURATION lasts.
    ///   - reader: where libical runs (`.helper` in the daemon and the CLI).
    ///   - lastGoodDirectory: a folder of its own where the last good version of every feed file
    ///     is kept, so a file that breaks while marquee is not running still shows its old version.
    ///   - words: the language of dates and times in messages, the idle text and the orientation line.
    ///   - orientation: the orientation line's settings (nil: no line).
    init(
        displayZone: String, defaultEventDuration: Int64 = 3600, limits: ScheduleLimits = .init(),
        reader: FeedReader = .inProcess, lastGoodDirectory: String? = nil, words: CalendarWords = .init(),
        orientation: OrientationSettings? = nil
    ) throws {
        ICalActor.ensureConfigured()
        guard let zone = SystemZones.zone(named: displayZone) else {
            throw Schedule.ConfigurationError.unknownTimeZone(displayZone)
        }
        displayZoneName = displayZone
        self.displayZone = zone
        defaultDuration = defaultEventDuration
        self.limits = limits
        self.reader = reader
        self.lastGoodDirectory = lastGoodDirectory
        self.words = words
        self.orientation = orientation
    }

    /// A date or time in the display's language, from ICU once and then remembered.
    private func write(_ kind: WrittenKey.Kind, _ time: CivilDateTime) -> String {
        let key = WrittenKey(kind: kind, time: time)
        if let known = written[key] { return known }
        let text = switch kind {
        case .clock: words.clock(time)
        case .dayAndMonth: words.dayAndMonth(time.date)
        case .fullDate: words.fullDate(time.date)
        case .date: words.date(time.date)
        case .dayAndPart(let part): words.dayAndPart(part, on: time.date)
        }
        if written.count > 10_000 { written.removeAll() }
        written[key] = text
        return text
    }

    /// The orientation line at the wall-clock reading `wall`, in `part` of the day, and the
    /// reading at which it next changes on the same day (nil: at midnight).
    private func orientationLine(at wall: CivilDateTime, part: PartOfDay, _ settings: OrientationSettings)
        -> (text: String, next: CivilDateTime?)
    {
        let minute = wall.hour * 60 + wall.minute
        let day = CivilDateTime(date: wall.date)
        var text = write(.dayAndPart(part), day) + " · " + write(.date, day)
        var next = settings.parts.nextStart(after: minute).map { CivilDateTime(date: wall.date, hour: $0 / 60, minute: $0 % 60) }
        if settings.showsTime {
            let shown = CivilDateTime(date: wall.date, hour: wall.hour, minute: wall.minute)
            text += " · " + write(.clock, shown)
            let nextMinute = shown.adding(seconds: 60)
            next = nextMinute.date == wall.date ? min(next ?? nextMinute, nextMinute) : next
        }
        return (text, next)
    }

    /// Loads (or reloads) feed files and folders: a folder contributes its `*.ics` files
    /// (hidden ones, such as editors' temporary files, are skipped). Returns each file's state.
    /// - Parameter around: where the first queries will be (saves expanding twice).
    /// - Parameter ahead: how far after it they reach, in seconds (a day by default).
    @discardableResult func load(
        _ paths: [String], fetched: [FetchedFeed] = [], around instant: Instant? = nil, ahead: Int64? = nil
    ) -> [FeedStatus] {
        if let instant { focus = instant.secondsSinceEpoch }
        sources = paths
        fetchedSources = fetched
        fetchedNames = Set(fetched.map(\.name))
        var statuses: [FeedStatus] = []
        var files: [String] = []
        var systemPaths: [String: [UInt8]] = [:]
        // What was shown from a folder that cannot be listed now (gone, or its permissions
        // changed) stays: that is not "every file was deleted".
        var kept: [String] = []
        var someSourceUnreadable = false
        for path in paths {
            switch feedFiles(in: path) {
            case .failure(let problem):
                someSourceUnreadable = true
                let shown = keepShown(under: path)
                kept += shown
                let note = shown.isEmpty ? "" : "; the \(shown.count) file(s) shown before stay in effect"
                statuses.append(FeedStatus(
                    path: path, state: .failed(keptLastGood: !shown.isEmpty),
                    problems: [FeedProblem(severity: .error, path: path, line: nil, message: problem.message + note)],
                    eventCount: 0))
                statuses += shown.map { file in
                    FeedStatus(path: file, state: .failed(keptLastGood: true), problems: [],
                               eventCount: inEffect[file]?.expansion.eventCount ?? 0)
                }
            case .success(let found):
                for file in found where systemPaths[file.path] == nil {
                    files.append(file.path)
                    systemPaths[file.path] = file.systemPath
                }
            }
        }
        var contents: [String: Result<[UInt8], FileReadError>] = [:]
        for feed in fetched where systemPaths[feed.name] == nil && contents[feed.name] == nil {
            if let held = feed.held {
                contents[feed.name] = .success(held)
            } else if let copy = feed.file, access(copy, F_OK) == 0 {
                systemPaths[feed.name] = Array(copy.utf8)
            } else {
                continue
            }
            files.append(feed.name)
        }
        var total = contents.values.reduce(0) { $0 + ((try? $1.get().count) ?? 0) }
        for file in files where contents[file] == nil {
            let read = readFile(systemPath: systemPaths[file]!, limit: limits.maximumFileBytes)
            total += (try? read.get().count) ?? 0
            contents[file] = total <= limits.maximumTotalBytes ? read : .failure(FileReadError(
                message: "not read: the feed files together pass \(megabytes(limits.maximumTotalBytes)), "
                    + "the most marquee reads at once; move some calendars out of the folder"))
        }
        // A file whose bytes are those in effect keeps its expansion: a reload after one file
        // changed starts one reader, not one per file.
        var attemptByFile: [String: FeedExpansion] = [:]
        var unchanged: Set<String> = []
        var changed: [(String, [UInt8])] = []
        for file in files {
            guard case .success(let bytes)? = contents[file] else { continue }
            if let current = inEffect[file], current.source.holds(bytes) {
                attemptByFile[file] = current.expansion
                unchanged.insert(file)
            } else {
                changed.append((file, bytes))
            }
        }
        // Queries up to `ahead` ask for the next change after them too, which looks a horizon further.
        let horizon = Int64(ScheduleIndex.horizonWindows + 1) * ScheduleIndex.windowSeconds
        let span = min(Self.longestSpan, ahead.map { $0 + horizon } ?? Self.loadedSpan)
        for ((file, _), attempt) in zip(changed, expand(changed, span: span)) {
            attemptByFile[file] = attempt
        }
        var needCopies: [LastGoodCopy] = []
        for file in files where (attemptByFile[file]?.hasErrors ?? true) && !(inEffect[file]?.isGood ?? false) {
            if let copy = lastGoodCopy(of: file), case .success(let bytes) = readFile(copy, limit: limits.maximumFileBytes) {
                needCopies.append(LastGoodCopy(file: file, path: copy, bytes: bytes))
            }
        }
        let (copyByFile, damagedCopies) = usableVersions(needCopies)
        for file in files {
            var problems: [FeedProblem]
            let state: FeedStatus.State
            switch contents[file] {
            case .success(let bytes)?:
                let attempt = attemptByFile[file] ?? FeedExpansion()
                problems = attempt.problems
                let choice = VersionChoice(
                    isUnchanged: unchanged.contains(file), readsWell: !attempt.hasErrors,
                    shownIsGood: inEffect[file]?.isGood == true, hasUsableCopy: copyByFile[file] != nil)
                switch choice.outcome {
                case .keepsItsVersion:
                    break
                case .takesTheNewVersion:
                    // Kept in memory only where no file on disk holds it (no copy is kept, or
                    // the copy could not be written): the last good copy, a subscription's copy.
                    var source = FeedSource.memory(bytes)
                    var saveProblem: FeedProblem?
                    if let copy = lastGoodCopy(of: file) {
                        saveProblem = saveCopy(bytes, of: file, to: copy)
                        if saveProblem == nil { source = .disk(Array(copy.utf8), FeedFingerprint(bytes)) }
                    } else if fetchedNames.contains(file), let path = systemPaths[file] {
                        source = .disk(path, FeedFingerprint(bytes))
                    }
                    inEffect[file] = FeedInEffect(source: source, expansion: attempt, isGood: true)
                    if let saveProblem { inEffect[file]?.expansion.problems.append(saveProblem) }
                case .keepsWhatIsShown:
                    break
                case .takesTheLastGoodCopy:
                    inEffect[file] = copyByFile[file]
                case .showsWhatItCan:
                    inEffect[file] = FeedInEffect(source: systemPaths[file].map { .disk($0, FeedFingerprint(bytes)) } ?? .memory(bytes),
                                                  expansion: attempt, isGood: false, isExpandable: !attempt.readerGaveUp)
                }
                state = choice.state
            case .failure(let error)?:
                problems = [FeedProblem(severity: .error, path: file, line: nil, message: error.message)]
                if inEffect[file]?.isGood != true { inEffect[file] = copyByFile[file] }
                state = .failed(keptLastGood: inEffect[file] != nil)
            case nil:
                continue
            }
            if let damage = damagedCopies[file] { problems.append(damage) }
            statuses.append(FeedStatus(path: file, state: state, problems: problems,
                                       eventCount: inEffect[file]?.expansion.eventCount ?? 0))
        }
        let seen = Set(files + kept)
        inEffect = inEffect.filter { seen.contains($0.key) }
        order = (files + kept).filter { inEffect[$0] != nil }
        if let lastGoodDirectory, !someSourceUnreadable {
            forgetCopies(in: lastGoodDirectory, keeping: seen.subtracting(fetchedNames))
        }
        self.statuses = statuses
        rebuildIndex()
        return statuses
    }

    /// Shows times in another zone from now on (the system's zone changed): a new zone has every
    /// file read again, since floating times and all-day dates depend on it.
    func setDisplayZone(_ name: String) throws {
        try apply(ScheduleSettings(displayZone: name, words: words, orientation: orientation,
                                   defaultEventDuration: defaultDuration))
    }

    /// How times are counted and written from now on. A new zone or default length of an
    /// event has every file read again (floating times, all-day dates and events without an end
    /// depend on them); a new language or orientation line changes only what is written.
    func apply(_ settings: ScheduleSettings) throws {
        guard let zone = SystemZones.zone(named: settings.displayZone) else {
            throw Schedule.ConfigurationError.unknownTimeZone(settings.displayZone)
        }
        if settings.words != words || settings.orientation != orientation {
            words = settings.words
            orientation = settings.orientation
            written = [:]
        }
        guard settings.displayZone != displayZoneName || settings.defaultEventDuration != defaultDuration else { return }
        displayZoneName = settings.displayZone
        displayZone = zone
        defaultDuration = settings.defaultEventDuration
        inEffect = [:]
        reload()
    }

    /// The fetched calendars the next reload reads.
    func replaceFetched(_ fetched: [FetchedFeed]) {
        fetchedSources = fetched
        fetchedNames = Set(fetched.map(\.name))
    }

    /// Loads the same files and folders again.
    @discardableResult func reload() -> [FeedStatus] {
        load(sources, fetched: fetchedSources)
    }

    /// What inspects a calendar's bytes without putting them in effect, and where it runs.
    func inspection(of bytes: [UInt8], name: String) -> (request: ExpansionRequest, reader: FeedReader, limits: ScheduleLimits) {
        (requests([(name, bytes)], span: 0)[0], reader, limits)
    }

    /// Every feed file and its state, including problems found while expanding recurrences.
    var feeds: [FeedStatus] {
        statuses.map { status in
            var status = status
            if status.state == .loaded, let expansion = inEffect[status.path]?.expansion {
                status.problems = expansion.problems
            } else if status.state == .failed(keptLastGood: true), let expansion = inEffect[status.path]?.expansion {
                // What became of the version shown in its place.
                status.problems += expansion.problems.filter { !status.problems.contains($0) }
            }
            return status
        }
    }

    /// The files in effect from `source` (a folder, or a single file), or, when none are (at a
    /// start), their last good copies; each is kept in effect. Returns their paths.
    private func keepShown(under source: String) -> [String] {
        let folder = source.hasSuffix("/") ? source : source + "/"
        func isUnder(_ file: String) -> Bool { file == source || file.hasPrefix(folder) }
        let shown = order.filter(isUnder)
        guard shown.isEmpty, let lastGoodDirectory else { return shown }
        var copies: [LastGoodCopy] = []
        for entry in directoryEntries(lastGoodDirectory) ?? [] {
            let path = lastGoodDirectory + "/" + entry.name
            guard let file = originalPath(ofCopy: entry.name), isUnder(file),
                  case .success(let bytes) = readFile(path, limit: limits.maximumFileBytes)
            else { continue }
            copies.append(LastGoodCopy(file: file, path: path, bytes: bytes))
        }
        let restored = usableVersions(copies).usable
        inEffect.merge(restored) { _, copy in copy }
        return restored.keys.sorted()
    }

    /// A last good copy read from disk, for the file it stands in for.
    private struct LastGoodCopy {
        var file: String
        var path: String
        var bytes: [UInt8]
    }

    /// The versions among `copies` that expand without errors, by file: only those may stand
    /// in for a file; and, for the others (damaged on disk), what is wrong with them.
    private func usableVersions(_ copies: [LastGoodCopy]) -> (usable: [String: FeedInEffect], damaged: [String: FeedProblem]) {
        var usable: [String: FeedInEffect] = [:]
        var damaged: [String: FeedProblem] = [:]
        for (copy, expansion) in zip(copies, expand(copies.map { ($0.file, $0.bytes) }, span: Self.loadedSpan)) {
            if let damage = expansion.problems.first(where: { $0.severity == .error }) {
                damaged[copy.file] = FeedProblem(
                    severity: .warning, path: copy.file, line: nil,
                    message: "its last good copy (\(copy.path)) is damaged too, so it cannot stand in: \(damage.message)")
            } else {
                usable[copy.file] = FeedInEffect(
                    source: .disk(Array(copy.path.utf8), FeedFingerprint(copy.bytes)), expansion: expansion, isGood: true)
            }
        }
        return (usable, damaged)
    }

    /// The last good copy's path for a feed file, if copies are kept.
    private func lastGoodCopy(of file: String) -> String? {
        guard !fetchedNames.contains(file) else { return nil }
        return lastGoodDirectory.map { $0 + "/" + escapedFileName(file) }
    }

    /// Expansions of files' bytes over `span` seconds from the focus on (only parsed while
    /// there is no focus), each file with its share of the activation budget.
    private func expand(_ files: [(String, [UInt8])], span: Int64) -> [FeedExpansion] {
        guard !files.isEmpty else { return [] }
        return reader.expand(requests(files, span: span), limits: limits)
    }

    /// The requests that expand files' bytes over `span` seconds from the focus on.
    private func requests(_ files: [(String, [UInt8])], span: Int64) -> [ExpansionRequest] {
        files.map { file, bytes in
            ExpansionRequest(
                path: file, displayZone: displayZoneName, defaultDuration: defaultDuration, limits: limits,
                focus: focus ?? 0, span: focus == nil ? 0 : span,
                budget: min(limits.maximumActivationsPerFile, limits.maximumActivations / max(1, inEffect.count, files.count)),
                seconds: min(limits.maximumExpansionSecondsPerFile, limits.maximumExpansionSeconds / Double(files.count)),
                bytes: bytes)
        }
    }

    /// Expands again, from `instant` on, every file whose expansion does not reach from
    /// `instant` to `through`; an expansion cut short by its budget only needs `instant`.
    private func cover(_ instant: Int64, through: Int64) {
        let stale = order.filter { file in
            guard let feed = inEffect[file], feed.isExpandable else { return false }
            let coverage = feed.expansion.coverage
            return !coverage.contains(instant) || (!feed.expansion.isCut && coverage.upperBound < through)
        }
        guard !stale.isEmpty else { return }
        focus = instant
        let span = min(Self.longestSpan, max(ScheduleIndex.windowSeconds, through - instant + 1))
        var readable: [(String, [UInt8])] = []
        for file in stale {
            if let bytes = inEffect[file]!.source.bytes(limit: limits.maximumFileBytes) {
                readable.append((file, bytes))
            } else {
                inEffect[file]!.isExpandable = false
                inEffect[file]!.expansion.problems.append(FeedProblem(
                    severity: .warning, path: file, line: nil,
                    message: "the version shown cannot be read again from \(inEffect[file]!.source) (changed or gone); "
                        + "its later messages show after the next reload"))
            }
        }
        let results = expand(readable, span: span)
        for ((file, _), expansion) in zip(readable, results) {
            if expansion.readerGaveUp {
                inEffect[file]!.isExpandable = false
                inEffect[file]!.expansion.problems += expansion.problems
            } else {
                inEffect[file]!.expansion = expansion
            }
        }
        rebuildIndex()
    }

    private func rebuildIndex() {
        index = ScheduleIndex(feeds: order.map { inEffect[$0]!.expansion })
    }

    /// The messages active at `instant`, in display order, each text once.
    func messages(at instant: Instant) -> [Message] {
        cover(instant.secondsSinceEpoch, through: instant.secondsSinceEpoch)
        let messages = index.activations(at: instant.secondsSinceEpoch).map(message(for:))
        // Sorted by position: a message is large to move.
        let ordered = messages.indices.sorted { Message.displayOrder(messages[$0], messages[$1]) }
        var seen = Set<String>(minimumCapacity: messages.count)
        return ordered.lazy.map { messages[$0] }.filter { seen.insert($0.text).inserted }
    }

    /// The first instant after `instant` at which a message starts or ends, or nil if none
    /// does within about a year and two months.
    func nextChange(after instant: Instant) -> Instant? {
        let seconds = instant.secondsSinceEpoch
        cover(seconds, through: seconds)
        // What is expanded already may hold the answer; later windows are expanded only if not.
        if let next = knownChange(after: seconds), next < knownUntil { return shown(next) }
        cover(seconds, through: seconds + Int64(ScheduleIndex.horizonWindows + 1) * ScheduleIndex.windowSeconds)
        return knownChange(after: seconds).flatMap(shown)
    }

    /// The first start or end of an activation after `seconds` in the expansions, or where one
    /// of them was cut (what follows is computed then).
    private func knownChange(after seconds: Int64) -> Int64? {
        let cut = cutEnds().filter { $0 > seconds }.min()
        return [index.nextBoundary(after: seconds), cut].compactMap { $0 }.min()
    }

    /// Where the expansions that were cut (by a budget or a deadline) end: what follows is
    /// computed when time reaches it, or never for a file the reader gave up on.
    private func cutEnds(expandableOnly: Bool = false) -> [Int64] {
        order.compactMap { file in
            guard let feed = inEffect[file], feed.expansion.isCut, feed.isExpandable || !expandableOnly else { return nil }
            return feed.expansion.coverage.upperBound
        }
    }

    /// Until when every file's activations are known.
    private var knownUntil: Int64 {
        order.compactMap { inEffect[$0].flatMap { $0.isExpandable ? $0.expansion.coverage.upperBound : nil } }.min()
            ?? .max
    }

    /// The instant, if the display zone can write its year.
    private func shown(_ seconds: Int64) -> Instant? {
        displayZone.writableInstants.contains(seconds) ? Instant(secondsSinceEpoch: seconds) : nil
    }

    /// The messages already active at `from`, then every start and end of a message text up
    /// to `to`, or to where a file's expansion was cut (by its budget or its deadline) or to
    /// `limit` changes.
    func agenda(from: Instant, to: Instant, limit: Int = 10_000) -> Agenda {
        cover(from.secondsSinceEpoch, through: to.secondsSinceEpoch)
        let end = min(to, cutEnds(expandableOnly: true).min().map(Instant.init(secondsSinceEpoch:)) ?? to)
        var active = messages(at: from)
        var entries = active.map { AgendaEntry(at: displayZone.zoned(from.secondsSinceEpoch), change: .active, message: $0) }
        var now = from
        while entries.count < limit, let next = nextChange(after: now), next < end {
            let current = messages(at: next)
            let at = displayZone.zoned(next.secondsSinceEpoch)
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
        if entries.count >= limit {
            return Agenda(entries: Array(entries.prefix(limit)), stop: .limit(entries[limit - 1].at))
        }
        return Agenda(entries: entries, stop: end < to ? .cut(displayZone.zoned(end.secondsSinceEpoch)) : nil)
    }

    /// An instant with the display zone's UTC offset at that instant.
    func zoned(_ instant: Instant) -> ZonedTime {
        displayZone.zoned(instant.secondsSinceEpoch)
    }

    /// The instant a wall-clock reading in the display zone stands for (RFC 5545 §3.3.5).
    func instant(ofLocal wall: CivilDateTime) -> Instant {
        Instant(secondsSinceEpoch: displayZone.instant(of: wall))
    }

    /// The messages at `instant` and until when they hold.
    func snapshot(at instant: Instant) -> ScheduleSnapshot {
        let wall = zoned(instant).wallClock
        let today = wall.date
        let midnight = self.instant(ofLocal: CivilDateTime(date: today.adding(days: 1)))
        var next = nextChange(after: instant).map { min($0, midnight) } ?? midnight
        // The part of the day now and the minute it began.
        let current = orientation.map { (settings: $0, now: $0.parts.current(at: wall.hour * 60 + wall.minute)) }
        let line = current.map { orientationLine(at: wall, part: $0.now.part, $0.settings) }
        if let change = line?.next.map({ self.instant(ofLocal: $0) }), change > instant { next = min(next, change) }
        let offset = zoned(instant).utcOffset
        if zoned(next).utcOffset != offset { next = offsetChange(after: instant, before: next) }
        let partOfDay = current.map { current in
            let began = current.now.start
            let day = began < 0 ? today.adding(days: -1) : today
            let start = (began + 24 * 60) % (24 * 60)
            return (current.now.part, self.instant(ofLocal: CivilDateTime(date: day, hour: start / 60, minute: start % 60)))
        }
        return ScheduleSnapshot(
            messages: messages(at: instant), validUntil: zoned(next), utcOffset: offset,
            idleText: write(.fullDate, CivilDateTime(date: today)),
            orientation: orientation?.showsLine == true ? line?.text : nil, partOfDay: partOfDay, feeds: feeds)
    }

    /// The first second after `start` whose UTC offset differs from `start`'s, given that
    /// `end`'s does.
    private func offsetChange(after start: Instant, before end: Instant) -> Instant {
        let offset = zoned(start).utcOffset
        let seconds = start.secondsSinceEpoch + 1..<end.secondsSinceEpoch
        return Instant(secondsSinceEpoch: seconds.partitionPoint { zoned(Instant(secondsSinceEpoch: $0)).utcOffset == offset })
    }

    private func message(for entry: ScheduleIndex.Entry) -> Message {
        let activation = entry.activation
        let source = order[entry.feed]
        let template = index.feeds[entry.feed].templates[activation.template]
        let zone = displayZone
        let known = activation.age != EventActivation.unknownAge
        let text = fillPlaceholders(known ? template.text : withoutAge(template.text)) { name in
            switch name {
            case "age": String(activation.age)
            case "start": write(.clock, zone.zoned(activation.occurrenceStart).wallClock)
            case "end": write(.clock, zone.zoned(activation.occurrenceEnd).wallClock)
            case "date": write(.dayAndMonth, CivilDateTime(date: zone.zoned(activation.occurrenceStart).wallClock.date))
            default: nil
            }
        }
        let writable = zone.writableInstants
        let start = min(max(activation.start, writable.lowerBound), writable.upperBound)
        let end = min(max(activation.end, writable.lowerBound), writable.upperBound)
        return Message(
            text: text, start: zone.zoned(start), end: zone.zoned(end),
            source: source, uid: template.uid, kind: activation.kind, priority: template.priority,
            color: template.color, effect: template.effect)
    }
}

/// How the active messages change over a period.
public struct Agenda: Sendable {
    /// Why an agenda stops before the end of its period.
    public enum Stop: Hashable, Sendable {
        /// A file's messages from here on are computed later, when their time comes: it has more
        /// than its budget, or computing them took too long (its problems say which).
        case cut(ZonedTime)
        /// The agenda reached its limit of changes here.
        case limit(ZonedTime)
    }

    public var entries: [AgendaEntry]
    public var stop: Stop?
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

/// A feed file's path as one file name (for its last good copy): `%` and `/` escaped. A name
/// longer than a file name may be (255 bytes) keeps its start and ends in a hash of the path.
func escapedFileName(_ path: String) -> String {
    let escaped = path.replacing("%", with: "%25").replacing("/", with: "%2F")
    guard escaped.utf8.count > 200 else { return escaped + ".last-good" }
    let hash = stableHash(path)
    var start = ""
    for character in escaped {
        guard start.utf8.count + character.utf8.count <= 160 else { break }
        start.append(character)
    }
    return start + "~" + String(hash, radix: 16) + ".last-good"
}

/// Whether a file in a feed folder is a feed: `*.ics` (any case), not hidden (editors' and
/// sync tools' temporary files are).
public func isFeedFileName(_ name: String) -> Bool {
    !name.hasPrefix(".") && name.lowercased().hasSuffix(".ics")
}

/// The feed file a last good copy was kept for; nil for a copy whose long name was shortened.
func originalPath(ofCopy name: String) -> String? {
    guard name.hasSuffix(".last-good") else { return nil }
    let path = String(name.dropLast(".last-good".count)).replacing("%2F", with: "/").replacing("%25", with: "%")
    return escapedFileName(path) == name ? path : nil
}

/// Writes a last good copy atomically; a failure is a warning.
func saveCopy(_ bytes: [UInt8], of file: String, to destination: String) -> FeedProblem? {
    writeFileAtomically(bytes, to: destination).map { reason in
        FeedProblem(severity: .warning, path: file, line: nil, message: "cannot keep a last good copy in \(destination): \(reason)")
    }
}

/// Removes the last good copies of files that are no longer feeds (deleted from the folder).
func forgetCopies(in directory: String, keeping paths: Set<String>) {
    removeUnfinishedWrites(in: directory)
    let wanted = Set(paths.map(escapedFileName))
    for entry in directoryEntries(directory) ?? [] where entry.name.hasSuffix(".last-good") && !wanted.contains(entry.name) {
        unlink(directory + "/" + entry.name)
    }
}

/// Replaces `{name}` with what `value(name)` gives; unknown names stay as written.
func fillPlaceholders(_ template: String, _ value: (String) -> String?) -> String {
    guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
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

/// A message's text with `{age}` left out, for a birthday whose year is not known: with an
/// ordinal ending written onto it ("{age}th", "{age}e") and the space it leaves, so "Happy
/// {age}th birthday, Anna!" reads "Happy birthday, Anna!".
func withoutAge(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let range = rest.firstRange(of: "{age}") {
        result += rest[..<range.lowerBound]
        rest = rest[range.upperBound...]
        let ending = rest.prefix { $0.isLetter }
        if ending.count <= 2 { rest = rest.dropFirst(ending.count) }
    }
    result += rest
    var cleaned = ""
    for character in result {
        if character == " ", cleaned.last == " " || cleaned.isEmpty { continue }
        if ",.!?;:".contains(character), cleaned.last == " " { cleaned.removeLast() }
        cleaned.append(character)
    }
    return cleaned.last == " " ? String(cleaned.dropLast()) : cleaned
}

/// The feed files a path stands for: the path itself, or a folder's `*.ics` files.
func feedFiles(in path: String) -> Result<[FeedFile], FeedProblem> {
    var info = stat()
    guard stat(path, &info) == 0 else {
        let reason = errno == ENOENT ? "does not exist" : String(cString: strerror(errno))
        return .failure(FeedProblem(severity: .error, path: path, line: nil, message: "cannot read: \(reason)"))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else { return .success([FeedFile(path: path, systemPath: Array(path.utf8))]) }
    guard let entries = directoryEntries(path) else {
        return .failure(FeedProblem(severity: .error, path: path, line: nil,
                                    message: "cannot list the folder: \(String(cString: strerror(errno)))"))
    }
    let folder = path.hasSuffix("/") ? path : path + "/"
    return .success(entries.filter { isFeedFileName($0.name) }
        .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        .map { FeedFile(path: folder + $0.name, systemPath: Array(folder.utf8) + $0.bytes) })
}

/// A feed file: its path as shown, and as the system spells it (they differ where a name is
/// not UTF-8, as a Latin-1 `Müller.ics` copied from an old machine).
struct FeedFile {
    var path: String
    var systemPath: [UInt8]
}

/// Where the bytes of a version in effect are: in memory, or in a file that held exactly them
/// when they were read (its fingerprint tells whether it still does). Keeping thousands of
/// calendars' text in memory cost 3.7 times their size; a file on disk costs nothing.
enum FeedSource: CustomStringConvertible {
    case memory([UInt8])
    /// A file's path (as the system names it) and what its bytes were.
    case disk([UInt8], FeedFingerprint)

    /// The bytes, if they can still be had.
    func bytes(limit: Int) -> [UInt8]? {
        switch self {
        case .memory(let bytes):
            return bytes
        case .disk(let path, let fingerprint):
            guard case .success(let bytes) = readFile(systemPath: path, limit: limit), FeedFingerprint(bytes) == fingerprint
            else { return nil }
            return bytes
        }
    }

    /// Whether these are the bytes it stands for.
    func holds(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .memory(let kept): kept == bytes
        case .disk(_, let fingerprint): FeedFingerprint(bytes) == fingerprint
        }
    }

    var description: String {
        switch self {
        case .memory: "memory"
        case .disk(let path, _): String(decoding: path, as: UTF8.self)
        }
    }
}

/// Which version of a file is in effect after a load reads it, from what is known of it: the
/// one decision of a load, kept apart so every case of it is tested.
struct VersionChoice: Hashable {
    /// Its bytes are those of the version in effect.
    var isUnchanged: Bool
    /// The bytes read now give a usable calendar.
    var readsWell: Bool
    /// The version in effect (shown) is a good one.
    var shownIsGood: Bool
    /// A last good copy on disk can stand in.
    var hasUsableCopy: Bool

    enum Outcome: Hashable {
        /// The version in effect stays, as it was.
        case keepsItsVersion
        /// The bytes read now are the new version (and the last good copy).
        case takesTheNewVersion
        /// Broken now: the good version shown stays.
        case keepsWhatIsShown
        /// Broken now, nothing good shown: the last good copy is put in effect.
        case takesTheLastGoodCopy
        /// Broken, with nothing good to fall back on: what can be read of it is shown.
        case showsWhatItCan
    }

    var outcome: Outcome {
        if isUnchanged { return .keepsItsVersion }
        if readsWell { return .takesTheNewVersion }
        if shownIsGood { return .keepsWhatIsShown }
        return hasUsableCopy ? .takesTheLastGoodCopy : .showsWhatItCan
    }

    /// What the status says of the file.
    var state: FeedStatus.State {
        switch outcome {
        case .keepsItsVersion: shownIsGood ? .loaded : .failed(keptLastGood: false)
        case .takesTheNewVersion: .loaded
        case .keepsWhatIsShown, .takesTheLastGoodCopy: .failed(keptLastGood: true)
        case .showsWhatItCan: .failed(keptLastGood: false)
        }
    }
}

/// Tells one version of a file from another without keeping it: its length and a hash seeded
/// anew in every process (so no file can be made to match another on purpose).
public struct FeedFingerprint: Hashable, Sendable {
    let count: Int
    let hash: Int

    public init(_ bytes: [UInt8]) {
        count = bytes.count
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hash = hasher.finalize()
    }
}
