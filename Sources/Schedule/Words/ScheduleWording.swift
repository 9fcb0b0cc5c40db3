/// How the schedule writes: dates and times in the display's language, the orientation line,
/// a message's text with its placeholders filled.
extension ScheduleState {
    /// A date or time in the display's language, from ICU once and then remembered.
    func write(_ kind: WrittenKey.Kind, _ time: CivilDateTime) -> String {
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
    func orientationLine(at wall: CivilDateTime, part: PartOfDay, _ settings: OrientationSettings)
        -> (text: String, next: CivilDateTime?)
    {
        let minute = wall.hour * 60 + wall.minute
        let day = CivilDateTime(date: wall.date)
        let separator = words.separator
        var text = write(.dayAndPart(part), day) + separator + write(.date, day)
        var next = settings.parts.nextStart(after: minute).map { CivilDateTime(date: wall.date, hour: $0 / 60, minute: $0 % 60) }
        if settings.showsTime {
            let shown = CivilDateTime(date: wall.date, hour: wall.hour, minute: wall.minute)
            text += separator + write(.clock, shown)
            let nextMinute = shown.adding(seconds: 60)
            next = nextMinute.date == wall.date ? min(next ?? nextMinute, nextMinute) : next
        }
        return (text, next)
    }

    func message(for entry: ScheduleIndex.Entry) -> Message {
        let activation = entry.activation
        let source = order[entry.feed]
        let template = index.feeds[entry.feed].templates[activation.template]
        let zone = displayZone
        let known = activation.age != EventActivation.unknownAge
        let text = fillPlaceholders(known ? withOrdinalAge(template.text, activation.age) : withoutAge(template.text)) { name in
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
            color: template.color, effect: template.effect,
            sounding: template.sound.map { sound in
                Sounding(origin: sound.origin, trigger: zone.zoned(start), attachment: sound.attachment,
                         embedded: sound.embedded, repeats: sound.repeats, repeatSeconds: sound.repeatSeconds)
            })
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

extension ScheduleState {
    /// A message's text with `{age}` and an ordinal ending written onto it ("{age}th",
    /// "{age}e") as the ordinal of `age` in the display's language: "Happy {age}th birthday"
    /// reads "Happy 81st birthday" (it read "81th"); a `{age}` without an ending stays for
    /// the number.
    func withOrdinalAge(_ text: String, _ age: Int) -> String {
        guard text.contains("{age}") else { return text }
        return replacingAge(in: text) { hasEnding in hasEnding ? words.ordinal(age) : "{age}" }
    }
}

/// `text` with each `{age}`, and the ordinal ending written onto it (one or two letters:
/// "{age}th", "{age}e"), replaced by what `replacement` gives, told whether it had one.
func replacingAge(in text: String, _ replacement: (_ hasEnding: Bool) -> String) -> String {
    var result = ""
    var rest = Substring(text)
    while let range = rest.firstRange(of: "{age}") {
        result += rest[..<range.lowerBound]
        rest = rest[range.upperBound...]
        let ending = rest.prefix { $0.isLetter }
        let hasEnding = (1...2).contains(ending.count)
        if hasEnding { rest = rest.dropFirst(ending.count) }
        result += replacement(hasEnding)
    }
    return result + rest
}

/// A message's text with `{age}` left out, for a birthday whose year is not known: with an
/// ordinal ending written onto it ("{age}th", "{age}e") and the space it leaves, so "Happy
/// {age}th birthday, Anna!" reads "Happy birthday, Anna!".
func withoutAge(_ text: String) -> String {
    let result = replacingAge(in: text) { _ in "" }
    var cleaned = ""
    for character in result {
        if character == " ", cleaned.last == " " || cleaned.isEmpty { continue }
        if ",.!?;:".contains(character), cleaned.last == " " { cleaned.removeLast() }
        cleaned.append(character)
    }
    return cleaned.last == " " ? String(cleaned.dropLast()) : cleaned
}
