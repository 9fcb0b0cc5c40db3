import Support
#if canImport(Glibc)
    import Glibc
#endif

/// What `Schedule` holds and computes, on libical's actor: the feeds in effect, their
/// expansions and the index over them.
@ICalActor final class ScheduleState {
    /// The zone the display shows times in; floating times and all-day dates are read in it.
    private(set) var displayZoneName: String
    var displayZone: Zone
    var defaultDuration: Int64
    let limits: ScheduleLimits
    let reader: FeedReader
    /// Where last good copies of the feed files are kept, so they survive a restart.
    let lastGoodDirectory: String?
    var sources: [String] = []
    var fetchedSources: [FetchedFeed] = []
    /// The names of the fetched calendars: their copies on disk are last good versions already.
    var fetchedNames: Set<String> = []
    var statuses: [FeedStatus] = []
    /// Per file path: the version in effect.
    var inEffect: [String: FeedInEffect] = [:]
    /// The files in effect, in the order of `statuses`.
    var order: [String] = []
    var index = ScheduleIndex(feeds: [])
    /// Where expansions start; nil until a load or a query names an instant.
    var focus: Int64?
    /// The language dates and times are written in.
    var words: CalendarWords
    /// The orientation line's settings (nil: no line).
    var orientation: OrientationSettings?
    /// When the screen is dark (nil: never).
    var screenOff: DarkHours?
    /// Dates and times written out already: ICU is asked once for each.
    var written: [WrittenKey: String] = [:]
    /// The feed folder to name while there is no calendar at all: no file in any folder (or
    /// kept from one that cannot be listed now), no subscription (nil: there is one, or
    /// nothing was read yet).
    var calendarlessFolder: String?
    /// The load whose changed files are being read, if one is; a load that begins later
    /// overtakes it, and what it reads then is dropped.
    private var reading: LoadInProgress?
    private var loads = 0
    /// Counts the changes of the files in effect by loads and zones (not by expanding further).
    private var inEffectChanges = 0
    /// The files the reader gave up on without a verdict on their bytes: read again at every
    /// load, and when their retry is due.
    var retries: [String: ReadRetry] = [:]
    /// When last good copies that could not be written were last tried again.
    private var copiesLastTried: Int64?
    /// How often they are tried again (a full disk may be emptied without any reload).
    static let copyRetrySeconds: Int64 = 600

    /// What a load found before its changed files are read, and what became of them so far.
    private struct LoadInProgress {
        var generation: Int
        var files: [String]
        /// Files shown before from a folder that cannot be listed now.
        var kept: [String]
        /// The problems of folders that cannot be listed.
        var statuses: [FeedStatus]
        var someSourceUnreadable: Bool
        var systemPaths: [String: [UInt8]]
        var contents: [String: Result<[UInt8], FileReadError>]
        /// What each file gave: its version in effect for those unchanged (or put in effect as
        /// they arrived), the new reading for the others.
        var attemptByFile: [String: FeedExpansion]
        var unchanged: Set<String>
        /// The files to read, in the order of the requests.
        var changed: [(String, [UInt8])]
    }

    /// A file the reader gave up on for now (it made no progress, used its time, could not
    /// start): how often in a row, what it said, and when it is tried again (set by the next
    /// snapshot: a one-shot command never tries again).
    struct ReadRetry {
        var attempts: Int
        var problem: FeedProblem
        var due: Int64?

        /// 15 s after the first time, doubling to at most 15 minutes: a file that stops hanging
        /// shows soon, and one that always hangs costs a helper for 2 s every 15 minutes.
        var delay: Int64 { min(900, 15 << min(attempts - 1, 6)) }
    }

    struct WrittenKey: Hashable {
        enum Kind: Hashable { case clock, date, dayAndMonth, fullDate, dayAndPart(PartOfDay) }
        var kind: Kind
        var time: CivilDateTime
    }

    /// A file's version in effect: where its bytes are (to expand again for later times) and what they gave.
    struct FeedInEffect {
        /// Where its bytes are, for expanding them further when time moves on.
        var source: FeedSource
        var expansion: FeedExpansion
        var isGood: Bool
        /// False once the reader gave up on these bytes (a hang or crash): they are not
        /// expanded again until the file is reloaded.
        var isExpandable = true
        /// Why its last good copy could not be written (a full or read-only disk): said with
        /// the file's problems until a later try succeeds.
        var copyProblem: FeedProblem?
    }

    /// How far a load expands: the first query's day. Later times are expanded when a query
    /// reaches them (a file is then parsed again), so a load costs little more than libical's
    /// parse however far a file's repeats reach.
    static let loadedSpan: Int64 = 86_400
    /// The farthest one expansion reaches.
    static let longestSpan = 2 * Int64(ScheduleIndex.horizonWindows) * ScheduleIndex.windowSeconds

    /// - Parameters:
    ///   - displayZone: an IANA zone name, `UTC`, or a Windows zone name.
    ///   - defaultEventDuration: how long a timed event without DTEND or DURATION lasts.
    ///   - reader: where libical runs (`.helper` in the daemon and the CLI).
    ///   - lastGoodDirectory: a folder of its own where the last good version of every feed file
    ///     is kept, so a file that breaks while marquee is not running still shows its old version.
    ///   - words: the language of dates and times in messages, the idle text and the orientation line.
    ///   - orientation: the orientation line's settings (nil: no line).
    ///   - screenOff: when the screen is dark (nil: never).
    init(
        displayZone: String, defaultEventDuration: Int64 = 3600, limits: ScheduleLimits = .init(),
        reader: FeedReader = .inProcess, lastGoodDirectory: String? = nil, words: CalendarWords = .init(),
        orientation: OrientationSettings? = nil, screenOff: DarkHours? = nil
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
        self.screenOff = screenOff
    }

    /// Loads (or reloads) feed files and folders: a folder contributes its `*.ics` files
    /// (hidden ones, such as editors' temporary files, are skipped). Returns each file's state.
    /// The files are read here, holding the actor; `Schedule.load` reads them beside it.
    /// - Parameter around: where the first queries will be (saves expanding twice).
    /// - Parameter ahead: how far after it they reach, in seconds (a day by default).
    @discardableResult func load(
        _ paths: [String], fetched: [FetchedFeed] = [], around instant: Instant? = nil, ahead: Int64? = nil
    ) -> [FeedStatus] {
        let (generation, requests) = beginLoad(paths, fetched: fetched, around: instant, ahead: ahead)
        return finishLoad(requests.isEmpty ? [] : reader.expand(requests, limits: limits), generation: generation)
    }

    /// The first part of a load: lists the folders and reads the files; a file whose bytes
    /// are those in effect keeps its expansion (a reload after one file changed starts one
    /// reader, not one per file). Returns the load's number and the requests that read the
    /// changed files, whose expansions `takeArrived` (as they come) and `finishLoad` take.
    func beginLoad(
        _ paths: [String], fetched: [FetchedFeed] = [], around instant: Instant? = nil, ahead: Int64? = nil
    ) -> (generation: Int, requests: [ExpansionRequest]) {
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
        var emptyFolders: [String] = []
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
                if found.isEmpty { emptyFolders.append(path) }
                for file in found where systemPaths[file.path] == nil {
                    files.append(file.path)
                    systemPaths[file.path] = file.systemPath
                }
            }
        }
        calendarlessFolder = files.isEmpty && fetched.isEmpty && kept.isEmpty ? emptyFolders.first ?? paths.first : nil
        // No calendar anywhere: the first folder says so (the screen shows only the date).
        if files.isEmpty, fetched.isEmpty, let folder = emptyFolders.first {
            statuses.append(FeedStatus(path: folder, state: .failed(keptLastGood: false),
                                       problems: [noCalendarsProblem(in: folder)], eventCount: 0))
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
        var attemptByFile: [String: FeedExpansion] = [:]
        var unchanged: Set<String> = []
        var changed: [(String, [UInt8])] = []
        for file in files {
            guard case .success(let bytes)? = contents[file] else { continue }
            if let current = inEffect[file], current.source.holds(bytes), retries[file] == nil {
                if current.copyProblem != nil { keepCopy(of: file, bytes: bytes) }
                attemptByFile[file] = current.expansion
                unchanged.insert(file)
            } else {
                changed.append((file, bytes))
            }
        }
        loads += 1
        reading = LoadInProgress(
            generation: loads, files: files, kept: kept, statuses: statuses, someSourceUnreadable: someSourceUnreadable,
            systemPaths: systemPaths, contents: contents, attemptByFile: attemptByFile, unchanged: unchanged, changed: changed)
        // Queries up to `ahead` ask for the next change after them too, which looks a horizon further.
        let horizon = Int64(ScheduleIndex.horizonWindows + 1) * ScheduleIndex.windowSeconds
        let span = min(Self.longestSpan, ahead.map { $0 + horizon } ?? Self.loadedSpan)
        return (loads, requests(changed, span: span))
    }

    /// Changed files of load `generation` read so far (by their request's index): each that
    /// reads well is in effect at once, so one slow or hung file does not hold up the others.
    /// Returns the states of the files put in effect now (empty: the messages are as they were).
    func takeArrived(_ arrived: [(index: Int, expansion: FeedExpansion)], generation: Int) -> [FeedStatus] {
        guard var load = reading, load.generation == generation else { return [] }
        var taken: [FeedStatus] = []
        for (index, expansion) in arrived where !expansion.hasErrors && index < load.changed.count {
            let (file, bytes) = load.changed[index]
            guard !load.unchanged.contains(file) else { continue }
            takeNewVersion(bytes, of: file, expansion: expansion, systemPath: load.systemPaths[file])
            retries[file] = nil
            load.attemptByFile[file] = inEffect[file]?.expansion
            load.unchanged.insert(file)
            taken.append(FeedStatus(path: file, state: .loaded, problems: withCopyProblem(expansion.problems, of: file),
                                    eventCount: expansion.eventCount))
        }
        guard !taken.isEmpty else { return [] }
        inEffectChanges += 1
        reading = load
        order = (load.files + load.kept).filter { inEffect[$0] != nil }
        rebuildIndex()
        return taken
    }

    /// The end of load `generation`, with the expansions of its requests: each file's version
    /// is chosen (the new one, the one shown, a last good copy) and its state returned. A
    /// load overtaken by a later one changes nothing and returns the states as they are.
    func finishLoad(_ expansions: [FeedExpansion], generation: Int) -> [FeedStatus] {
        guard let load = reading, load.generation == generation else { return statuses }
        reading = nil
        let (files, kept, contents, systemPaths, unchanged) = (load.files, load.kept, load.contents, load.systemPaths, load.unchanged)
        var statuses = load.statuses
        var attemptByFile = load.attemptByFile
        for ((file, _), attempt) in zip(load.changed, expansions) where !unchanged.contains(file) {
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
                    shownIsGood: inEffect[file]?.isGood == true, hasUsableCopy: copyByFile[file] != nil,
                    readerStopped: attempt.isTransient)
                if !unchanged.contains(file) { noteRetry(of: file, after: attempt) }
                switch choice.outcome {
                case .keepsItsVersion:
                    break
                case .takesTheNewVersion:
                    takeNewVersion(bytes, of: file, expansion: attempt, systemPath: systemPaths[file])
                case .keepsWhatIsShown:
                    break
                case .takesTheLastGoodCopy:
                    inEffect[file] = copyByFile[file]
                case .showsWhatItCan:
                    inEffect[file] = FeedInEffect(source: systemPaths[file].map { .disk($0, FeedFingerprint(bytes)) } ?? .memory(bytes),
                                                  expansion: attempt, isGood: false, isExpandable: !attempt.readerGaveUp)
                case .waitsToBeReadAgain:
                    break
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
            statuses.append(FeedStatus(path: file, state: state, problems: withCopyProblem(problems, of: file),
                                       eventCount: inEffect[file]?.expansion.eventCount ?? 0))
        }
        let seen = Set(files + kept)
        inEffect = inEffect.filter { seen.contains($0.key) }
        retries = retries.filter { seen.contains($0.key) }
        order = (files + kept).filter { inEffect[$0] != nil }
        if let lastGoodDirectory, !load.someSourceUnreadable {
            forgetCopies(in: lastGoodDirectory, keeping: seen.subtracting(fetchedNames))
        }
        self.statuses = statuses
        inEffectChanges += 1
        rebuildIndex()
        return statuses
    }

    /// `problems` and, once, why the version of `file` in effect has no last good copy: a
    /// file's problems as its status says them, whether it came into effect early or at the end.
    private func withCopyProblem(_ problems: [FeedProblem], of file: String) -> [FeedProblem] {
        guard let copyProblem = inEffect[file]?.copyProblem, !problems.contains(copyProblem) else { return problems }
        return problems + [copyProblem]
    }

    /// Keeps, or forgets, that `file` is to be read again: the reader gave up on `attempt`
    /// without a verdict, or it read.
    private func noteRetry(of file: String, after attempt: FeedExpansion) {
        guard attempt.isTransient, let problem = attempt.problems.first else {
            retries[file] = nil
            return
        }
        retries[file] = ReadRetry(attempts: (retries[file]?.attempts ?? 0) + 1, problem: problem)
    }

    /// Fixes when each file the reader gave up on is tried again, counted from `instant` (the
    /// display's now), and returns the first such time.
    func dueRetries(from instant: Int64) -> Int64? {
        for (file, retry) in retries where retry.due == nil {
            retries[file]!.due = instant + retry.delay
        }
        return retries.values.compactMap(\.due).min()
    }

    /// A problem as the status says it: a reader's give-up says when it is tried again.
    private func worded(_ problem: FeedProblem, of file: String) -> FeedProblem {
        guard let retry = retries[file], retry.problem == problem, let due = retry.due else { return problem }
        var worded = problem
        worded.message += "; will try again at " + write(.clock, zoned(Instant(secondsSinceEpoch: due)).wallClock)
        return worded
    }

    /// Puts `bytes`, which read well, in effect for `file`, and keeps them as its last good
    /// copy. Kept in memory only where no file on disk holds them (no copy is kept, or the copy
    /// could not be written): the last good copy, a subscription's copy.
    private func takeNewVersion(_ bytes: [UInt8], of file: String, expansion: FeedExpansion, systemPath: [UInt8]?) {
        let source = fetchedNames.contains(file) ? systemPath.map { FeedSource.disk($0, FeedFingerprint(bytes)) } : nil
        inEffect[file] = FeedInEffect(source: source ?? .memory(bytes), expansion: expansion, isGood: true)
        keepCopy(of: file, bytes: bytes)
    }

    /// Writes the last good copy of `file`, in effect with `bytes`, if copies are kept: then
    /// the copy holds the version (not memory); else why not is said with the file's problems.
    private func keepCopy(of file: String, bytes: [UInt8]) {
        guard let copy = lastGoodCopy(of: file), let lastGoodDirectory else { return }
        if let reason = writeFileAtomically(bytes, to: copy) {
            inEffect[file]?.copyProblem = FeedProblem(
                severity: .warning, path: file, line: nil,
                message: "cannot keep a last good copy in \(lastGoodDirectory): \(reason); tried again every "
                    + "\(Self.copyRetrySeconds / 60) minutes and at every reload")
        } else {
            inEffect[file]?.source = .disk(Array(copy.utf8), FeedFingerprint(bytes))
            inEffect[file]?.copyProblem = nil
        }
    }

    /// Tries again to write the last good copies that could not be written, at most every
    /// `copyRetrySeconds` of the queries' time.
    private func retryCopies(at instant: Int64) {
        guard instant >= (copiesLastTried ?? .min) + Self.copyRetrySeconds else { return }
        copiesLastTried = instant
        for (file, feed) in inEffect where feed.copyProblem != nil {
            if let bytes = feed.source.bytes(limit: limits.maximumFileBytes) { keepCopy(of: file, bytes: bytes) }
        }
    }

    /// Shows times in another zone from now on (the system's zone changed): a new zone has every
    /// file read again, since floating times and all-day dates depend on it.
    /// True when the files must be read again (`Schedule` does it beside the actor).
    func setDisplayZone(_ name: String) throws -> Bool {
        try apply(ScheduleSettings(displayZone: name, words: words, orientation: orientation,
                                   defaultEventDuration: defaultDuration, screenOff: screenOff))
    }

    /// How times are counted and written from now on. A new zone or default length of an
    /// event has every file read again (floating times, all-day dates and events without an end
    /// depend on them); a new language or orientation line changes only what is written.
    /// True when the files must be read again (`Schedule` does it beside the actor).
    func apply(_ settings: ScheduleSettings) throws -> Bool {
        guard let zone = SystemZones.zone(named: settings.displayZone) else {
            throw Schedule.ConfigurationError.unknownTimeZone(settings.displayZone)
        }
        if settings.words != words || settings.orientation != orientation {
            words = settings.words
            orientation = settings.orientation
            written = [:]
        }
        screenOff = settings.screenOff
        guard settings.displayZone != displayZoneName || settings.defaultEventDuration != defaultDuration else { return false }
        displayZoneName = settings.displayZone
        displayZone = zone
        defaultDuration = settings.defaultEventDuration
        inEffect = [:]
        inEffectChanges += 1
        return true
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
            if status.state == .loaded, let feed = inEffect[status.path] {
                status.problems = withCopyProblem(feed.expansion.problems, of: status.path)
            } else if status.state == .failed(keptLastGood: true), let expansion = inEffect[status.path]?.expansion {
                // What became of the version shown in its place.
                status.problems += expansion.problems.filter { !status.problems.contains($0) }
            }
            status.problems = status.problems.map { worded($0, of: status.path) }
            return status
        }
    }

    /// The files in effect from `source` (a folder, or a single file), or, when none are (at a
    /// start), their last good copies; each is kept in effect. Returns their paths.
    func keepShown(under source: String) -> [String] {
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
    struct LastGoodCopy {
        var file: String
        var path: String
        var bytes: [UInt8]
    }

    /// The versions among `copies` that expand without errors, by file: only those may stand
    /// in for a file; and, for the others (damaged on disk), what is wrong with them.
    func usableVersions(_ copies: [LastGoodCopy]) -> (usable: [String: FeedInEffect], damaged: [String: FeedProblem]) {
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
    func lastGoodCopy(of file: String) -> String? {
        guard !fetchedNames.contains(file) else { return nil }
        return lastGoodDirectory.map { $0 + "/" + escapedFileName(file) }
    }

    /// Expansions of files' bytes over `span` seconds from the focus on (only parsed while
    /// there is no focus), each file with its share of the activation budget.
    func expand(_ files: [(String, [UInt8])], span: Int64) -> [FeedExpansion] {
        guard !files.isEmpty else { return [] }
        return reader.expand(requests(files, span: span), limits: limits)
    }

    /// The requests that expand files' bytes over `span` seconds from the focus on.
    func requests(_ files: [(String, [UInt8])], span: Int64) -> [ExpansionRequest] {
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
    /// `instant` to `through`, here on the actor (`Schedule` does it beside the actor first).
    func cover(_ instant: Int64, through: Int64) {
        if let plan = planCover(instant, through: through) { finishCover(plan, reader.expand(plan.requests, limits: limits)) }
    }

    /// Whether every file's expansion reaches from `instant` to `through`; an expansion cut short
    /// by its budget only needs `instant`.
    func isCovered(_ instant: Int64, through: Int64) -> Bool {
        staleFiles(instant, through: through).isEmpty
    }

    private func staleFiles(_ instant: Int64, through: Int64) -> [String] {
        order.filter { file in
            guard let feed = inEffect[file], feed.isExpandable else { return false }
            let coverage = feed.expansion.coverage
            return !coverage.contains(instant) || (!feed.expansion.isCut && coverage.upperBound < through)
        }
    }

    /// Files to expand again for later times: planned here, expanded by the reader, put in
    /// effect by `finishCover` unless the files in effect changed meanwhile.
    struct CoverPlan: Sendable {
        let changes: Int
        let files: [String]
        let requests: [ExpansionRequest]
    }

    /// What covering `instant` to `through` takes (nil: nothing).
    func planCover(_ instant: Int64, through: Int64) -> CoverPlan? {
        retryCopies(at: instant)
        let stale = staleFiles(instant, through: through)
        guard !stale.isEmpty else { return nil }
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
        return CoverPlan(changes: inEffectChanges, files: readable.map(\.0), requests: requests(readable, span: span))
    }

    /// Puts a plan's expansions in effect, unless a load or a new zone changed the files in
    /// effect since it was made (then a later query plans again).
    func finishCover(_ plan: CoverPlan, _ results: [FeedExpansion]) {
        guard plan.changes == inEffectChanges else { return }
        for (file, expansion) in zip(plan.files, results) where inEffect[file] != nil {
            if expansion.readerGaveUp {
                inEffect[file]!.isExpandable = false
                inEffect[file]!.expansion.problems += expansion.problems
                // Stopped without a verdict: the next load reads the file again.
                if expansion.isTransient { noteRetry(of: file, after: expansion) }
            } else {
                inEffect[file]!.expansion = expansion
            }
        }
        rebuildIndex()
    }

    func rebuildIndex() {
        index = ScheduleIndex(feeds: order.map { inEffect[$0]!.expansion })
    }

}
