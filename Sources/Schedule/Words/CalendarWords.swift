import Support
import CICU

/// The parts of a day, as dementia day clocks name them ("Now it is Monday morning").
package enum PartOfDay: String, CaseIterable, Sendable {
    case morning, afternoon, evening, night
}

/// When each part of the day begins, in minutes after midnight; by default the Bath Institute's
/// Day Clock: morning 7–12, afternoon 12–17, evening 17–22, night 22–7.
package struct DayParts: Sendable, Hashable {
    package var starts: [PartOfDay: Int]

    package init(starts: [PartOfDay: Int] = [.morning: 7 * 60, .afternoon: 12 * 60, .evening: 17 * 60, .night: 22 * 60]) {
        self.starts = starts
    }

    /// The parts in the order they begin over a day.
    private var ordered: [(part: PartOfDay, start: Int)] {
        starts.map { ($0.key, $0.value) }.sorted { $0.start < $1.start }
    }

    /// The part of the day `minute` (after midnight) falls in and the minute it began: the last
    /// part to have begun that day, or, before the first begins, the one that began the evening
    /// before (its start then negative, in minutes before midnight).
    func current(at minute: Int) -> (part: PartOfDay, start: Int) {
        let parts = ordered
        if let current = parts.last(where: { $0.start <= minute }) { return current }
        return (parts.last?.part ?? .morning, (parts.last?.start ?? 0) - 24 * 60)
    }

    /// The next minute after `minute` at which a part begins, on the same day (nil: none is left).
    func nextStart(after minute: Int) -> Int? {
        ordered.map(\.start).first { $0 > minute }
    }
}

/// The words a display uses for days, dates and times in one language: weekdays, dates and
/// clock times from ICU's locale data (the system's libicu), the parts of the day in the
/// language's usual phrasing ("Monday morning", "Montagmorgen", "lundi matin", "月曜日の朝").
package struct CalendarWords: Sendable, Hashable {
    /// An ICU locale: "en_GB", "de", "pt_BR".
    package let locale: String
    /// A 12-hour clock (true), a 24-hour one (false), or as the locale prefers (nil).
    package let twelveHours: Bool?

    /// The languages whose parts of the day marquee names in words of its own; the others by
    /// CLDR's day periods, through ICU.
    package static let languages = ["en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv", "ja"]

    package init(locale: String = "en_GB", twelveHours: Bool? = nil) {
        self.locale = locale
        self.twelveHours = twelveHours
    }

    /// The locale of a POSIX locale name (`LANG`): "de_DE.UTF-8" is "de_DE"; "C", "POSIX" and
    /// nothing are British English (day before month, a 24-hour clock).
    package static func locale(fromPOSIX name: String?) -> String {
        let base = (name ?? "").split(separator: ".").first.map(String.init) ?? ""
        let locale = base.split(separator: "@").first.map(String.init) ?? ""
        return locale.isEmpty || locale == "C" || locale == "POSIX" ? "en_GB" : locale
    }

    /// Why `locale` ("de", "en_GB", "pt-BR") names no language ICU has (nil: it names one),
    /// with the nearest known code or English name when one is close ("klingon", "germn").
    package static func unknownLanguage(_ locale: String) -> String? {
        let language = String(locale.prefix { $0 != "_" && $0 != "-" }).lowercased()
        let known = knownLanguages
        guard known.isEmpty || known[language] == nil else { return nil }
        let wanted = locale.lowercased()
        let nearest = known.map { code, name in
            (code: code, name: name, distance: min(editDistance(wanted, code), editDistance(wanted, name.lowercased())))
        }.min { ($0.distance, $0.code) < ($1.distance, $1.code) }
        let hint = nearest.flatMap { $0.distance <= 2 ? "; did you mean \"\($0.code)\" (\($0.name))?" : nil } ?? ""
        return "unknown language \"\(locale)\" (a code such as \"de\", \"en_GB\" or \"zh\")" + hint
    }

    /// The languages ICU has data for: their codes and English names.
    private static let knownLanguages: [String: String] = {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        let count = mq_icu_languages(&buffer, Int32(buffer.count))
        guard count > 0 else { return [:] }
        var languages: [String: String] = [:]
        let text = String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            if fields.count == 2 { languages[String(fields[0])] = String(fields[1]) }
        }
        return languages
    }()

    /// How a carer adds calendars to the box whose feed folder is `folder`; English where the
    /// language has no words of its own.
    package func addingCalendars(folder: String) -> AddingCalendars {
        switch language {
        case "de":
            AddingCalendars(throughPage: "Kalender hinzufügen: {address} auf einem Handy oder Computer öffnen",
                            throughFolder: "Kalender hinzufügen: Kalenderdateien (.ics) nach \(folder) kopieren",
                            setupFileProblem: "marquee-setup.txt prüfen: {problem}")
        default:
            AddingCalendars(throughPage: "To add calendars, open {address} on a phone or computer",
                            throughFolder: "To add calendars, copy calendar files (.ics) into \(folder)",
                            setupFileProblem: "Please check marquee-setup.txt: {problem}")
        }
    }

    /// The language of the locale: "de" of "de_AT".
    package var language: String {
        String(locale.prefix { $0 != "_" && $0 != "-" }).lowercased()
    }

    /// "Monday".
    package func weekday(_ date: CivilDate) -> String { format(date, skeleton: "EEEE") }

    /// "23 November 2026", "23. November 2026", "2026年11月23日".
    package func date(_ date: CivilDate) -> String { format(date, skeleton: "dMMMMy") }

    /// "Tuesday, 3 March": the `{date}` of a message.
    package func dayAndMonth(_ date: CivilDate) -> String { format(date, skeleton: "EEEEdMMMM") }

    /// "Monday, 23 November 2026": the date shown when nothing is scheduled.
    package func fullDate(_ date: CivilDate) -> String { format(date, skeleton: "EEEEdMMMMy") }

    /// "09:30" or "9:30 AM", as the locale writes the time of day (or the clock asked for).
    package func clock(_ time: CivilDateTime) -> String {
        let hours = twelveHours.map { $0 ? "h" : "H" } ?? "j"
        return format(time.date, skeleton: hours + "mm", secondsIntoDay: time.hour * 3600 + time.minute * 60)
    }

    /// "Monday morning", "Montagmorgen", "Lundi matin", "星期一上午": the day and the part of
    /// it, starting with a capital letter as a line of its own. The languages of `phrases` in
    /// words of marquee's own; every other in its own words too, by CLDR's flexible day period
    /// for a time well inside the part (ICU's pattern `B`): which part it is the carer's hours
    /// decide, what it is called the language. A language CLDR gives no day periods (ICU then
    /// writes AM or PM, which is no part of the day and wrong at night) has the day alone.
    package func dayAndPart(_ part: PartOfDay, on date: CivilDate) -> String {
        let text: String
        let seconds = Self.typicalMinute[part, default: 0] * 60
        if let phrase = Self.phrases[language]?[part] {
            text = phrase.replacing("{day}", with: weekday(date))
        } else if !hasDayPeriods {
            text = weekday(date)
        } else {
            text = format(date, skeleton: "EEEEBBBB", secondsIntoDay: seconds)
        }
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// Whether CLDR names the periods of a day in this language: otherwise ICU writes AM or PM
    /// for each (in Chinese the morning's is also the AM marker, the evening's not).
    private var hasDayPeriods: Bool {
        Self.typicalMinute.values.contains { minute in
            format(CivilDate(year: 2026, month: 1, day: 5), skeleton: "BBBB", secondsIntoDay: minute * 60)
                != format(CivilDate(year: 2026, month: 1, day: 5), skeleton: "a", secondsIntoDay: minute * 60)
        }
    }

    /// A minute well inside each part of the day, whose CLDR day period names the part.
    private static let typicalMinute: [PartOfDay: Int] = [.morning: 9 * 60, .afternoon: 15 * 60, .evening: 19 * 60, .night: 23 * 60]

    /// How each language names a day's part, `{day}` standing for the weekday as ICU writes it.
    private static let phrases: [String: [PartOfDay: String]] = [
        "en": [.morning: "{day} morning", .afternoon: "{day} afternoon", .evening: "{day} evening", .night: "{day} night"],
        "de": [.morning: "{day}morgen", .afternoon: "{day}nachmittag", .evening: "{day}abend", .night: "{day}nacht"],
        "fr": [.morning: "{day} matin", .afternoon: "{day} après-midi", .evening: "{day} soir", .night: "{day} nuit"],
        "es": [.morning: "{day} por la mañana", .afternoon: "{day} por la tarde", .evening: "{day} por la noche",
               .night: "{day} por la noche"],
        "it": [.morning: "{day} mattina", .afternoon: "{day} pomeriggio", .evening: "{day} sera", .night: "{day} notte"],
        "nl": [.morning: "{day}ochtend", .afternoon: "{day}middag", .evening: "{day}avond", .night: "{day}nacht"],
        "pl": [.morning: "{day} rano", .afternoon: "{day} po południu", .evening: "{day} wieczorem", .night: "{day} w nocy"],
        "pt": [.morning: "{day} de manhã", .afternoon: "{day} à tarde", .evening: "{day} à noite", .night: "{day} à noite"],
        "sv": [.morning: "{day}smorgon", .afternoon: "{day}seftermiddag", .evening: "{day}skväll", .night: "{day}snatt"],
        "ja": [.morning: "{day}の朝", .afternoon: "{day}の午後", .evening: "{day}の夕方", .night: "{day}の夜"],
        // CLDR's day periods are genitive here ("утра", "ранку": "of the morning"), and
        // Belarusian has none: the part of the day is named on its own.
        "ru": [.morning: "{day}, утро", .afternoon: "{day}, день", .evening: "{day}, вечер", .night: "{day}, ночь"],
        "uk": [.morning: "{day}, ранок", .afternoon: "{day}, день", .evening: "{day}, вечір", .night: "{day}, ніч"],
        "be": [.morning: "{day}, раніца", .afternoon: "{day}, дзень", .evening: "{day}, вечар", .night: "{day}, ноч"],
    ]

    /// `value` as an ordinal number in the language ("81st"; German "81.").
    func ordinal(_ value: Int) -> String {
        var output = [UInt16](repeating: 0, count: 64)
        let count = output.withUnsafeMutableBufferPointer { output in
            mq_icu_ordinal(locale, Int32(clamping: value), output.baseAddress, Int32(output.count))
        }
        guard count > 0 else { return String(value) }
        return String(decoding: output[0..<Int(min(count, 64))], as: UTF16.self)
    }

    /// What stands between the parts of the orientation line: a middle dot, except where the
    /// digits have a zero that looks like one (Arabic-Indic "٠", Persian "۰"): a dash (the
    /// Arabic comma already stands inside the day's part).
    var separator: String {
        ["ar", "fa", "ur", "ps", "ckb"].contains(locale.split(separator: "_").first.map(String.init) ?? locale) ? " – " : " · "
    }

    /// The civil date (and seconds into it) formatted by ICU for the best pattern for `skeleton`.
    private func format(_ date: CivilDate, skeleton: String, secondsIntoDay: Int = 0) -> String {
        let instant = (Double(date.daysSinceEpoch) * 86_400 + Double(secondsIntoDay)) * 1000
        let pattern = Array(skeleton.utf16)
        var output = [UInt16](repeating: 0, count: 256)
        let count = pattern.withUnsafeBufferPointer { pattern in
            output.withUnsafeMutableBufferPointer { output in
                mq_icu_format(locale, pattern.baseAddress, Int32(pattern.count), instant, output.baseAddress,
                              Int32(output.count))
            }
        }
        guard count > 0 else { return "" }
        return String(decoding: output[0..<Int(min(count, 256))], as: UTF16.self)
    }
}
