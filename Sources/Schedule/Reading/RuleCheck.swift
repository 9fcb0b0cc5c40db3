import CLibical

/// Finds the RRULEs libical cannot iterate before it is asked to. Its iterator steps through
/// every second, minute or hour of a sub-daily rule inside one `icalrecur_iterator_next`
/// call, until year 2582 if nothing matches: a rule whose dates never come (30 February,
/// second 60, an all-day event every second) or come only years apart would freeze the reader
/// where no step limit reaches.
enum RuleCheck {
    /// The years over which date filters are tried: 28 years repeat every weekday and leap day.
    private static let cycleStartYear = 2001
    private static let cycleYears = 28
    /// How many steps libical may take to find one occurrence: about a second's work
    /// (it makes about 600,000 a second), a year of minutes.
    static let maximumStepsToAnOccurrence = 600_000

    /// Why `rule` must not be handed to libical (nil if it may be). Drops second 60 from
    /// BYSECOND first: libical never produces a leap second.
    static func problem(with rule: inout icalrecurrencetype, startIsDate: Bool, start: CivilDateTime) -> String? {
        let seconds = values(rule.by_second)
        if seconds.contains(60) {
            set(&rule.by_second, seconds.filter { $0 != 60 })
            if seconds.allSatisfy({ $0 == 60 }) { return "asks only for second 60, a leap second, which never comes" }
        }
        guard let unit = stepSeconds(rule.freq) else { return nil }
        if startIsDate, unit < 86_400 || !values(rule.by_hour).isEmpty || !values(rule.by_minute).isEmpty
            || !values(rule.by_second).isEmpty {
            return "repeats by the hour, minute or second, but the event is all-day (a DATE)"
        }
        if unit < 86_400, !values(rule.by_week_no).isEmpty {
            return "has BYWEEKNO, which RFC 5545 allows only with FREQ=YEARLY"
        }
        guard let gap = longestGapInDays(rule) else {
            return "matches no date: its BYMONTH, BYMONTHDAY, BYYEARDAY and BYDAY exclude each other"
        }
        let interval = Int(max(1, rule.interval))
        if unit < 86_400, !reachesTimeOfDay(rule, start: start, step: unit * interval) {
            return "never reaches its BYHOUR, BYMINUTE or BYSECOND with INTERVAL=\(interval)"
        }
        let steps = gap * 86_400 / (unit * interval)
        if steps > maximumStepsToAnOccurrence {
            let every = unit == 1 ? "second" : unit == 60 ? "minute" : "hour"
            return "steps every \(every), but its dates can be \(gap) days apart: libical would take \(steps) steps "
                + "to find one"
        }
        return nil
    }

    /// The length of one step of a FREQ, for the frequencies whose steps are days or shorter.
    static func stepSeconds(_ frequency: icalrecurrencetype_frequency) -> Int? {
        switch frequency {
        case ICAL_SECONDLY_RECURRENCE: 1
        case ICAL_MINUTELY_RECURRENCE: 60
        case ICAL_HOURLY_RECURRENCE: 3_600
        case ICAL_DAILY_RECURRENCE: 86_400
        default: nil
        }
    }

    /// The most days from one date the rule's date filters allow to the next, or nil if none is.
    private static func longestGapInDays(_ rule: icalrecurrencetype) -> Int? {
        let months = Set(values(rule.by_month))
        let monthDays = Set(values(rule.by_month_day))
        let yearDays = Set(values(rule.by_year_day))
        let weekdays = Set(values(rule.by_day).map { Int(icalrecurrencetype_day_day_of_week(Int16($0)).rawValue) - 1 })
        if months.isEmpty, monthDays.isEmpty, yearDays.isEmpty, weekdays.isEmpty { return 1 }
        // Weekdays alone (`BYDAY=MO,WE,FR`, the common case): the widest step round the week.
        if months.isEmpty, monthDays.isEmpty, yearDays.isEmpty {
            let days = weekdays.sorted()
            return zip(days, days.dropFirst() + [days[0] + 7]).map { $1 - $0 }.max()
        }
        var first: Int?
        var previous: Int?
        var longest = 0
        var offset = 0
        var weekday = CivilDate(year: cycleStartYear, month: 1, day: 1).weekday
        for year in cycleStartYear..<cycleStartYear + cycleYears {
            let yearLength = daysInMonth(year, 2) == 29 ? 366 : 365
            var dayOfYear = 0
            for month in 1...12 {
                let monthLength = daysInMonth(year, month)
                for day in 1...monthLength {
                    dayOfYear += 1
                    defer {
                        offset += 1
                        weekday = (weekday + 1) % 7
                    }
                    guard months.isEmpty || months.contains(month),
                        monthDays.isEmpty || monthDays.contains(day) || monthDays.contains(day - monthLength - 1),
                        yearDays.isEmpty || yearDays.contains(dayOfYear) || yearDays.contains(dayOfYear - yearLength - 1),
                        weekdays.isEmpty || weekdays.contains(weekday)
                    else { continue }
                    if let previous { longest = max(longest, offset - previous) }
                    first = first ?? offset
                    previous = offset
                }
            }
        }
        guard let first, let previous else { return nil }
        return max(longest, first + offset - previous)
    }

    /// Whether stepping `step` seconds from `start` ever lands on a time of day the rule's
    /// BYHOUR, BYMINUTE and BYSECOND limit it to. Finer parts than the FREQ expand, not limit.
    private static func reachesTimeOfDay(_ rule: icalrecurrencetype, start: CivilDateTime, step: Int) -> Bool {
        let unit = step / max(1, Int(rule.interval))
        let hours = values(rule.by_hour)
        let minutes = unit <= 60 ? values(rule.by_minute) : []
        let seconds = unit == 1 ? values(rule.by_second) : []
        if hours.isEmpty, minutes.isEmpty, seconds.isEmpty { return true }
        let stride = gcd(step, 86_400)
        let startOfDay = start.hour * 3_600 + start.minute * 60 + start.second
        for hour in hours.isEmpty ? Array(0..<24) : hours {
            for minute in minutes.isEmpty ? (unit <= 60 ? Array(0..<60) : [start.minute]) : minutes {
                for second in seconds.isEmpty ? (unit == 1 ? Array(0..<60) : [start.second]) : seconds {
                    let time = hour * 3_600 + minute * 60 + second
                    if (time - startOfDay) % stride == 0 { return true }
                }
            }
        }
        return false
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    private static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The values of one of libical's BY* arrays (each ends at `ICAL_RECURRENCE_ARRAY_MAX`).
    static func values<Storage>(_ array: Storage) -> [Int] {
        withUnsafeBytes(of: array) { bytes in
            Array(bytes.bindMemory(to: Int16.self).prefix { Int32($0) != ICAL_RECURRENCE_ARRAY_MAX.rawValue }
                .map(Int.init))
        }
    }

    /// Whether one of libical's BY* arrays has no values.
    static func isEmpty<Storage>(_ array: Storage) -> Bool {
        withUnsafeBytes(of: array) { Int32($0.load(as: Int16.self)) == ICAL_RECURRENCE_ARRAY_MAX.rawValue }
    }

    private static func set<Storage>(_ array: inout Storage, _ newValues: [Int]) {
        withUnsafeMutableBytes(of: &array) { bytes in
            let slots = bytes.bindMemory(to: Int16.self)
            for index in slots.indices {
                slots[index] = index < newValues.count ? Int16(newValues[index])
                    : Int16(ICAL_RECURRENCE_ARRAY_MAX.rawValue)
            }
        }
    }
}

/// A rule whose instances repeat evenly: exactly one in every step of its FREQ (no BY* part
/// but the start's own weekday, a month day every month has, no 29 February), or the same
/// weekdays in every week or run of days (`WEEKLY;BYDAY=MO,WE,FR`, `DAILY;BYDAY=MO,TU,WE,TH,FR`,
/// with an INTERVAL and a WKST, the start on one of them), or the n-th weekday of every month
/// (`MONTHLY;BYDAY=2TU`, from any start). Its k-th instance is computed, so
/// it is iterated without libical (whose iterator runs ICU calendar arithmetic for every step:
/// a minutely rule cost milliseconds a day, a counted weekly one 6 µs an instance from its
/// start), and its COUNT is read as an UNTIL.
struct EvenRule {
    private enum Step {
        case seconds(Int64)
        case months(Int64)
        /// Days from `base`: the `offsets` in every `period` days, the first `skipped` of them
        /// (before the start, in its week) left out.
        case days(base: CivilDate, period: Int64, offsets: [Int64], skipped: Int64)
        /// The `week`-th `weekday` (0 Sunday; a negative week counts from the month's end) of
        /// every `months`-th month from the start's, the first `skipped` of them (one before the
        /// start, in its month) left out.
        case monthlyWeekday(months: Int64, week: Int, weekday: Int, skipped: Int64)
    }

    private let start: CivilDateTime
    private let step: Step
    /// Instances farther from the start than this (over 30,000 years) are beyond any date
    /// shown; the bound keeps the arithmetic in range.
    private static let farthestSeconds: Int64 = 1 << 40
    private static let farthestMonths: Int64 = 1 << 20

    init?(_ rule: icalrecurrencetype, start: CivilDateTime) {
        // Asked for every series and window: no arrays made for the BY* parts.
        guard RuleCheck.isEmpty(rule.by_second), RuleCheck.isEmpty(rule.by_minute), RuleCheck.isEmpty(rule.by_hour),
              RuleCheck.isEmpty(rule.by_month_day), RuleCheck.isEmpty(rule.by_year_day),
              RuleCheck.isEmpty(rule.by_week_no), RuleCheck.isEmpty(rule.by_month), RuleCheck.isEmpty(rule.by_set_pos)
        else { return nil }
        let days = RuleCheck.values(rule.by_day)
        let interval = Int64(max(1, rule.interval))
        self.start = start
        switch rule.freq {
        case ICAL_SECONDLY_RECURRENCE where days.isEmpty: step = .seconds(interval)
        case ICAL_MINUTELY_RECURRENCE where days.isEmpty: step = .seconds(interval * 60)
        case ICAL_HOURLY_RECURRENCE where days.isEmpty: step = .seconds(interval * 3_600)
        case ICAL_DAILY_RECURRENCE where days.isEmpty: step = .seconds(interval * 86_400)
        case ICAL_WEEKLY_RECURRENCE:
            guard let weekdays = Self.plainWeekdays(days, including: start.date.weekday) else { return nil }
            if weekdays.count <= 1 {
                step = .seconds(interval * 7 * 86_400)
            } else {
                // Weeks begin on WKST (Monday unless told); every INTERVAL-th one from the start's.
                let weekStart = rule.week_start == ICAL_NO_WEEKDAY ? 1 : Int(rule.week_start.rawValue) - 1
                let into = Int64((start.date.weekday - weekStart + 7) % 7)
                let offsets = weekdays.map { Int64(($0 - weekStart + 7) % 7) }.sorted()
                step = .days(base: start.date.adding(days: -Int(into)), period: 7 * interval, offsets: offsets,
                             skipped: Int64(offsets.filter { $0 < into }.count))
            }
        case ICAL_DAILY_RECURRENCE:
            guard let weekdays = Self.plainWeekdays(days, including: start.date.weekday), weekdays.count > 1 else { return nil }
            // Every INTERVAL-th day on those weekdays: the same days every INTERVAL weeks.
            let period = 7 * interval
            let offsets = stride(from: Int64(0), to: period, by: Int(interval)).filter { day in
                weekdays.contains(start.date.adding(days: Int(day)).weekday)
            }
            step = .days(base: start.date, period: period, offsets: offsets, skipped: 0)
        case ICAL_MONTHLY_RECURRENCE where days.isEmpty && start.date.day <= 28: step = .months(interval)
        case ICAL_MONTHLY_RECURRENCE where days.count == 1:
            // `BYDAY=2TU`, `BYDAY=-1FR`: weeks every month has (not a fifth). A start on another
            // day is no instance of the rule (libical counts from the first that is).
            let week = Int(icalrecurrencetype_day_position(Int16(days[0])))
            let weekday = Int(icalrecurrencetype_day_day_of_week(Int16(days[0])).rawValue) - 1
            guard (1...4).contains(abs(week)) else { return nil }
            let startMonths = Self.weekday(week, weekday, year: start.date.year, month: start.date.month)
            step = .monthlyWeekday(months: interval, week: week, weekday: weekday,
                                   skipped: startMonths < start.date ? 1 : 0)
        case ICAL_YEARLY_RECURRENCE where days.isEmpty && !(start.date.month == 2 && start.date.day == 29):
            step = .months(interval * 12)
        default: return nil
        }
    }

    /// The `week`-th `weekday` of a month (a negative week counts from its end).
    private static func weekday(_ week: Int, _ weekday: Int, year: Int, month: Int) -> CivilDate {
        if week > 0 {
            let first = CivilDate(year: year, month: month, day: 1)
            return first.adding(days: (weekday - first.weekday + 7) % 7 + (week - 1) * 7)
        }
        let last = CivilDate(year: month == 12 ? year + 1 : year, month: month % 12 + 1, day: 1).adding(days: -1)
        return last.adding(days: -((last.weekday - weekday + 7) % 7) + (week + 1) * 7)
    }

    /// The weekdays (0 Sunday) of BYDAY values without a position, the start's among them;
    /// none: the start's own. nil for values with a position or without the start's weekday.
    private static func plainWeekdays(_ days: [Int], including startDay: Int) -> [Int]? {
        guard !days.isEmpty else { return [startDay] }
        var weekdays = 0  // a bit for each weekday
        for day in days {
            guard icalrecurrencetype_day_position(Int16(day)) == 0 else { return nil }
            weekdays |= 1 << (Int(icalrecurrencetype_day_day_of_week(Int16(day)).rawValue) - 1)
        }
        return weekdays & (1 << startDay) != 0 ? (0..<7).filter { weekdays & (1 << $0) != 0 } : nil
    }

    /// The instance `index` steps after the start (nil past any date shown).
    func instance(_ index: Int64) -> CivilDateTime? {
        switch step {
        case .monthlyWeekday(let months, let week, let weekday, let skipped):
            guard index <= Self.farthestMonths / months - skipped else { return nil }
            let month = Int64(start.date.year) * 12 + Int64(start.date.month - 1) + (index + skipped) * months
            var instance = start
            instance.date = Self.weekday(week, weekday, year: Int(month / 12), month: Int(month % 12) + 1)
            return instance
        case .days(let base, let period, let offsets, let skipped):
            let position = index + skipped
            guard position <= Self.farthestSeconds / 86_400 / period * Int64(offsets.count) else { return nil }
            let day = position / Int64(offsets.count) * period + offsets[Int(position % Int64(offsets.count))]
            var instance = start
            instance.date = base.adding(days: Int(day))
            return instance
        case .seconds(let seconds):
            guard index <= Self.farthestSeconds / seconds else { return nil }
            return start.adding(seconds: index * seconds)
        case .months(let months):
            guard index <= Self.farthestMonths / months else { return nil }
            let month = Int64(start.date.year) * 12 + Int64(start.date.month - 1) + index * months
            var instance = start
            instance.date = CivilDate(year: Int(month / 12), month: Int(month % 12) + 1, day: start.date.day)
            return instance
        }
    }

    /// The first instance at or after `wall` (nil past any date shown).
    func firstInstance(atOrAfter wall: CivilDateTime) -> CivilDateTime? {
        instance(firstIndex(atOrAfter: wall))
    }

    /// The instances from the first at or after `wall` on, one per call, and none after `last`:
    /// what libical's iterator gives for this rule, computed without it.
    func instances(atOrAfter wall: CivilDateTime, through last: CivilDateTime?) -> () -> CivilDateTime? {
        var index = firstIndex(atOrAfter: wall)
        return {
            guard let next = instance(index), last.map({ next <= $0 }) ?? true else { return nil }
            index += 1
            return next
        }
    }

    private func firstIndex(atOrAfter wall: CivilDateTime) -> Int64 {
        guard start < wall else { return 0 }
        switch step {
        case .days(let base, let period, let offsets, let skipped):
            // The period holding the wall's day; its first instance at or after the wall, or the next period's first.
            let into = wall.date.daysSinceEpoch - base.daysSinceEpoch
            let first = into / period * Int64(offsets.count)
            var position = first
            while let candidate = instance(position - skipped), candidate < wall { position += 1 }
            return position - skipped
        case .seconds(let seconds):
            return (wall.secondsAsUTC - start.secondsAsUTC + seconds - 1) / seconds
        case .months(let months), .monthlyWeekday(let months, _, _, _):
            // The first step in or after the wall's month; the next one if its instance is before the wall.
            var skipped: Int64 = 0
            if case .monthlyWeekday(_, _, _, let left) = step { skipped = left }
            let apart = Int64(wall.date.year - start.date.year) * 12 + Int64(wall.date.month - start.date.month)
            let sameMonth = max(0, (apart + months - 1) / months - skipped)
            return instance(sameMonth).map { $0 < wall } ?? false ? sameMonth + 1 : sameMonth
        }
    }
}
