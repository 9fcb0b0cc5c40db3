import TestSupport
import Testing

@testable import Schedule

/// The orientation line: the day and the part of it, the date, in the family's language, and
/// when it next changes (only at its boundaries: a part of the day beginning, midnight).
@Suite(.temporaryFolders) @ICalActor struct OrientationTests {
    func snapshot(at time: String, zone: String = "Europe/Berlin", locale: String = "en_GB",
                  settings: OrientationSettings = .init(), twelveHours: Bool? = nil) throws -> ScheduleSnapshot {
        let schedule = try ScheduleState(
            displayZone: zone, words: CalendarWords(locale: locale, twelveHours: twelveHours), orientation: settings)
        schedule.load([try feedFolder([:])])
        return schedule.snapshot(at: instant(time))
    }

    /// Through a day: the parts of the Bath Institute's Day Clock, each until the next begins;
    /// the night goes on past midnight under the new date.
    @Test(arguments: [
        ("2026-11-23T06:59:00+01:00", "Monday night · 23 November 2026", "2026-11-23T07:00:00+01:00"),
        ("2026-11-23T07:00:00+01:00", "Monday morning · 23 November 2026", "2026-11-23T12:00:00+01:00"),
        ("2026-11-23T10:41:00+01:00", "Monday morning · 23 November 2026", "2026-11-23T12:00:00+01:00"),
        ("2026-11-23T12:00:00+01:00", "Monday afternoon · 23 November 2026", "2026-11-23T17:00:00+01:00"),
        ("2026-11-23T17:30:00+01:00", "Monday evening · 23 November 2026", "2026-11-23T22:00:00+01:00"),
        ("2026-11-23T23:59:59+01:00", "Monday night · 23 November 2026", "2026-11-24T00:00:00+01:00"),
        ("2026-11-24T00:00:00+01:00", "Tuesday night · 24 November 2026", "2026-11-24T07:00:00+01:00"),
    ])
    func throughADay(time: String, line: String, until: String) throws {
        let snapshot = try snapshot(at: time)
        #expect(snapshot.orientation == line)
        #expect(snapshot.validUntil.rfc3339 == until)
    }

    /// On the nights the clocks change the line holds its words; its boundaries are wall-clock
    /// times (07:00 summer time after the spring night, winter time after the autumn one).
    @Test func daylightSavingNights() throws {
        let spring = try snapshot(at: "2027-03-28T01:30:00+01:00")
        #expect(spring.orientation == "Sunday night · 28 March 2027")
        let afterGap = try snapshot(at: "2027-03-28T03:00:00+02:00")
        #expect(afterGap.orientation == "Sunday night · 28 March 2027")
        #expect(afterGap.validUntil.rfc3339 == "2027-03-28T07:00:00+02:00")
        let autumn = try snapshot(at: "2026-10-25T02:30:00+01:00")
        #expect(autumn.orientation == "Sunday night · 25 October 2026")
        #expect(autumn.validUntil.rfc3339 == "2026-10-25T07:00:00+01:00")
    }

    /// In each language marquee names the parts of the day in, as the language says it; the
    /// dates as ICU writes them for it. Every other language in its own words too: CLDR's day
    /// period for the part (Czech, Chinese, Arabic, Hindi, Korean, Hebrew), or the day alone
    /// where CLDR has none.
    @Test(arguments: [
        ("en_GB", "Monday morning · 23 November 2026"), ("en_US", "Monday morning · November 23, 2026"),
        ("de", "Montagmorgen · 23. November 2026"), ("fr", "Lundi matin · 23 novembre 2026"),
        ("es", "Lunes por la mañana · 23 de noviembre de 2026"), ("it", "Lunedì mattina · 23 novembre 2026"),
        ("nl", "Maandagochtend · 23 november 2026"), ("pl", "Poniedziałek rano · 23 listopada 2026"),
        ("pt", "Segunda-feira de manhã · 23 de novembro de 2026"), ("sv", "Måndagsmorgon · 23 november 2026"),
        ("ja", "月曜日の朝 · 2026年11月23日"), ("cs", "Pondělí dopoledne · 23. listopadu 2026"),
        ("zh", "星期一 上午 · 2026年11月23日"), ("ar", "الاثنين، صباحًا – ٢٣ نوفمبر ٢٠٢٦"),
        ("hi", "सोमवार, सुबह · 23 नवंबर 2026"), ("ko", "월요일 오전 · 2026년 11월 23일"),
        ("he", "יום שני, בבוקר · 23 בנובמבר 2026"),
        // The part of the day named on its own (CLDR's are genitive in Russian and Ukrainian).
        ("ru", "Понедельник, утро · 23 ноября 2026\u{202F}г."), ("uk", "Понеділок, ранок · 23 листопада 2026\u{202F}р."),
        ("be", "Панядзелак, раніца · 23 лістапада 2026\u{202F}г."),
        // CLDR names no day periods in Irish and Yoruba: the day alone, never "AM".
        ("ga", "Dé Luain · 23 Samhain 2026"), ("yo", "Ajé · 23 Oṣù Bélú 2026"),
    ])
    func inEachLanguage(locale: String, line: String) throws {
        let shown = try snapshot(at: "2026-11-23T10:00:00+01:00", locale: locale).orientation
        #expect(shown == line)
    }

    /// The evening in German, the afternoon in Japanese, the night in French; by CLDR the
    /// afternoon in Chinese and the night in Korean.
    @Test func otherPartsInOtherLanguages() throws {
        #expect(try snapshot(at: "2026-11-23T14:00:00+01:00", locale: "zh").orientation == "星期一 下午 · 2026年11月23日")
        #expect(try snapshot(at: "2026-11-23T23:00:00+01:00", locale: "ko").orientation == "월요일 밤 · 2026년 11월 23일")
        #expect(try snapshot(at: "2026-11-23T18:00:00+01:00", locale: "de").orientation == "Montagabend · 23. November 2026")
        #expect(try snapshot(at: "2026-11-23T14:00:00+01:00", locale: "ja").orientation == "月曜日の午後 · 2026年11月23日")
        #expect(try snapshot(at: "2026-11-23T23:00:00+01:00", locale: "fr").orientation == "Lundi nuit · 23 novembre 2026")
    }

    /// With the time, the line changes every minute (a 12-hour clock where the language has
    /// one, or as asked; ICU sets a narrow no-break space before "PM"); parts of the day may
    /// begin at other hours.
    @Test func timeAndOwnParts() throws {
        let withTime = try snapshot(at: "2026-11-23T10:41:30+01:00", settings: OrientationSettings(showsTime: true))
        #expect(withTime.orientation == "Monday morning · 23 November 2026 · 10:41")
        #expect(withTime.validUntil.rfc3339 == "2026-11-23T10:42:00+01:00")
        let american = try snapshot(at: "2026-11-23T22:41:00+01:00", locale: "en_US", settings: OrientationSettings(showsTime: true))
        #expect(american.orientation == "Monday night · November 23, 2026 · 10:41\u{202F}PM")
        let forced = try snapshot(at: "2026-11-23T22:41:00+01:00", settings: OrientationSettings(showsTime: true), twelveHours: true)
        #expect(forced.orientation == "Monday night · 23 November 2026 · 10:41\u{202F}pm")
        var parts = DayParts()
        parts.starts[.morning] = 6 * 60
        let early = try snapshot(at: "2026-11-23T06:15:00+01:00", settings: OrientationSettings(parts: parts))
        #expect(early.orientation == "Monday morning · 23 November 2026")
        #expect(try snapshot(at: "2026-11-23T06:15:00+01:00").orientation == "Monday night · 23 November 2026")
    }

    /// Placeholders are written in the display's language: `{date}` and `{start}` in German.
    @Test func placeholdersInTheLanguage() throws {
        let schedule = try ScheduleState(displayZone: "Europe/Berlin", words: CalendarWords(locale: "de"))
        schedule.load([try feedFolder(["feed.ics": calendar(event(
            "DTSTART;TZID=Europe/Berlin:20260303T093000", "DTEND;TZID=Europe/Berlin:20260303T101500",
            "SUMMARY:Zahnarzt um {start} am {date}"))])])
        #expect(schedule.texts(at: "2026-03-03T09:45:00+01:00") == ["Zahnarzt um 09:30 am Dienstag, 3. März"])
        #expect(schedule.snapshot(at: instant("2026-03-03T09:45:00+01:00")).idleText == "Dienstag, 3. März 2026")
    }

    /// `{age}` with an ordinal ending reads as the ordinal in the display's language ("Happy
    /// {age}th birthday" read "Happy 81th birthday"); `{age}` alone stays the number.
    @Test(arguments: [
        ("en", "Happy {age}th birthday!", [1926: "Happy 100th birthday!", 1945: "Happy 81st birthday!", 1944: "Happy 82nd birthday!",
                                          1943: "Happy 83rd birthday!", 2015: "Happy 11th birthday!", 2014: "Happy 12th birthday!",
                                          2013: "Happy 13th birthday!", 2005: "Happy 21st birthday!"]),
        ("en", "Johnny turns {age} today", [1945: "Johnny turns 81 today"]),
        ("de", "Alles Gute zum {age}. Geburtstag", [1945: "Alles Gute zum 81. Geburtstag"]),
        ("de", "Happy {age}th birthday", [1945: "Happy 81. birthday"]),
        ("fr", "Joyeux {age}e anniversaire", [1945: "Joyeux 81e anniversaire"]),
    ])
    func ordinalAges(locale: String, summary: String, shown: [Int: String]) throws {
        for (year, text) in shown {
            let schedule = try ScheduleState(displayZone: "UTC", words: CalendarWords(locale: locale))
            schedule.load([try feedFolder(["feed.ics": calendar(event(
                "DTSTART;VALUE=DATE:\(year)0305", "RRULE:FREQ=YEARLY", "SUMMARY:\(summary)"))])])
            #expect(schedule.texts(at: "2026-03-05T12:00:00Z") == [text])
        }
    }

    /// Arabic's orientation line has no middle dot: beside Arabic-Indic digits it reads as a
    /// zero ("٢٧٠" for 27 ·); a dash cannot be read as a digit.
    @Test func arabicSeparatorIsNoDigit() throws {
        let schedule = try ScheduleState(displayZone: "UTC", words: CalendarWords(locale: "ar"),
                                          orientation: OrientationSettings(showsTime: true))
        schedule.load([try feedFolder([:])])
        let line = try #require(schedule.snapshot(at: instant("2026-11-27T10:41:00Z")).orientation)
        #expect(!line.contains("·"), "\(line)")
        #expect(line.components(separatedBy: " – ").count == 3, "\(line)")
    }

    /// Without the line (turned off) there is none, and it does not wake the display.
    @Test func turnedOff() throws {
        let schedule = try ScheduleState(displayZone: "Europe/Berlin")
        schedule.load([try feedFolder([:])])
        let snapshot = schedule.snapshot(at: instant("2026-11-23T10:41:00+01:00"))
        #expect(snapshot.orientation == nil)
        #expect(snapshot.validUntil.rfc3339 == "2026-11-24T00:00:00+01:00")
    }
}
