import CLibical
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// Limits that keep hostile feed files from hanging or exhausting the display.
package struct ScheduleLimits: Sendable, Hashable {
    /// Larger files are refused (a family calendar exported over ten years is a few MB).
    var maximumFileBytes = 16 << 20
    /// The feed files of a reading together: the ones past it are not read (and said so), so
    /// a reading holds at most this much text at once (the text is not kept afterwards).
    var maximumTotalBytes = 256 << 20
    /// Recurrence steps spent on one series for one expansion window.
    var maximumStepsPerSeries = 100_000
    /// Occurrences kept from one series in one expansion window.
    var maximumOccurrencesPerWindow = 5_000
    /// Activations (messages with their times) computed ahead from one file...
    var maximumActivationsPerFile = 100_000
    /// ...and from all files together (the daemon keeps about 50 bytes for each).
    var maximumActivations = 400_000
    /// How long expanding one file's recurrences may take (libical needs about 60 µs a step for
    /// sub-daily rules)...
    var maximumExpansionSecondsPerFile = 2.0
    /// ...and all files together; what is not expanded in time is computed when its time comes.
    var maximumExpansionSeconds = 20.0
    /// How much processor time the feed reader may use for one file before it is stopped.
    package var maximumSecondsPerFile = 15.0
    /// How long the feed reader may make no progress at all on one file (neither compute nor
    /// answer: blocked) before it is stopped and the file tried again later.
    package var maximumStalledSeconds = 2.0
    /// How much memory the feed reader may use for one file.
    var maximumReaderBytes = 512 << 20

    package init() {}
}

/// One feed file parsed by libical, with its events copied out into `EventRecord`s and every
/// problem found on the way. Owns libical's tree, which in-file VTIMEZONEs and RRULE copies
/// point into.
@ICalActor final class CalendarFile {
    let path: String
    private(set) var problems: [FeedProblem] = []
    /// The events of each VCALENDAR with the zone its floating times are read in.
    private(set) var calendars: [(records: [EventRecord], floatingZone: Zone)] = []
    private var root: OpaquePointer?

    var hasErrors: Bool { problems.contains { $0.severity == .error } }
    var eventCount: Int { calendars.reduce(0) { $0 + $1.records.count } }
    /// How often the calendar asks to be fetched again (RFC 7986 REFRESH-INTERVAL, else the
    /// X-PUBLISHED-TTL that Google and Outlook write), in seconds.
    private(set) var refreshSeconds: Int64?

    isolated deinit {
        if let root { icalcomponent_free(root) }
    }

    /// Parses the bytes of the file at `path`. Never throws: what goes wrong becomes a problem.
    init(path: String, bytes: [UInt8], displayZone: Zone) {
        self.path = path
        ICalActor.ensureConfigured()
        let readable = SourceText.readable(bytes)
        if let readable { report(.warning, nil, readable.note) }
        var source = SourceText(bytes: readable?.bytes ?? bytes)
        if source.firstInvalidUTF8Line != nil, let text = SourceText.fromWindows1252(source.bytes) {
            report(.warning, source.firstInvalidUTF8Line, "not UTF-8: read as Windows-1252 (Latin-1), as old Windows and Outlook "
                + "exports are written; save it as UTF-8 to be sure")
            source = SourceText(bytes: text)
        }
        parse(source, displayZone: displayZone)
        problems.sort { ($0.line ?? 0) < ($1.line ?? 0) }
    }

    private func report(_ severity: FeedProblem.Severity, _ line: Int?, _ message: String) {
        problems.append(FeedProblem(severity: severity, path: path, line: line, message: message))
    }

    private func parse(_ source: SourceText, displayZone: Zone) {
        guard source.bytes.contains(where: { $0 > 0x20 }) else {
            report(.error, nil, "the file is empty")
            return
        }
        guard source.calendarCount > 0 else {
            report(.error, 1, "not an iCalendar file: there is no BEGIN:VCALENDAR line")
            return
        }
        if let line = source.tooDeepLine {
            report(.error, line, "components are nested more than \(SourceText.maximumDepth) levels deep here; "
                + "the file is not read")
            return
        }
        if let line = source.firstInvalidUTF8Line {
            report(.warning, line, "invalid UTF-8; the bad bytes are shown as \u{FFFD} (save the file as UTF-8)")
        }
        for line in source.nulLines.prefix(3) {
            report(.warning, line, "a NUL byte in the line; read as a space")
        }
        for problem in source.structureProblems {
            report(.error, problem.line, problem.message)
        }
        for line in source.longLines.prefix(3) {
            let length = megabytes(source.lineRange(line).count)
            report(.warning, line, "the line is \(length) long (RFC 5545 folds lines at 75 octets); folded before parsing")
        }
        let text = source.parserInput()
        root = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { icalparser_parse_string($0.baseAddress) }
        }
        icalerror_clear_errno()
        guard let root else {
            if source.structureProblems.isEmpty { report(.error, nil, "libical could not parse the file") }
            return
        }
        var vcalendars: [OpaquePointer] = []
        switch icalcomponent_isa(root) {
        case ICAL_VCALENDAR_COMPONENT:
            vcalendars = [root]
        case ICAL_XROOT_COMPONENT:
            vcalendars = children(of: root, ICAL_VCALENDAR_COMPONENT)
        default:
            report(.error, 1, "not an iCalendar file: there is no VCALENDAR")
            return
        }
        var eventIndex = 0
        var timeZoneIndex = 0
        for vcalendar in vcalendars {
            for timeZone in children(of: vcalendar, ICAL_VTIMEZONE_COMPONENT) {
                let line = timeZoneIndex < source.timeZoneLines.count ? source.timeZoneLines[timeZoneIndex] : nil
                timeZoneIndex += 1
                if let frequency = subYearlyRule(in: timeZone) {
                    let tzid = icalcomponent_get_first_property(timeZone, ICAL_TZID_PROPERTY)
                        .flatMap { swiftString(icalproperty_get_tzid($0)) } ?? ""
                    report(.warning, line, "VTIMEZONE \"\(tzid)\" changes its offset by a rule with FREQ=\(frequency) "
                        + "(zones change at most yearly); the zone is not used")
                    icalcomponent_remove_component(vcalendar, timeZone)
                    icalcomponent_free(timeZone)
                }
            }
            let resolver = ZoneResolver(calendar: vcalendar, owner: self)
            var floatingZone = displayZone
            var calendarColor: Colour?
            for property in properties(of: vcalendar) {
                switch icalproperty_isa(property) {
                case ICAL_X_PROPERTY where swiftString(icalproperty_get_x_name(property)) == "X-WR-TIMEZONE":
                    let name = swiftString(icalproperty_get_x(property)) ?? ""
                    if let zone = resolver.zone(forTZID: name) {
                        floatingZone = zone
                    } else {
                        report(.warning, nil, "X-WR-TIMEZONE names an unknown time zone \"\(name)\"; ignored")
                    }
                case ICAL_COLOR_PROPERTY:
                    calendarColor = color(of: property, line: nil)
                case ICAL_REFRESHINTERVAL_PROPERTY:
                    refreshSeconds = NominalDuration(icalproperty_get_refreshinterval(property))?.approximateSeconds ?? refreshSeconds
                case ICAL_X_PROPERTY where swiftString(icalproperty_get_x_name(property)) == "X-PUBLISHED-TTL":
                    if refreshSeconds == nil, let text = swiftString(icalproperty_get_x(property)) {
                        refreshSeconds = NominalDuration(icaldurationtype_from_string(text))?.approximateSeconds
                    }
                case ICAL_XLICERROR_PROPERTY:
                    reportLibicalError(property, source: source, componentLine: nil)
                default:
                    break
                }
            }
            var records: [EventRecord] = []
            for component in children(of: vcalendar, ICAL_ANY_COMPONENT) {
                guard icalcomponent_isa(component) == ICAL_VEVENT_COMPONENT else {
                    reportLibicalErrors(in: component, source: source, componentLine: nil)
                    continue
                }
                let line = eventIndex < source.eventLines.count ? source.eventLines[eventIndex] : nil
                eventIndex += 1
                if let record = extractEvent(component, line: line, source: source, resolver: resolver) {
                    if record.color == nil { record.color = calendarColor }
                    records.append(record)
                }
            }
            calendars.append((records, floatingZone))
        }
        if eventCount == 0, !source.eventLines.isEmpty, !hasErrors {
            report(.error, nil, "none of the file's \(source.eventLines.count) event(s) can be shown")
        }
    }

    /// The FREQ of a STANDARD or DAYLIGHT rule in `timeZone` that repeats more often than
    /// yearly: libical expands such a zone from its DTSTART without end.
    private func subYearlyRule(in timeZone: OpaquePointer) -> String? {
        for observance in children(of: timeZone, ICAL_ANY_COMPONENT) {
            for property in properties(of: observance) where icalproperty_isa(property) == ICAL_RRULE_PROPERTY {
                let frequency = icalproperty_get_rrule(property).freq
                if frequency != ICAL_YEARLY_RECURRENCE, frequency != ICAL_NO_RECURRENCE {
                    return swiftString(icalrecur_freq_to_string(frequency)) ?? "?"
                }
            }
        }
        return nil
    }

    // MARK: - One VEVENT

    private func extractEvent(
        _ event: OpaquePointer, line: Int?, source: SourceText, resolver: ZoneResolver
    ) -> EventRecord? {
        let record = EventRecord()
        record.line = line
        var summary: String?
        var marqueeText: String?
        var ruleProperties: [OpaquePointer] = []
        var dateWithoutYear: String?
        func propertyLine(_ name: String) -> Int? {
            line.flatMap { source.line(ofProperty: name, from: $0) } ?? line
        }
        func time(_ property: OpaquePointer, _ value: icaltimetype, _ name: String) -> TimeValue? {
            var value = value
            // Some producers write `DTSTART;VALUE=DATE:20251222T000000`; libical drops the
            // VALUE parameter, so the source line tells.
            if value.is_date == 0, value.hour == 0, value.minute == 0, value.second == 0,
                let line = propertyLine(name), source.lineText(line).uppercased().contains(";VALUE=DATE:")
            {
                report(.warning, line, "\(name) says VALUE=DATE but has a time; read as the date")
                value.is_date = 1
            }
            return timeValue(property, value, resolver: resolver) { self.report(.warning, propertyLine(name), $0) }
        }
        for property in properties(of: event) {
            switch icalproperty_isa(property) {
            case ICAL_UID_PROPERTY:
                record.uid = swiftString(icalproperty_get_uid(property)) ?? ""
            case ICAL_SEQUENCE_PROPERTY:
                record.sequence = Int(icalproperty_get_sequence(property))
            case ICAL_SUMMARY_PROPERTY:
                summary = swiftString(icalproperty_get_summary(property))
            case ICAL_PRIORITY_PROPERTY:
                let priority = Int(icalproperty_get_priority(property))
                record.priority = (1...9).contains(priority) ? priority : 5
            case ICAL_COLOR_PROPERTY:
                record.color = color(of: property, line: propertyLine("COLOR"))
            case ICAL_STATUS_PROPERTY:
                record.cancelled = icalproperty_get_status(property) == ICAL_STATUS_CANCELLED
            case ICAL_DTSTART_PROPERTY:
                record.start = time(property, icalproperty_get_dtstart(property), "DTSTART")
                // Apple Contacts' birthdays: the year written is a stand-in (1604).
                var parameter = icalproperty_get_first_parameter(property, ICAL_X_PARAMETER)
                while let current = parameter, !record.yearUnknown {
                    record.yearUnknown = swiftString(icalparameter_get_xname(current))?.uppercased() == "X-APPLE-OMIT-YEAR"
                    parameter = icalproperty_get_next_parameter(property, ICAL_X_PARAMETER)
                }
            case ICAL_DTEND_PROPERTY:
                record.end = time(property, icalproperty_get_dtend(property), "DTEND")
            case ICAL_DURATION_PROPERTY:
                record.duration = NominalDuration(icalproperty_get_duration(property))
                if record.duration == nil {
                    report(.warning, propertyLine("DURATION"), "DURATION is longer than a hundred years; ignored")
                }
            case ICAL_RRULE_PROPERTY:
                ruleProperties.append(property)
            case ICAL_RDATE_PROPERTY:
                let value = icalproperty_get_rdate(property)
                if icaltime_is_null_time(value.time) == 0 {
                    if let start = time(property, value.time, "RDATE") {
                        record.recurrenceDates.append(RecurrenceDate(start: start))
                    }
                } else if let start = time(property, value.period.start, "RDATE") {
                    let end = icaltime_is_null_time(value.period.end) == 0
                        ? time(property, value.period.end, "RDATE") : nil
                    let duration = end == nil ? NominalDuration(value.period.duration) : nil
                    if end == nil, duration == nil {
                        report(.warning, propertyLine("RDATE"), "RDATE period is longer than a hundred years; ignored")
                        continue
                    }
                    record.recurrenceDates.append(
                        RecurrenceDate(start: start, periodEnd: end,
                                       periodDuration: duration))
                }
            case ICAL_EXDATE_PROPERTY:
                // Read as DTSTART is read: `icalproperty_get_exdate` also looks its TZID up among
                // libical's built-in zones, one name at a time, for a zone marquee resolves itself.
                if let value = time(property, icalvalue_get_datetimedate(icalproperty_get_value(property)), "EXDATE") {
                    record.exceptionDates.append(value)
                }
            case ICAL_RECURRENCEID_PROPERTY:
                record.recurrenceID = time(property, icalproperty_get_recurrenceid(property), "RECURRENCE-ID")
                if let range = icalproperty_get_first_parameter(property, ICAL_RANGE_PARAMETER) {
                    record.appliesToFuture = icalparameter_get_range(range) == ICAL_RANGE_THISANDFUTURE
                }
            case ICAL_X_PROPERTY:
                switch swiftString(icalproperty_get_x_name(property))?.uppercased() {
                case "X-MARQUEE-TEXT":
                    marqueeText = swiftString(icalproperty_get_x(property))
                case "X-MARQUEE-SPEAK":
                    let value = (swiftString(icalproperty_get_x(property)) ?? "").trimmingCharacters(in: " ").uppercased()
                    record.speaks = value == "YES" || value == "TRUE"
                    if !record.speaks, value != "NO", value != "FALSE" {
                        report(.warning, propertyLine("X-MARQUEE-SPEAK"),
                               "X-MARQUEE-SPEAK \"\(value)\" is neither YES nor NO; read as NO")
                    }
                case "X-MARQUEE-EFFECT":
                    let name = (swiftString(icalproperty_get_x(property)) ?? "").lowercased()
                    record.effect = MessageEffect(rawValue: name.trimmingCharacters(in: " "))
                    if record.effect == nil {
                        report(.warning, propertyLine("X-MARQUEE-EFFECT"),
                               "unknown X-MARQUEE-EFFECT \"\(name)\" (expected scroll, typewriter or dance); ignored")
                    }
                default:
                    break
                }
            case ICAL_XLICERROR_PROPERTY:
                if let rule = ruleWithoutInvalidCount(property) {
                    ruleProperties.append(addedRule(rule, to: event))
                    report(.warning, propertyLine("RRULE"), "RRULE has an invalid COUNT; read without it")
                } else if let (written, date) = startWithoutYear(property) {
                    // A stand-in year, as Apple writes one: 1604 has a 29 February.
                    record.start = TimeValue(wall: CivilDateTime(date: date), isDate: true, basis: .floating)
                    record.yearUnknown = true
                    dateWithoutYear = written
                } else {
                    reportLibicalError(property, source: source, componentLine: line)
                }
            default:
                break
            }
        }
        let alarmLines = line.map { source.childComponentLines(of: $0, named: "VALARM") } ?? []
        for (number, alarm) in children(of: event, ICAL_VALARM_COMPONENT).enumerated() {
            reportLibicalErrors(in: alarm, source: source, componentLine: line)
            // Where its properties are; libical keeps an event's alarms in the order written.
            let alarmLine = number < alarmLines.count ? alarmLines[number] : nil
            func alarmPropertyLine(_ name: String) -> Int? {
                alarmLine.flatMap { source.line(ofProperty: name, from: $0) } ?? alarmLine ?? line
            }
            if let alarmRecord = extractAlarm(alarm, resolver: resolver, propertyLine: alarmPropertyLine) {
                record.alarms.append(alarmRecord)
            }
        }
        if dateWithoutYear != nil, ruleProperties.isEmpty {
            // A day without a year comes back every year.
            ruleProperties.append(addedRule(icalrecurrencetype_from_string("FREQ=YEARLY"), to: event))
        }
        return validate(record, of: event, rules: ruleProperties, text: marqueeText ?? summary, line: line,
                        dateWithoutYear: dateWithoutYear, propertyLine: propertyLine)
    }

    /// A DTSTART libical refused because it is a day without a year, as vCard writes a
    /// birthday (`--0305`, `--03-05`): what was written and the day in the year 1604.
    private func startWithoutYear(_ complaint: OpaquePointer) -> (String, CivilDate)? {
        guard let refused = refusedValue(complaint, in: "DTSTART"), refused.kind.hasPrefix("DATE") else { return nil }
        let written = String(refused.value).trimmingCharacters(in: " ")
        let parts = written.split(separator: "-", omittingEmptySubsequences: false)
        let digits = parts.count == 3 ? parts[2] : parts.count == 4 ? parts[2] + parts[3] : ""
        guard parts.count >= 3, parts[0].isEmpty, parts[1].isEmpty, parts.count == 3 || parts[2].count == 2,
            digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let month = Int(digits.prefix(2)), let day = Int(digits.suffix(2))
        else { return nil }
        let date = CivilDate(year: 1604, month: month, day: day)
        return date.isValid ? (written, date) : nil
    }

    /// A repaired or adjusted rule as a new RRULE property of `event`: records point to their
    /// rules in the parsed tree, which frees it with the tree.
    private func addedRule(_ rule: icalrecurrencetype, to event: OpaquePointer) -> OpaquePointer {
        let property = icalproperty_new_rrule(rule)!
        icalcomponent_add_property(event, property)
        return property
    }

    /// The value libical refused in `property` ("Can't parse as KIND value in PROPERTY property.
    /// Removing entire property: VALUE"): the kind it expected and the value as written; nil for
    /// any other complaint.
    private func refusedValue(_ complaint: OpaquePointer, in property: String) -> (kind: Substring, value: Substring)? {
        let message = swiftString(icalproperty_get_xlicerror(complaint)) ?? ""
        let opening = "Can't parse as "
        guard message.hasPrefix(opening), let kindEnd = message.firstRange(of: " value in \(property) property"),
            let marker = message.firstRange(of: "Removing entire property: ")
        else { return nil }
        return (message[message.index(message.startIndex, offsetBy: opening.count)..<kindEnd.lowerBound],
                message[marker.upperBound...])
    }

    /// The RRULE libical refused, read again without its COUNT where that was the trouble
    /// (exports write `COUNT=-1` beside `UNTIL`); nil for any other complaint.
    private func ruleWithoutInvalidCount(_ complaint: OpaquePointer) -> icalrecurrencetype? {
        guard let refused = refusedValue(complaint, in: "RRULE"), refused.kind == "RECUR" else { return nil }
        let parts = refused.value.split(separator: ";")
        let kept = parts.filter { part in
            let upper = part.uppercased()
            return !upper.hasPrefix("COUNT=") || (Int(upper.dropFirst(6)) ?? 0) > 0
        }
        guard kept.count < parts.count else { return nil }
        let rule = icalrecurrencetype_from_string(kept.joined(separator: ";"))
        icalerror_clear_errno()
        return rule.freq == ICAL_NO_RECURRENCE ? nil : rule
    }

    /// - Parameter propertyLine: where problems with one of its properties are reported
    ///   (looked up only then).
    private func extractAlarm(
        _ alarm: OpaquePointer, resolver: ZoneResolver, propertyLine: (String) -> Int?
    ) -> AlarmRecord? {
        var action: icalproperty_action?
        var trigger: AlarmTrigger?
        var text: String?
        var attachment: Attachment?
        var repeats: Int?
        var interval: NominalDuration?
        for property in properties(of: alarm) {
            switch icalproperty_isa(property) {
            case ICAL_ACTION_PROPERTY:
                action = icalproperty_get_action(property)
            case ICAL_DESCRIPTION_PROPERTY:
                text = swiftString(icalproperty_get_description(property))
            case ICAL_ATTACH_PROPERTY:
                attachment = self.attachment(property, line: propertyLine("ATTACH"))
            case ICAL_REPEAT_PROPERTY:
                repeats = Int(icalproperty_get_repeat(property))
            case ICAL_DURATION_PROPERTY:
                interval = NominalDuration(icalproperty_get_duration(property))
            case ICAL_TRIGGER_PROPERTY:
                let value = icalproperty_get_trigger(property)
                if icaltime_is_null_time(value.time) == 0 {
                    if let time = timeValue(property, value.time, resolver: resolver, warn: { _ in }) {
                        trigger = .absolute(time)
                    }
                } else {
                    guard let offset = NominalDuration(value.duration) else {
                        report(.warning, propertyLine("TRIGGER"), "TRIGGER is more than a hundred years from its event; "
                            + "the alarm is ignored")
                        return nil
                    }
                    let related = icalproperty_get_first_parameter(property, ICAL_RELATED_PARAMETER)
                    trigger = .relative(
                        seconds: Int64(offset.days) * 86_400 + offset.seconds,
                        toEnd: related.map { icalparameter_get_related($0) == ICAL_RELATED_END } ?? false)
                }
            default:
                break
            }
        }
        guard action == ICAL_ACTION_DISPLAY || action == ICAL_ACTION_AUDIO, let trigger else { return nil }
        let shown = text.map(singleLine).flatMap { $0.isEmpty || Self.isPlaceholderAlarmText($0) ? nil : $0 }
        var record = AlarmRecord(text: shown, trigger: trigger, isAudio: action == ICAL_ACTION_AUDIO)
        if action == ICAL_ACTION_AUDIO {
            switch attachment {
            case .name(let name): record.attachment = name
            case .embedded(let sound): record.embedded = sound
            case nil: break
            }
        }
        if let repeats, repeats > 0 {
            if let seconds = interval?.approximateSeconds {
                if repeats > Sounding.mostRepeats {
                    report(.warning, propertyLine("REPEAT"),
                           "REPEAT:\(repeats) is more than \(Sounding.mostRepeats); the alarm sounds again \(Sounding.mostRepeats) times")
                }
                record.repeats = min(repeats, Sounding.mostRepeats)
                record.repeatSeconds = seconds
            } else {
                report(.warning, propertyLine("REPEAT"), "REPEAT without a DURATION longer than zero; the alarm sounds once")
            }
        }
        return record
    }

    private enum Attachment {
        case name(String)
        case embedded(EmbeddedSound)
    }

    /// What an `ATTACH` holds: a URI (Apple's named sounds are URIs such as `Chord`), or a
    /// recording written into the file itself (`ENCODING=BASE64`), decoded; nil, said, for one
    /// that cannot be decoded (bounded by the file's own size).
    private func attachment(_ property: OpaquePointer, line: Int?) -> Attachment? {
        guard let attach = icalproperty_get_attach(property) else { return nil }
        if icalattach_get_is_url(attach) != 0 {
            guard let url = swiftString(icalattach_get_url(attach)) else { return nil }
            let name = url.trimmingCharacters(in: " ")
            return name.isEmpty ? nil : .name(String(name.prefix(1_024)))
        }
        guard let data = icalattach_get_data(attach) else { return nil }
        let text = UnsafeBufferPointer(start: data, count: strlen(UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self)))
        guard let bytes = decodeBase64(text), !bytes.isEmpty else {
            report(.warning, line, "the sound written into the calendar (ATTACH;ENCODING=BASE64) is not base64; "
                + "the reminder is spoken instead")
            return nil
        }
        return .embedded(EmbeddedSound(bytes))
    }

    /// What calendar apps write into a reminder when the person wrote nothing: the event's own
    /// title says more. Compared without case, spaces and a closing full stop.
    static let placeholderAlarmTexts: Set<String> = [
        "this is an event reminder",  // Google Calendar, Nextcloud Calendar
        "reminder",  // Outlook, Proton Calendar, Fastmail
        "event reminder",  // Apple Calendar
        "alert",  // Apple Calendar (iOS)
        "alarm",  // Apple Calendar (older macOS), Evolution
        "default mozilla description",  // Thunderbird
        "notification",  // Android calendar apps (DAVx⁵ exports)
    ]

    static func isPlaceholderAlarmText(_ text: String) -> Bool {
        // Reminders people wrote are mostly longer than any placeholder: not looked at closer.
        guard text.utf8.count <= 40 else { return false }
        var key = text.lowercased().trimmingCharacters(in: " \t")
        if key.hasSuffix(".") { key.removeLast() }
        return placeholderAlarmTexts.contains(key)
    }

    /// Checks what an event needs to become messages; nil (with a warning) if it cannot.
    private func validate(
        _ record: EventRecord, of event: OpaquePointer, rules: [OpaquePointer], text: String?, line: Int?,
        dateWithoutYear: String?, propertyLine: (String) -> Int?
    ) -> EventRecord? {
        var what: String { record.uid.isEmpty ? "VEVENT" : "VEVENT \"\(record.uid)\"" }
        guard let start = record.start else {
            report(.warning, line, "\(what) has no DTSTART; ignored")
            return nil
        }
        let cleanText = singleLine(text ?? "")
        guard !cleanText.isEmpty || record.recurrenceID != nil || !record.alarms.isEmpty else {
            report(.warning, line, "\(what) has no SUMMARY or X-MARQUEE-TEXT; ignored")
            return nil
        }
        record.text = cleanText
        if start.isDate, start.wall.date.year < 1900, !rules.isEmpty { record.yearUnknown = true }
        if record.yearUnknown, cleanText.contains("{age}") {
            let date = dateWithoutYear.map { "its date (\($0)) has no year" }
                ?? "the year of its date (\(start.wall.date.year)) stands for an unknown year"
            report(.warning, propertyLine("DTSTART"), "\(what): \(date), so {age} is left out")
        }
        if record.end != nil, record.duration != nil {
            report(.warning, propertyLine("DURATION"), "\(what) has both DTEND and DURATION; DURATION ignored")
            record.duration = nil
        }
        if let end = record.end, end.wall < start.wall, end.isDate || start.isDate || sameZone(start.basis, end.basis) {
            report(.warning, propertyLine("DTEND"), "\(what) ends before it starts; DTEND ignored")
            record.end = nil
        }
        if let duration = record.duration, duration.days < 0 || duration.seconds < 0 {
            report(.warning, propertyLine("DURATION"), "\(what) has a negative DURATION; ignored")
            record.duration = nil
        }
        record.rules = rules.compactMap { property in
            var rule = icalproperty_get_rrule(property)
            if rule.freq == ICAL_NO_RECURRENCE {
                report(.warning, propertyLine("RRULE"), "RRULE has no valid FREQ; ignored")
                return nil
            }
            let seconds = RuleCheck.values(rule.by_second)
            if let problem = RuleCheck.problem(with: &rule, startIsDate: start.isDate, start: start.wall) {
                report(.warning, propertyLine("RRULE"), "\(what): its RRULE \(problem); only DTSTART is used")
                return nil
            }
            return RecurrenceRule(RuleCheck.values(rule.by_second) == seconds ? property : addedRule(rule, to: event),
                                  rule, start: start.wall)
        }
        return record
    }

    private func color(of property: OpaquePointer, line: Int?) -> Colour? {
        let name = swiftString(icalproperty_get_color(property)) ?? ""
        if let color = Colour(css: name) { return color }
        report(.warning, line, "COLOR \"\(name)\" is not a CSS colour name; ignored")
        return nil
    }

    // MARK: - libical's own complaints

    private func reportLibicalErrors(in component: OpaquePointer, source: SourceText, componentLine: Int?) {
        var pending = [component]
        while let next = pending.popLast() {
            for property in properties(of: next) where icalproperty_isa(property) == ICAL_XLICERROR_PROPERTY {
                reportLibicalError(property, source: source, componentLine: componentLine)
            }
            pending += children(of: next, ICAL_ANY_COMPONENT).reversed()
        }
    }

    /// Properties that marquee does not show or use: one left empty loses nothing.
    static let emptyIsNothing: Set<String> = [
        "DESCRIPTION", "LOCATION", "COMMENT", "CATEGORIES", "CONTACT", "RESOURCES", "URL", "CLASS", "STATUS", "TRANSP",
        "ORGANIZER", "ATTENDEE", "GEO", "ATTACH", "RELATED-TO",
    ]

    /// An `X-LIC-ERROR` property: libical removed or could not read something. A warning:
    /// what it complains about is often allowed (empty text, IANA properties, RFC 7986
    /// values), and the rest of the event is still read.
    private func reportLibicalError(_ property: OpaquePointer, source: SourceText, componentLine: Int?) {
        let message = swiftString(icalproperty_get_xlicerror(property)) ?? "libical reported an error"
        let words = message.split(separator: " ")
        // Google writes an empty DESCRIPTION and LOCATION on every event: nothing is lost.
        if message.hasPrefix("No value for "), words.count > 3, Self.emptyIsNothing.contains(String(words[3])) { return }
        var line = componentLine
        if let index = words.firstIndex(where: { $0.hasPrefix("property") }), index > 0,
            let found = source.line(ofProperty: String(words[index - 1]), from: componentLine ?? 1)
        {
            line = found
        }
        report(.warning, line, message)
    }
}

/// Resolves a DATE or DATE-TIME property value: DATE values and values without TZID are
/// floating, `Z` values UTC, a TZID goes through the calendar's resolver.
@ICalActor func timeValue(
    _ property: OpaquePointer, _ value: icaltimetype, resolver: ZoneResolver, warn: (String) -> Void
) -> TimeValue? {
    guard icaltime_is_null_time(value) == 0 else { return nil }
    let wall = value.civil
    guard wall.date.isValid, (0...23).contains(wall.hour), (0...60).contains(wall.minute) else {
        warn("invalid date or time \(wall.date.year)-\(wall.date.month)-\(wall.date.day); ignored")
        return nil
    }
    if value.is_date != 0 { return TimeValue(wall: wall, isDate: true, basis: .floating) }
    if icaltime_is_utc(value) != 0 { return TimeValue(wall: wall, isDate: false, basis: .utc) }
    guard let parameter = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER),
        let tzid = swiftString(icalparameter_get_tzid(parameter))
    else {
        return TimeValue(wall: wall, isDate: false, basis: .floating)
    }
    if let zone = resolver.zone(forTZID: tzid) {
        return TimeValue(wall: wall, isDate: false, basis: .zone(zone))
    }
    warn("unknown time zone TZID=\(tzid): no such IANA zone, VTIMEZONE or Windows name; read as floating time")
    return TimeValue(wall: wall, isDate: false, basis: .floating)
}

/// Message text on one line: line breaks (also Unicode's line and paragraph separators) and
/// tabs become spaces, other controls go, and so do explicit bidirectional overrides,
/// embeddings and isolates (U+202A–U+202E, U+2066–U+2069): "Pay \u{202E}0001\u{202C} EUR"
/// read "Pay 1000 EUR" on the glass and "0001" in the status; without them the glass shows
/// what the status says. A character is kept to `longestMarkRun` combining marks (Unicode's
/// stream-safe limit): 400,000 marks on one letter kept HarfBuzz busy for minutes at every
/// frame's shaping. Text with nothing visible in it (only spaces and invisible format
/// characters such as U+200B) is empty.
func singleLine(_ text: String) -> String {
    // Most text is clean already: no control or separator, no space at either end or twice in a row.
    var previous: Unicode.Scalar = " "
    var isClean = true
    var isVisible = false
    var marks = 0
    for scalar in text.unicodeScalars {
        marks = isMark(scalar) ? marks + 1 : 0
        if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029 || isDirectionalFormatting(scalar)
            || (scalar == " " && previous == " ") || marks > longestMarkRun {
            isClean = false
            break
        }
        if !isVisible, !isInvisible(scalar) { isVisible = true }
        previous = scalar
    }
    if isClean, previous != " " { return isVisible ? text : "" }
    var result = ""
    var pendingSpace = false
    isVisible = false
    marks = 0
    for scalar in text.unicodeScalars {
        marks = isMark(scalar) ? marks + 1 : 0
        if scalar == "\n" || scalar == "\r" || scalar == "\t" || scalar == " " || scalar.value == 0x2028 || scalar.value == 0x2029 {
            pendingSpace = !result.isEmpty
        } else if scalar.properties.generalCategory == .control || isDirectionalFormatting(scalar) || marks > longestMarkRun {
            continue
        } else {
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result.unicodeScalars.append(scalar)
            if !isVisible, !isInvisible(scalar) { isVisible = true }
        }
    }
    return isVisible ? result : ""
}

/// The most combining marks kept in a row (Unicode's stream-safe text format allows 30).
let longestMarkRun = 30

/// A scalar that extends the character before it (a combining mark, a joiner, a variation
/// selector); none below U+0300.
private func isMark(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0x300 && scalar.properties.isGraphemeExtend
}

/// An explicit bidirectional embedding, override or isolate, or the end of one.
package func isDirectionalFormatting(_ scalar: Unicode.Scalar) -> Bool {
    (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
}

/// A space or a character that shows nothing by itself (U+200B, U+2060, U+FEFF, a joiner).
private func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    // In ASCII only the space and the white space controls are; Unicode's tables are asked beyond it.
    if scalar.value < 0x7F { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
    return scalar.properties.isWhitespace || scalar.properties.generalCategory == .format
        || scalar.properties.isDefaultIgnorableCodePoint
}

/// The properties of a component, collected first: libical has one property iterator per
/// component, and nested loops over it derail each other.
@ICalActor func properties(of component: OpaquePointer) -> [OpaquePointer] {
    var result: [OpaquePointer] = []
    // An event has a dozen or so: one allocation, not one for every doubling.
    result.reserveCapacity(16)
    var property = icalcomponent_get_first_property(component, ICAL_ANY_PROPERTY)
    while let current = property {
        result.append(current)
        property = icalcomponent_get_next_property(component, ICAL_ANY_PROPERTY)
    }
    return result
}

@ICalActor func children(of component: OpaquePointer, _ kind: icalcomponent_kind) -> [OpaquePointer] {
    var result: [OpaquePointer] = []
    var child = icalcomponent_get_first_component(component, kind)
    while let current = child {
        result.append(current)
        child = icalcomponent_get_next_component(component, kind)
    }
    return result
}

