import Foundation
import Testing

@testable import Daemon

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
