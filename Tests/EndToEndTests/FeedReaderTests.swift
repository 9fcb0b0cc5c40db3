import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Schedule

/// libical runs in `marquee read-feed` helper processes: whatever one file makes the reader
/// do (hang, crash, answer garbage), that file is reported and every other file still shows.
@Suite(.tags(.live), .tier(.live)) @ICalActor struct FeedReaderTests {
    static let at = "2026-07-01T10:30:00Z"


    /// A calendar of one event on 1 July 2026; `extra` lines tell the test's reader what to do.
    static func calendar(_ uid: String, _ summary: String, _ extra: String...) -> String {
        TestSupport.calendar(event(["UID:\(uid)", "DTSTART:20260701T100000Z", "SUMMARY:\(summary)"] + extra))
    }

    /// A folder with `good.ics` and `bad.ics`, removed after `body`.
    func withFeeds(bad: String, _ body: (String) throws -> Void) throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            try Data(Self.calendar("good", "Good").utf8).write(to: folder.appendingPathComponent("good.ics"))
            try Data(bad.utf8).write(to: folder.appendingPathComponent("bad.ics"))
            try body(folder.path)
        }
    }

    /// The real reader, except that a request holding `X-TEST-<marker>` meets `action` first
    /// (the request goes through a temporary file: it holds NUL bytes).
    static func reader(unless marker: String, then action: String) -> FeedReader {
        let script = """
            request=$(mktemp); cat > "$request"
            if grep -q 'X-TEST-\(marker)' "$request"; then rm -f "$request"; \(action); fi
            "$0" read-feed < "$request"; status=$?; rm -f "$request"; exit $status
            """
        return .helper(executable: "/bin/sh", arguments: ["-c", script, CommandLineTests.binary])
    }

    func load(_ folder: String, reader: FeedReader, limits: ScheduleLimits = .init()) throws -> (ScheduleState, FeedStatus) {
        let schedule = try ScheduleState(displayZone: "UTC", limits: limits, reader: reader)
        let statuses = schedule.load([folder], around: instant(Self.at))
        #expect(statuses.first { $0.path.hasSuffix("/good.ics") }?.state == .loaded)
        #expect(schedule.messages(at: instant(Self.at)).map(\.text) == ["Good"])
        return (schedule, try #require(statuses.first { $0.path.hasSuffix("/bad.ics") }))
    }

    /// A reader that computes forever is stopped once it has used its deadline in processor time.
    @Test func readerThatComputesForeverIsStoppedAtItsDeadline() throws {
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 0.5
        try withFeeds(bad: Self.calendar("bad", "Bad", "X-TEST-SPIN:1")) { folder in
            let clock = ContinuousClock()
            let started = clock.now
            let (_, status) = try load(folder, reader: Self.reader(unless: "SPIN", then: "while :; do :; done"),
                                       limits: limits)
            #expect(status.problems.map(\.message) == ["reading the file took longer than 0.5 s; stopped"])
            #expect(clock.now - started < .seconds(10))
        }
    }

    /// The deadline is processor time: a reader that waits (as one at the lowest priority waits
    /// for a processor on a busy machine) longer than the deadline is not taken for a hung one,
    /// up to four times the deadline.
    @Test func aReaderThatWaitsIsNotStoppedAtItsDeadline() throws {
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 0.5
        try withFeeds(bad: Self.calendar("bad", "Bad")) { folder in
            let waiting = FeedReader.helper(executable: "/bin/sh", arguments: [
                "-c", "sleep 1; exec \"$0\" read-feed", CommandLineTests.binary])
            let schedule = try ScheduleState(displayZone: "UTC", limits: limits, reader: waiting)
            let statuses = schedule.load([folder], around: instant(Self.at))
            #expect(statuses.map(\.state) == [.loaded, .loaded], "\(statuses)")
            #expect(schedule.messages(at: instant(Self.at)).map(\.text) == ["Bad", "Good"])
        }
    }

    /// A reader that neither computes nor answers is stopped at four times its deadline.
    @Test func readerThatHangsIsStoppedAtItsDeadline() throws {
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 0.5
        try withFeeds(bad: Self.calendar("bad", "Bad", "X-TEST-HANG:1")) { folder in
            let (schedule, status) = try load(folder, reader: Self.reader(unless: "HANG", then: "exec sleep 60"),
                                              limits: limits)
            #expect(status.state == .failed(keptLastGood: false))
            #expect(status.problems.map(\.message) == ["reading the file took longer than 0.5 s; stopped"])
            // Given up until the file changes: later queries do not wait for it again.
            let later = instant("2026-09-01T00:00:00Z")
            #expect(schedule.messages(at: later).isEmpty)
            #expect(schedule.feeds.first { $0.path.hasSuffix("/bad.ics") }?.problems.count == 1)
        }
    }

    @Test func readerThatCrashes() throws {
        try withFeeds(bad: Self.calendar("bad", "Bad", "X-TEST-CRASH:1")) { folder in
            let (_, status) = try load(folder, reader: Self.reader(unless: "CRASH", then: "kill -SEGV $$"))
            #expect(status.state == .failed(keptLastGood: false))
            #expect(status.problems.first?.message.hasPrefix("libical crashed on this file (segmentation fault)") == true,
                    "\(status.problems)")
        }
    }

    @Test func readerThatAnswersGarbage() throws {
        try withFeeds(bad: Self.calendar("bad", "Bad", "X-TEST-GARBLE:1")) { folder in
            let (_, status) = try load(folder, reader: Self.reader(unless: "GARBLE", then: "echo garbage; exit 0"))
            #expect(status.problems.map(\.message) == ["marquee's feed reader failed on this file (exit status 0)"])
        }
    }

    /// A crash of the reader on the new version of a file keeps its last good version.
    @Test func crashOnAChangedFileKeepsTheLastGoodVersion() throws {
        try withFeeds(bad: Self.calendar("bad", "Version 1")) { folder in
            let schedule = try ScheduleState(displayZone: "UTC", reader: Self.reader(unless: "CRASH", then: "kill -SEGV $$"))
            schedule.load([folder], around: instant(Self.at))
            try Data(Self.calendar("bad", "Version 2", "X-TEST-CRASH:1").utf8)
                .write(to: URL(fileURLWithPath: folder + "/bad.ics"))
            let status = schedule.reload().first { $0.path.hasSuffix("/bad.ics") }
            #expect(status?.state == .failed(keptLastGood: true))
            #expect(Set(schedule.messages(at: instant(Self.at)).map(\.text)) == ["Good", "Version 1"])
        }
    }

    /// Small files share a reader process, and a reload after one file changed reads only that
    /// file again (each reader is a process start, slow on a small kiosk box).
    @Test func reloadReadsOnlyChangedFiles() throws {
        try withFeeds(bad: Self.calendar("bad", "Version 1")) { folder in
            let counter = folder + "/readers.count"
            let reader = FeedReader.helper(executable: "/bin/sh", arguments: [
                "-c", "echo >> \"$1\"; exec \"$0\" read-feed", CommandLineTests.binary, counter])
            let schedule = try ScheduleState(displayZone: "UTC", reader: reader)
            schedule.load([folder], around: instant(Self.at))
            func readers() throws -> Int { try String(contentsOfFile: counter, encoding: .utf8).count }
            #expect(try readers() == 1)
            schedule.reload()
            #expect(try readers() == 1)
            try Data(Self.calendar("bad", "Version 2").utf8).write(to: URL(fileURLWithPath: folder + "/bad.ics"))
            schedule.reload()
            #expect(try readers() == 2)
            #expect(Set(schedule.messages(at: instant(Self.at)).map(\.text)) == ["Good", "Version 2"])
        }
    }

    /// A crash among many small files read together costs the crashing file only: the others
    /// are read again, each on its own, and all show.
    @Test func aCrashInABatchCostsOneFile() throws {
        try withFeeds(bad: Self.calendar("bad", "Bad", "X-TEST-CRASH:1")) { folder in
            for index in 0..<40 {
                try Data(Self.calendar("small-\(index)", "Small \(index)").utf8)
                    .write(to: URL(fileURLWithPath: folder + "/small-\(index).ics"))
            }
            let schedule = try ScheduleState(displayZone: "UTC", reader: Self.reader(unless: "CRASH", then: "kill -SEGV $$"))
            let statuses = schedule.load([folder], around: instant(Self.at))
            #expect(statuses.filter { $0.state == .loaded }.count == 41)
            #expect(statuses.filter { $0.state != .loaded }.map(\.path) == [folder + "/bad.ics"])
            #expect(schedule.messages(at: instant(Self.at)).count == 41)
        }
    }

    /// One of thirty small files hangs libical (a shim preloaded into the reader): the other
    /// twenty-nine are in effect while it is still being read, and the schedule answers
    /// meanwhile. They waited for it: a batch waited for its slowest file, then every file
    /// of it was read again alone (with a last good copy of each, the display showed only the
    /// date for 31 s). The shim holds the file until the test releases it, so no deadline or
    /// timing decides the outcome.
    @Test nonisolated func aHungFileHoldsUpOnlyItself() async throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.url.appendingPathComponent("feeds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<30 {
            let extra = index == 7 ? ["X-TEST-HANG:1"] : []
            try Data(TestSupport.calendar(event(["UID:f\(index)", "DTSTART:20260701T100000Z", "SUMMARY:File \(index)"] + extra)).utf8)
                .write(to: folder.appendingPathComponent(String(format: "f%02d.ics", index)))
        }
        let (reader, release) = try Self.hangingReader(in: temporary)
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 3600
        let schedule = try await Schedule(displayZone: "UTC", limits: limits, reader: reader)
        let progressed = Mutex(0)
        let at = instant("2026-07-01T10:30:00Z")
        let loading = Task { await schedule.load([folder.path], around: at) { progressed.withLock { $0 += 1 } } }
        let othersShown = await eventually(within: scheduleWaitLimit) { await schedule.messages(at: at).count == 29 }
        #expect(othersShown)
        #expect(!(await schedule.messages(at: at)).map(\.text).contains("File 7"))
        #expect(progressed.withLock { $0 } >= 1)
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        let statuses = await loading.value
        #expect(statuses.count == 30 && statuses.allSatisfy { $0.state == .loaded }, "\(statuses)")
        #expect(await schedule.messages(at: at).count == 30)
    }

    /// The real reader with libical hanging on a calendar that holds X-TEST-HANG until the
    /// file `release` exists (`Fixtures/hang-libical.c`, preloaded).
    nonisolated static func hangingReader(in temporary: TemporaryFolder) throws -> (reader: FeedReader, release: String) {
        let shim = temporary.url.appendingPathComponent("hang-libical.so").path
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hang-libical.c")
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        compiler.arguments = ["-shared", "-fPIC", "-O2", "-o", shim, source.path, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        #expect(compiler.terminationStatus == 0)
        let release = temporary.url.appendingPathComponent("release").path
        let reader = FeedReader.helper(executable: "/bin/sh", arguments: [
            "-c", "MARQUEE_TEST_RELEASE=\"$1\" LD_PRELOAD=\"$2\" exec \"$0\" read-feed", CommandLineTests.binary, release, shim])
        return (reader, release)
    }

    /// A file read again for a later day that hangs libical there holds up only the queries
    /// about that day: the display's snapshot of now answers meanwhile (it waited on the actor).
    @Test nonisolated func aFileReadAgainForLaterHoldsUpNoQueryOfNow() async throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.url.appendingPathComponent("feeds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, extra) in [("daily", [String]()), ("hangs", ["X-TEST-HANG:1"])] {
            try Data(TestSupport.calendar(event(["UID:\(name)", "DTSTART:20260701T100000Z", "DTEND:20260701T110000Z",
                                                 "RRULE:FREQ=DAILY", "SUMMARY:\(name)"] + extra)).utf8)
                .write(to: folder.appendingPathComponent("\(name).ics"))
        }
        let (reader, release) = try Self.hangingReader(in: temporary)
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        var limits = ScheduleLimits()
        limits.maximumSecondsPerFile = 3600
        let schedule = try await Schedule(displayZone: "UTC", limits: limits, reader: reader)
        let at = instant("2026-07-01T10:30:00Z")
        await schedule.load([folder.path], around: at)
        #expect(await schedule.messages(at: at).map(\.text) == ["daily", "hangs"])
        try FileManager.default.removeItem(atPath: release)
        let later = Task { await schedule.messages(at: instant("2026-08-01T10:30:00Z")) }
        #expect(await eventually(within: scheduleWaitLimit) { FileManager.default.fileExists(atPath: release + ".waiting") })
        let answered = Mutex(false)
        let now = Task {
            let snapshot = await schedule.snapshot(at: at)
            answered.withLock { $0 = true }
            return snapshot.messages.map(\.text)
        }
        #expect(await eventually(within: scheduleWaitLimit) { answered.withLock { $0 } })
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        #expect(await now.value == ["daily", "hangs"])
        #expect(await later.value.map(\.text) == ["daily", "hangs"])
    }

    /// A load told how far its queries reach reads each file once for them (`check` looks a
    /// year ahead; it read every file twice).
    @Test func aLoadForTheYearAheadReadsOnce() throws {
        try withFeeds(bad: Self.calendar("weekly", "Weekly", "RRULE:FREQ=WEEKLY\r\n")) { folder in
            let counter = folder + "/readers.count"
            let reader = FeedReader.helper(executable: "/bin/sh", arguments: [
                "-c", "echo >> \"$1\"; exec \"$0\" read-feed", CommandLineTests.binary, counter])
            let schedule = try ScheduleState(displayZone: "UTC", reader: reader)
            let start = instant(Self.at)
            schedule.load([folder], around: start, ahead: 366 * 86_400)
            let agenda = schedule.agenda(from: start, to: start + 366 * 86_400)
            #expect(agenda.entries.filter { $0.change == .start }.count == 52)
            #expect(try String(contentsOfFile: counter, encoding: .utf8).count == 1)
        }
    }

    @Test func readerThatCannotStart() throws {
        let schedule = try ScheduleState(displayZone: "UTC", reader: .helper(executable: "/nonexistent/marquee", arguments: []))
        try withFeeds(bad: Self.calendar("bad", "Bad")) { folder in
            let statuses = schedule.load([folder])
            #expect(statuses.count == 2)
            #expect(statuses.allSatisfy {
                $0.problems.map(\.message) == ["cannot start marquee's feed reader /nonexistent/marquee: No such file or directory"]
            }, "\(statuses)")
        }
    }

    /// `marquee check` and `messages` as a user runs them, on a folder where one file is
    /// nested 200,000 levels deep and one has a rule libical would loop on.
    @Test func commandsOnAFolderWithHostileFiles() throws {
        let depth = 200_000
        let deep = Self.calendar("deep", "Deep", String(repeating: "BEGIN:X-NEST\r\n", count: depth)
                                     + String(repeating: "END:X-NEST\r\n", count: depth))
        try withFeeds(bad: deep) { folder in
            try Data(Self.calendar("stuck", "Stuck", "RRULE:FREQ=SECONDLY;BYSECOND=60\r\n").utf8)
                .write(to: URL(fileURLWithPath: folder + "/stuck.ics"))
            let check = try CommandLineTests.marquee("check", folder)
            #expect(check.status == 1)
            #expect(check.output.contains("\(folder)/good.ics: ok, 1 event(s)"))
            #expect(check.output.contains("\(folder)/bad.ics:70: error: components are nested more than 64 levels"))
            #expect(check.output.contains("\(folder)/stuck.ics:8: warning: VEVENT \"stuck\": its RRULE asks only for second 60"))
            let messages = try CommandLineTests.marquee("messages", "--feeds", folder, "--at", Self.at, "--json")
            #expect(messages.output.contains("\"text\":\"Good\""), "\(messages.output)")
            #expect(messages.output.contains("\"text\":\"Stuck\""))
        }
    }

    /// The helper gives the same answers as libical in this process: on the examples, and on
    /// the fuzzer's seeds (hostile and real-world files).
    @Test(arguments: [CommandLineTests.examples, CommandLineTests.root.appendingPathComponent("Fuzz/seeds").path])
    func helperAnswersAsInProcess(folder: String) throws {
        let helper = try ScheduleState(displayZone: "Europe/Berlin",
                                  reader: .helper(executable: CommandLineTests.binary, arguments: ["read-feed"]))
        let here = try ScheduleState(displayZone: "Europe/Berlin", reader: .inProcess)
        let start = instant("2026-11-20T00:00:00Z")
        helper.load([folder], around: start)
        here.load([folder], around: start)
        #expect(helper.feeds.count > 2)
        #expect(helper.feeds.map(\.state) == here.feeds.map(\.state))
        #expect(helper.feeds.map(\.eventCount) == here.feeds.map(\.eventCount))
        #expect(helper.feeds.map { $0.problems.map(\.message) } == here.feeds.map { $0.problems.map(\.message) })
        let end = instant("2027-12-31T00:00:00Z")
        let agenda = helper.agenda(from: start, to: end), expected = here.agenda(from: start, to: end)
        #expect(agenda.entries.count > 100)
        #expect(agenda.entries == expected.entries)
        #expect(agenda.stop == expected.stop)
        if folder == CommandLineTests.examples { #expect(agenda.stop == nil) }
    }

    /// A calendar with years of past events and one for today, as a family's export is: read
    /// through the helper it loads, counts every event and shows today's. (Its answer holds
    /// today's few activations; the event count was taken for a list and refused as too long
    /// for it, so every calendar of more than a few dozen events was unusable.)
    @Test func aCalendarWithYearsOfHistoryIsRead() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            var events = (0..<2_000).map { index in
                "BEGIN:VEVENT\r\nUID:past-\(index)\r\nDTSTART:\(2016 + index % 10)0\(1 + index % 9)1\(index % 9)T100000Z\r\n"
                    + "DURATION:PT1H\r\nSUMMARY:Past event \(index)\r\nEND:VEVENT\r\n"
            }
            events.append("BEGIN:VEVENT\r\nUID:today\r\nDTSTART:20260701T100000Z\r\nSUMMARY:Today\r\nEND:VEVENT\r\n")
            let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//marquee tests//EN\r\n" + events.joined() + "END:VCALENDAR\r\n"
            try Data(text.utf8).write(to: folder.appendingPathComponent("family.ics"))
            let schedule = try ScheduleState(displayZone: "UTC",
                                             reader: .helper(executable: CommandLineTests.binary, arguments: ["read-feed"]))
            let status = try #require(schedule.load([folder.path], around: instant(Self.at)).first)
            #expect(status.state == .loaded, "\(status.problems.map(\.message))")
            #expect(status.eventCount == 2_001)
            #expect(schedule.messages(at: instant(Self.at)).map(\.text) == ["Today"])
        }
    }

    /// A recording written into a calendar (`ATTACH;ENCODING=BASE64`, its lines folded as
    /// RFC 5545 asks) reaches the display through the helper byte for byte, one copy for every
    /// day the alarm sounds.
    @Test func aRecordingWrittenIntoTheCalendarCrossesTheHelper() throws {
        try withTemporaryFolder { temporary in
            let recording = (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }
            let value = "ATTACH;ENCODING=BASE64;VALUE=BINARY;FMTTYPE=audio/wav:" + Data(recording).base64EncodedString()
            let folded = stride(from: 0, to: value.utf8.count, by: 74).map { offset in
                let start = value.utf8.index(value.utf8.startIndex, offsetBy: offset)
                let end = value.utf8.index(start, offsetBy: min(74, value.utf8.count - offset))
                return (offset == 0 ? "" : " ") + String(value[start..<end])
            }.joined(separator: "\r\n")
            let text = TestSupport.calendar(event("UID:pills", "DTSTART:20260701T100000Z", "RRULE:FREQ=DAILY", "SUMMARY:Pills",
                                      "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:PT0S\r\n\(folded)\r\nEND:VALARM"))
            try Data(text.utf8).write(to: temporary.url.appendingPathComponent("pills.ics"))
            let schedule = try ScheduleState(displayZone: "UTC",
                                             reader: .helper(executable: CommandLineTests.binary, arguments: ["read-feed"]))
            let status = try #require(schedule.load([temporary.url.path], around: instant(Self.at)).first)
            #expect(status.state == .loaded && status.problems.isEmpty, "\(status.problems.map(\.message))")
            for day in ["2026-07-01", "2026-07-02"] {
                let sounding = try #require(schedule.messages(at: instant(day + "T10:00:30Z")).first?.sounding)
                #expect(sounding.embedded?.bytes == recording)
                #expect(sounding.attachment == nil)
            }
        }
    }

    /// Between the processes an expansion keeps its event count, however few activations it holds.
    @Test func anExpansionKeepsItsEventCount() throws {
        let expansion = FeedExpansion(eventCount: 100_000, coverage: 0..<86_400)
        let decoded = try #require(FeedExpansion(decoding: expansion.encoded()[...]))
        #expect(decoded.eventCount == 100_000)
        #expect(decoded.coverage == 0..<86_400)
    }
}
