import CLibical
import Support

/// How a DATE-TIME or DATE value is tied to the time line.
@ICalActor enum TimeBasis {
    case utc
    /// No zone: read in the calendar's floating zone (X-WR-TIMEZONE, else the display's).
    case floating
    case zone(Zone)
}

/// Whether two values read their wall clocks in the same zone.
@ICalActor func sameZone(_ a: TimeBasis, _ b: TimeBasis) -> Bool {
    switch (a, b) {
    case (.utc, .utc), (.floating, .floating): true
    case (.zone(let x), .zone(let y)): x === y
    default: false
    }
}

/// A DATE or DATE-TIME value as written in the file, with its zone resolved.
@ICalActor struct TimeValue {
    var wall: CivilDateTime
    var isDate: Bool
    var basis: TimeBasis
}

/// A DURATION value: days and weeks are nominal (wall-clock days), the rest exact seconds.
struct NominalDuration: Hashable {
    var days: Int
    var seconds: Int64

    /// The longest duration marquee reads: a hundred years, in days and in seconds.
    static let limitDays: Int64 = 36_525
    static let limitSeconds: Int64 = limitDays * 86_400

    /// nil when it is longer than a hundred years (`PT1193047H` would overflow the arithmetic
    /// libical's fields are read with; no reminder lasts that long).
    init?(_ duration: icaldurationtype) {
        let sign: Int64 = duration.is_neg != 0 ? -1 : 1
        let days = Int64(duration.weeks) * 7 + Int64(duration.days)
        let seconds = Int64(duration.hours) * 3600 + Int64(duration.minutes) * 60 + Int64(duration.seconds)
        guard days <= Self.limitDays, seconds <= Self.limitSeconds else { return nil }
        self.days = Int(sign * days)
        self.seconds = sign * seconds
    }

    /// Its length in seconds taking a day as 86,400; nil unless positive (a refresh interval).
    var approximateSeconds: Int64? {
        let total = Int64(days) * 86_400 + seconds
        return total > 0 ? total : nil
    }

    /// An upper bound of its length in seconds, for look-back windows.
    var maximumSeconds: Int64 { Int64(days) * 90_000 + seconds }
}

/// When a VALARM fires.
@ICalActor enum AlarmTrigger {
    case relative(seconds: Int64, toEnd: Bool)
    case absolute(TimeValue)
}

/// A `VALARM` with `ACTION:DISPLAY` or `ACTION:AUDIO`.
@ICalActor struct AlarmRecord {
    var text: String?
    var trigger: AlarmTrigger
    var isAudio = false
    /// An `ACTION:AUDIO` alarm's `ATTACH` (a URI or a file name).
    var attachment: String?
    /// Or the sound itself, written into the calendar.
    var embedded: EmbeddedSound?
    /// `REPEAT` and `DURATION`: how many times more, how many seconds apart.
    var repeats = 0
    var repeatSeconds: Int64 = 0
}

/// An RDATE: a start, or a PERIOD with its own end.
@ICalActor struct RecurrenceDate {
    var start: TimeValue
    var periodEnd: TimeValue?
    var periodDuration: NominalDuration?
}

/// One RRULE of an event. A rule is 2.7 KB, copied out of libical each time it is read (a copy
/// in every record made loading slower than libical's parse): what expansion asks of it in
/// every window is kept instead, and the rule read again only where libical iterates it.
@ICalActor struct RecurrenceRule {
    let property: OpaquePointer
    /// Its instances computed without libical, for a rule that repeats evenly.
    let even: EvenRule?
    let count: Int32
    let until: icaltimetype

    init(_ property: OpaquePointer, _ rule: icalrecurrencetype, start: CivilDateTime) {
        self.property = property
        even = EvenRule(rule, start: start)
        count = rule.count
        until = rule.until
    }
}

/// Everything marquee uses of one VEVENT, copied out of libical's tree.
@ICalActor final class EventRecord {
    var uid = ""
    var sequence = 0
    var line: Int?
    var text = ""
    var priority = 5
    var color: Colour?
    var effect: MessageEffect?
    var cancelled = false
    var start: TimeValue?
    var end: TimeValue?
    var duration: NominalDuration?
    /// The RRULE properties in the parsed tree (which the owning `CalendarFile` keeps alive),
    /// as read once on loading.
    var rules: [RecurrenceRule] = []
    var recurrenceDates: [RecurrenceDate] = []
    var exceptionDates: [TimeValue] = []
    var recurrenceID: TimeValue?
    var appliesToFuture = false
    var alarms: [AlarmRecord] = []
    /// `X-MARQUEE-SPEAK:YES`: heard when it starts.
    var speaks = false
    /// The year of its date stands for "unknown" (a birthday without a year: Apple's
    /// X-APPLE-OMIT-YEAR, or a yearly all-day date before 1900): it has no `{age}`.
    var yearUnknown = false

    var isRecurring: Bool { !rules.isEmpty || !recurrenceDates.isEmpty }
}
