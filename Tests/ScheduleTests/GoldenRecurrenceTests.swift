import CLibical
import Foundation
import TestSupport
import Testing

@testable import Schedule

/// libical's own golden RRULE cases (tag v3.0.16), run through marquee's binding: the
/// RRULE read from a parsed property, a floating DTSTART, `skip(to:)` and the iterator loop.
@Suite(.temporaryFolders) @ICalActor struct GoldenRecurrenceTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var rrule: String
        var dtstart: String
        var start_at: String?
        var instances: [String]
        var testDescription: String { "\(rrule) from \(dtstart)" }
    }

    nonisolated static let cases: [Case] = {
        let url = Bundle.module.url(forResource: "icalrecur_v3.0.16", withExtension: "jsonl",
                                    subdirectory: "Fixtures/libical-recur")!
        let text = try! String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").map { try! JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }()

    @Test func allSeventyCasesAreThere() {
        #expect(Self.cases.count == 70)
    }

    @Test(arguments: cases)
    func reproduces(_ golden: Case) throws {
        let text = calendar(event("DTSTART:\(golden.dtstart)", "RRULE:\(golden.rrule)", "SUMMARY:x"))
        let file = CalendarFile(path: "rule.ics", bytes: Array(text.utf8), displayZone: .utc)
        let record = try #require(file.calendars.first?.records.first)
        let rule = try #require(record.rules.first)
        let start = try #require(record.start)
        let iterator = try #require(RecurrenceIterator(rule: icalproperty_get_rrule(rule.property), start: start.wall, isDate: start.isDate))
        if let startAt = golden.start_at {
            let skipTo = try #require(TimeValue(golden: startAt))
            iterator.skip(to: skipTo)
        }
        var instances: [String] = []
        while instances.count <= golden.instances.count, let wall = iterator.next() {
            instances.append(Self.format(wall, isDate: start.isDate, utc: golden.dtstart.hasSuffix("Z")))
        }
        #expect(instances == golden.instances)
    }

    static func format(_ wall: CivilDateTime, isDate: Bool, utc: Bool) -> String {
        let date = pad(wall.date.year, 4) + pad(wall.date.month) + pad(wall.date.day)
        if isDate { return date }
        return date + "T" + pad(wall.hour) + pad(wall.minute) + pad(wall.second) + (utc ? "Z" : "")
    }
}

extension TimeValue {
    /// `19970902T090000` or `19970902` as the golden files write them.
    init?(golden text: String) {
        let digits = text.filter(\.isNumber).compactMap { Int(String($0)) }
        guard digits.count >= 8 else { return nil }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        let wall = CivilDateTime(number(0..<4), number(4..<6), number(6..<8),
                                 digits.count >= 14 ? number(8..<10) : 0, digits.count >= 14 ? number(10..<12) : 0,
                                 digits.count >= 14 ? number(12..<14) : 0)
        self.init(wall: wall, isDate: digits.count < 14, basis: .floating)
    }
}

extension RecurrenceIterator {
    func skip(to value: TimeValue) {
        skip(to: value.wall)
    }
}
