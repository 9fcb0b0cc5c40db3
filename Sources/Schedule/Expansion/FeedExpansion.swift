import Support

/// What one feed file contributes to the schedule over a stretch of time: its problems, and
/// every activation that starts in `coverage` (or started before it and is still active at its
/// start), as plain values. It is computed where libical runs (a helper process in the daemon
/// and the CLI) and is all the schedule keeps of a file, so nothing libical built outlives it.
struct FeedExpansion: Sendable {
    var problems: [FeedProblem] = []
    var eventCount = 0
    /// How often the calendar asks to be fetched again, in seconds (REFRESH-INTERVAL).
    var refreshSeconds: Int64?
    var templates: [MessageTemplate] = []
    /// Sorted by start.
    var activations: [Activation] = []
    /// Activations starting in this range are all known (what starts later is not computed).
    var coverage: Range<Int64> = 0..<0
    /// `coverage` ends early because the file had more activations than its budget.
    var isCut = false
    /// The reader was stopped or crashed on these bytes; only `problems` are known.
    var readerGaveUp = false
    /// ...and that says nothing against the bytes (the reader made no progress, used its
    /// time, could not start): they are read again later, never taken as their version.
    var isTransient = false

    var hasErrors: Bool { problems.contains { $0.severity == .error } }
}

/// What an activation shows: the message text (with its `{placeholders}`) and its looks.
struct MessageTemplate: Sendable, Hashable {
    var text: String
    var uid: String
    var priority: Int
    var color: Colour?
    var effect: MessageEffect?
    /// How its messages are heard (nil: only shown).
    var sound: SoundTemplate?
}

/// A `Sounding` but for its instant, which each activation has.
struct SoundTemplate: Sendable, Hashable {
    var origin: Sounding.Origin
    var attachment: String?
    var embedded: EmbeddedSound?
    var repeats: Int
    var repeatSeconds: Int64

    /// How the record's alarm `alarm` (nil: the event) asks to be heard.
    @ICalActor init?(_ record: EventRecord, alarm: Int?) {
        guard let alarm else {
            guard record.speaks else { return nil }
            self.init(origin: .event, attachment: nil, embedded: nil, repeats: 0, repeatSeconds: 0)
            return
        }
        let written = record.alarms[alarm]
        self.init(origin: written.isAudio ? .audioAlarm : .displayAlarm, attachment: written.attachment,
                  embedded: written.embedded, repeats: written.repeats, repeatSeconds: written.repeatSeconds)
    }

    init(origin: Sounding.Origin, attachment: String?, embedded: EmbeddedSound?, repeats: Int, repeatSeconds: Int64) {
        self.origin = origin
        self.attachment = attachment
        self.embedded = embedded
        self.repeats = repeats
        self.repeatSeconds = repeatSeconds
    }

    /// Its number in the binary form (0 stands for none).
    var originNumber: Int64 {
        switch origin {
        case .audioAlarm: 1
        case .displayAlarm: 2
        case .event: 3
        }
    }

    static func origin(number: Int64) -> Sounding.Origin? {
        switch number {
        case 1: .audioAlarm
        case 2: .displayAlarm
        case 3: .event
        default: nil
        }
    }
}

/// An interval during which one message is active, with what its placeholders need.
struct Activation: Sendable {
    var start: Int64
    var end: Int64
    var kind: Message.Kind
    /// Index into the file's `templates`.
    var template: Int
    var occurrenceStart: Int64
    var occurrenceEnd: Int64
    /// Whole years since the series' first occurrence, for `{age}` (`EventActivation.unknownAge`:
    /// its first year is not known).
    var age: Int

    func isActive(at instant: Int64) -> Bool {
        start <= instant && instant < end
    }
}

/// The question put to the reader of one file: its bytes, and the stretch of time to expand.
struct ExpansionRequest: Sendable {
    /// The file's name in problems (the bytes may come from its last good copy).
    var path: String
    var displayZone: String
    var defaultDuration: Int64
    var limits: ScheduleLimits
    /// Expansion starts at this instant.
    var focus: Int64
    /// How far from `focus` to expand, in seconds; 0 only parses.
    var span: Int64
    /// At most this many activations; the coverage ends where they run out.
    var budget: Int
    /// At most this long expanding; the coverage ends where the time runs out.
    var seconds: Double
    var bytes: [UInt8]
}

// MARK: - Between processes

/// A flat little-endian encoding of requests and expansions for the pipe to and from the
/// helper process. Reading is bounds-checked: a short or garbled message reads as nil.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func integer(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int) { integer(Int64(value)) }

    mutating func string(_ value: String) { data(Array(value.utf8)) }

    mutating func data(_ value: [UInt8]) {
        integer(value.count)
        bytes.append(contentsOf: value)
    }
}

struct WireReader {
    private let bytes: ArraySlice<UInt8>
    private var offset: Int

    /// Reads `bytes` where it lies: a batch's items are read without copying them.
    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }

    private var remaining: Int { bytes.endIndex - offset }

    mutating func integer() -> Int64? {
        guard remaining >= 8 else { return nil }
        var value: Int64 = 0
        for index in (0..<8).reversed() { value = value << 8 | Int64(bytes[offset + index]) }
        offset += 8
        return value
    }

    mutating func count(atMost limit: Int) -> Int? {
        guard let value = integer(), value >= 0, value <= limit else { return nil }
        return Int(value)
    }

    /// The next length-prefixed bytes, where they lie.
    mutating func slice() -> ArraySlice<UInt8>? {
        guard let count = count(atMost: remaining) else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func data() -> [UInt8]? { slice().map(Array.init) }

    mutating func string() -> String? { slice().map { String(decoding: $0, as: UTF8.self) } }
}

/// How requests go to a helper and answers come back, one at a time: each is a frame, its
/// length and then its bytes.
enum WireFrames {
    static func frame(_ item: [UInt8]) -> [UInt8] {
        var writer = WireWriter()
        writer.data(item)
        return writer.bytes
    }

    /// The length a frame's 8-byte header gives; nil when it is impossible (garbage) or the
    /// header is not whole.
    static func length(_ header: ArraySlice<UInt8>, longest: Int) -> Int? {
        guard header.count == 8 else { return nil }
        var reader = WireReader(header)
        return reader.count(atMost: longest)
    }
}

extension ExpansionRequest {
    func encoded() -> [UInt8] {
        var writer = WireWriter()
        writer.string(path)
        writer.string(displayZone)
        writer.integer(defaultDuration)
        writer.integer(limits.maximumFileBytes)
        writer.integer(limits.maximumStepsPerSeries)
        writer.integer(limits.maximumOccurrencesPerWindow)
        writer.integer(limits.maximumReaderBytes)
        writer.integer(Int64(limits.maximumSecondsPerFile * 1000))
        writer.integer(focus)
        writer.integer(span)
        writer.integer(budget)
        writer.integer(Int64(seconds * 1000))
        writer.data(bytes)
        return writer.bytes
    }

    init?(decoding bytes: ArraySlice<UInt8>) {
        var reader = WireReader(bytes)
        guard let path = reader.string(), let displayZone = reader.string(), let defaultDuration = reader.integer(),
            let fileBytes = reader.count(atMost: Int(Int32.max)), let steps = reader.count(atMost: Int(Int32.max)),
            let occurrences = reader.count(atMost: Int(Int32.max)), let readerBytes = reader.count(atMost: Int.max),
            let milliseconds = reader.count(atMost: Int.max), let focus = reader.integer(),
            let span = reader.count(atMost: 1_000 * Int(ScheduleIndex.windowSeconds)), let budget = reader.count(atMost: Int(Int32.max)),
            let expansionMilliseconds = reader.count(atMost: Int(Int32.max)), let data = reader.data(), reader.isAtEnd
        else { return nil }
        var limits = ScheduleLimits()
        limits.maximumFileBytes = fileBytes
        limits.maximumStepsPerSeries = steps
        limits.maximumOccurrencesPerWindow = occurrences
        limits.maximumReaderBytes = readerBytes
        limits.maximumSecondsPerFile = Double(milliseconds) / 1000
        self.init(path: path, displayZone: displayZone, defaultDuration: defaultDuration, limits: limits,
                  focus: focus, span: Int64(span), budget: budget, seconds: Double(expansionMilliseconds) / 1000,
                  bytes: data)
    }
}

extension FeedExpansion {
    func encoded() -> [UInt8] {
        var writer = WireWriter()
        writer.integer(eventCount)
        writer.integer(refreshSeconds ?? -1)
        writer.integer(coverage.lowerBound)
        writer.integer(coverage.upperBound)
        writer.integer(isCut ? 1 : 0)
        writer.integer(problems.count)
        for problem in problems {
            writer.integer(problem.severity == .error ? 1 : 0)
            writer.integer(problem.line ?? -1)
            writer.string(problem.path)
            writer.string(problem.message)
        }
        writer.integer(templates.count)
        for template in templates {
            writer.string(template.text)
            writer.string(template.uid)
            writer.integer(template.priority)
            writer.integer(template.color.map { Int64($0.red) << 16 | Int64($0.green) << 8 | Int64($0.blue) } ?? -1)
            writer.string(template.effect?.rawValue ?? "")
            writer.integer(template.sound?.originNumber ?? 0)
            writer.string(template.sound?.attachment ?? "")
            writer.data(template.sound?.embedded?.bytes ?? [])
            writer.integer(Int64(template.sound?.repeats ?? 0))
            writer.integer(template.sound?.repeatSeconds ?? 0)
        }
        writer.integer(activations.count)
        for activation in activations {
            writer.integer(activation.start)
            writer.integer(activation.end)
            writer.integer(activation.kind == .alarm ? 1 : 0)
            writer.integer(activation.template)
            writer.integer(activation.occurrenceStart)
            writer.integer(activation.occurrenceEnd)
            writer.integer(activation.age)
        }
        return writer.bytes
    }

    init?(decoding bytes: ArraySlice<UInt8>) {
        var reader = WireReader(bytes)
        // Lists hold items of 8 bytes or more. The event count is only a number: a file of
        // thousands of events may have a handful of activations in the stretch expanded.
        let most = bytes.count / 8
        guard let eventCount = reader.count(atMost: Int(Int32.max)), let refresh = reader.integer(),
            let from = reader.integer(), let until = reader.integer(),
            from <= until, let cut = reader.integer(), let problemCount = reader.count(atMost: most)
        else { return nil }
        self.init(eventCount: eventCount, refreshSeconds: refresh > 0 ? refresh : nil, coverage: from..<until, isCut: cut != 0)
        for _ in 0..<problemCount {
            guard let severity = reader.integer(), let line = reader.integer(), let path = reader.string(),
                let message = reader.string()
            else { return nil }
            problems.append(FeedProblem(severity: severity == 1 ? .error : .warning, path: path,
                                        line: line < 0 ? nil : Int(line), message: message))
        }
        guard let templateCount = reader.count(atMost: most) else { return nil }
        for _ in 0..<templateCount {
            guard let text = reader.string(), let uid = reader.string(), let priority = reader.integer(),
                let color = reader.integer(), let effect = reader.string(), let origin = reader.integer(),
                let attachment = reader.string(), let embedded = reader.data(), let repeats = reader.integer(),
                let repeatSeconds = reader.integer(),
                (0...Int64(Sounding.mostRepeats)).contains(repeats)
            else { return nil }
            let sound = SoundTemplate.origin(number: origin).map {
                SoundTemplate(origin: $0, attachment: attachment.isEmpty ? nil : attachment,
                              embedded: embedded.isEmpty ? nil : EmbeddedSound(embedded), repeats: Int(repeats),
                              repeatSeconds: repeatSeconds)
            }
            templates.append(MessageTemplate(
                text: text, uid: uid, priority: Int(priority),
                color: color < 0 ? nil : Colour(red: UInt8(truncatingIfNeeded: color >> 16),
                                                  green: UInt8(truncatingIfNeeded: color >> 8),
                                                  blue: UInt8(truncatingIfNeeded: color)),
                effect: MessageEffect(rawValue: effect), sound: sound))
        }
        guard let activationCount = reader.count(atMost: most) else { return nil }
        activations.reserveCapacity(activationCount)
        for _ in 0..<activationCount {
            guard let start = reader.integer(), let end = reader.integer(), let kind = reader.integer(),
                let template = reader.count(atMost: templateCount - 1), let occurrenceStart = reader.integer(),
                let occurrenceEnd = reader.integer(), let age = reader.integer()
            else { return nil }
            activations.append(Activation(
                start: start, end: end, kind: kind == 1 ? .alarm : .event, template: template,
                occurrenceStart: occurrenceStart, occurrenceEnd: occurrenceEnd, age: Int(age)))
        }
        guard reader.isAtEnd else { return nil }
    }
}
