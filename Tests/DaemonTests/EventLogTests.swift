import DaemonTestKit
import Foundation
import Testing

@testable import Daemon
@testable import Schedule

/// Log lines as journald reads them, with repeats held back.
@Suite struct EventLogTests {
    @Test func journalPrioritiesAndRepeats() {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        #expect(log.isEnabled)
        log.log(.error, "feeds/a.ics:3: error: broken")
        log.log(.error, "feeds/a.ics:3: error: broken")
        log.log(.error, "feeds/a.ics:3: error: broken")
        log.log(.notice, "paused by request")
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines == ["<3>feeds/a.ics:3: error: broken", "<5>paused by request"])
    }

    /// A calendar fetched again with the same problems logs them once; a file with thousands
    /// logs the first five and how many more.
    @Test func aFeedsProblemsAreLoggedOncePerVersionAndSummarised() {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let problems = (1...20_000).map { (number: Int) in
            FeedProblem(severity: .warning, path: "sub.ics", line: number, message: "VEVENT \"\(number)\" has no DTSTART; ignored")
        }
        let status = FeedStatus(path: "sub.ics", state: .loaded, problems: problems, eventCount: 3)
        log.feeds([status])
        log.feeds([status])
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.contains("has no DTSTART") }.count == 5)
        #expect(lines.contains("<4>sub.ics: 19995 more problems (0 errors); `marquee check sub.ics` lists them all"))
        #expect(lines.filter { $0.contains("loaded, 3 event(s)") }.count == 1, "the second is held back as a repeat")
        // A new version with other problems is logged (and only what is new to the last minute).
        var changed = status
        changed.problems = [FeedProblem(severity: .error, path: "sub.ics", line: 2, message: "DTSTART is garbage")]
        log.feeds([changed])
        let next = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        #expect(next.contains("DTSTART is garbage"))
    }

    /// Text from a file cannot start a journal line of its own (at emergency priority) or
    /// drive the terminal that shows the log.
    @Test func controlCharactersAreEscaped() {
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        log.log(.warning, "feeds/a.ics:2: UID \u{1B}]0;owned\u{07}\u{1B}[2J\n<0>panic \u{9B}31m")
        let written = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        #expect(written == "<4>feeds/a.ics:2: UID \\e]0;owned\\u{7}\\e[2J\\n<0>panic \\u{9B}31m\n")
    }

    /// Outside the journal there is no prefix.
    @Test func plainWithoutJournal() {
        let pipe = Pipe()
        let log = EventLog(environment: [:], descriptor: pipe.fileHandleForWriting.fileDescriptor)
        log.log(.warning, "no status socket")
        #expect(String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self) == "no status socket\n")
    }

    /// With a log, telling is logging (the silent case, on the display's own terminal, is
    /// seen in TerminalTests.unusableFramebufferIsToldOnTheTerminal).
    @Test func tellingIsLoggingWhereThereIsALog() throws {
        let pipe = Pipe()
        let enabled = EventLog(environment: [:], descriptor: pipe.fileHandleForWriting.fileDescriptor)
        enabled.tell(.warning, "no status socket")
        #expect(String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self) == "no status socket\n")
    }
}
