import Foundation
import LoopbackServers
import CSndfile
import Sound
import TestSupport
import Testing

/// The built `marquee` binary, run as a user runs it, on the example feeds.
@Suite(.tags(.live), .tier(.live)) struct CommandLineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let examples = root.appendingPathComponent("examples/feeds").path

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func marquee(_ arguments: String...) throws -> Run {
        try marquee(arguments)
    }

    static let binary = root.appendingPathComponent(".build/debug/marquee").path

    static func marquee(_ arguments: [String]) throws -> Run {
        try run(binary, arguments)
    }

    static func run(_ executable: String, _ arguments: String...) throws -> Run {
        try run(executable, arguments)
    }

    /// Runs `executable`. An executable a test has just written (a copy of marquee where
    /// another user may run it) may still be open for writing in a child another test forked
    /// at that moment: exec fails with ETXTBSY ("Text file busy", from setpriv too) until that
    /// child execs, so it is tried again, a few times.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        for _ in 0..<20 {
            do {
                let run = try runOnce(executable, arguments, environment: environment)
                guard run.status == 126 || run.status == 127, run.errors.contains("Text file busy") else { return run }
            } catch let error as POSIXError where error.code == .ETXTBSY {
            }
            usleep(50_000)
        }
        return try runOnce(executable, arguments, environment: environment)
    }

    private static func runOnce(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Run {
        let run = try Spawned.run(executable, arguments,
                                  environment: ["TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin"].merging(environment) { $1 })
        return Run(status: run.status, output: String(decoding: run.output, as: UTF8.self),
                   errors: String(decoding: run.errors, as: UTF8.self))
    }

    /// Runs one of the repository's scripts with this process's environment (plus `environment`);
    /// its exit status and what it printed on both streams, interleaved.
    static func script(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let run = try Spawned.run(root.appendingPathComponent("scripts/\(name)").path, arguments,
                                  environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, mergingErrors: true)
        return (run.status, String(decoding: run.output, as: UTF8.self))
    }

    /// The fuzz target's replay build runs the seed corpus and the examples through the file →
    /// messages path with its checks (every message active when asked, no text twice, changes
    /// move forward), so the harness scripts/fuzz-schedule builds on stays sound.
    /// A POSIX `TZ` rule, as busybox and OpenWrt systems set it, is honoured (summer time
    /// included); one marquee cannot read is said, not silently taken for the machine's zone.
    @Test func aPosixTZRuleIsHonoured() throws {
        let arguments = ["messages", "--feeds", Self.examples, "--at", "2026-07-01T20:30:00Z"]
        let india = try Self.run(Self.binary, arguments, environment: ["TZ": "<+0530>-5:30"])
        #expect(india.output.hasPrefix("At Thursday 2 July 2026 02:00 (<+0530>-5:30):"), "\(india.output)")
        #expect(india.output.contains("Thu 2 Jul 2026 00:30 – Thu 2 Jul 2026 10:30"))
        let berlin = try Self.run(Self.binary, arguments, environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        #expect(berlin.status == 0 && berlin.errors.isEmpty)
        #expect(berlin.output.hasPrefix("At Wednesday 1 July 2026 22:30 (CET-1CEST,M3.5.0,M10.5.0/3):"), "\(berlin.output)")
        let unread = try Self.run(Self.binary, arguments, environment: ["TZ": "CET-1CEST,J60,J300"])
        #expect(unread.errors.hasPrefix("marquee: warning: TZ=CET-1CEST,J60,J300 names no time zone marquee can read"))
    }

    @Test func fuzzSeedsReplay() throws {
        let seeds = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Fuzz/seeds").path)
            .filter { $0.hasSuffix(".ics") }.sorted().map { "Fuzz/seeds/" + $0 }
        #expect(seeds.count >= 10)
        let files = (seeds + ["examples/feeds/appointments.ics", "examples/feeds/birthdays.ics", "examples/feeds/night.ics"])
            .map { Self.root.appendingPathComponent($0).path }
        let replay = try Self.run(Self.root.appendingPathComponent(".build/debug/schedule-fuzz").path, files)
        #expect(replay.status == 0, "\(replay.errors)")
        #expect(replay.output.split(separator: "\n").count == files.count)
    }

    /// `messages --json`: one object per line with the contract's fields, in display order.
    /// `--version` names the release the Debian package is built as: debian/changelog's newest
    /// entry ("marquee (0.10.0) stable; …"); completions come from the same command definitions
    /// (the package installs them).
    @Test func versionAndCompletions() throws {
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        let newest = try #require(changelog.split(separator: "\n").first)
        let released = try #require(newest.split(separator: "(").dropFirst().first?.split(separator: ")").first)
        let version = try Self.marquee("--version")
        #expect(version.status == 0)
        #expect(version.output == "\(released)\n")
        let bash = try Self.marquee("--generate-completion-script", "bash")
        #expect(bash.status == 0)
        #expect(bash.output.contains("reset-console") && bash.output.contains("--feeds"))
    }

    /// A folder with no calendar in it is an error check says, not a silent success; a
    /// calendar saved as .ical is pointed out.
    @Test func checkSaysAFolderHasNoCalendars() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let empty = try Self.marquee("check", folder)
            #expect(empty.status == 1 && empty.output.contains("\(folder): error: no calendar files (*.ics) in it"))
            try Data("BEGIN:VCALENDAR".utf8).write(to: URL(fileURLWithPath: folder + "/family.ical"))
            let misnamed = try Self.marquee("check", folder)
            #expect(misnamed.status == 1 && misnamed.output.contains("family.ical would be read if named *.ics"))
        }
    }

    /// Asking a path that is a file, not a socket, says so (not "Connection refused").
    @Test func statusOnAFileSaysItIsNoSocket() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-not-a-socket-\(UUID().uuidString)").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        for command in ["status", "reload"] {
            let run = try Self.marquee(command, "--socket", file)
            #expect(run.status == 1)
            #expect(run.errors.contains("\(file) (it is not a socket)"), "\(run.errors)")
        }
    }

    @Test func messagesJSON() throws {
        let run = try Self.marquee("messages", "--feeds", Self.examples, "--at", "2026-11-26 10:40", "--json")
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        let objects = try run.output.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(objects.map { $0["text"] as? String } == [
            "Good morning! Breakfast is at 8.", "Leave for the physiotherapist now: the appointment is at 11:00.",
        ])
        let alarm = objects[1]
        #expect(alarm["kind"] as? String == "alarm")
        #expect(alarm["start"] as? String == "2026-11-26T10:30:00+01:00")
        #expect(alarm["end"] as? String == "2026-11-26T11:00:00+01:00")
        #expect(alarm["priority"] as? Int == 5)
        #expect((alarm["source"] as? String)?.hasSuffix("examples/feeds/appointments.ics") == true)
        #expect(alarm["uid"] as? String == "040000008200E00074C5B7101A82E00800000000B0F1C6E5C0DAD901000000000000000010000000")
        #expect(alarm["color"] is NSNull)
        for key in ["text", "start", "end", "source", "uid", "kind", "priority", "color"] {
            #expect(objects.allSatisfy { $0.keys.contains(key) }, "missing \(key)")
        }
    }

    /// `--timezone` changes how floating and all-day times are read and how times are shown.
    @Test func messagesInAnotherZone() throws {
        let run = try Self.marquee("messages", "--feeds", Self.examples, "--timezone", "America/New_York",
                                   "--at", "2026-11-21T21:30:00+01:00")
        #expect(run.status == 0)
        #expect(run.output.contains("At Saturday 21 November 2026 15:30 (America/New_York):"))
        #expect(run.output.contains("It's night-time right now. You should be in bed."))
    }

    @Test func agendaJSON() throws {
        let run = try Self.marquee("agenda", "--feeds", Self.examples, "--from", "2026-11-24 09:00", "--days", "1",
                                   "--json")
        #expect(run.status == 0)
        let lines = try run.output.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(lines.first?["change"] as? String == "active")
        let night = lines.first { ($0["message"] as? [String: Any])?["text"] as? String == "It's night-time right now. You should be in bed." }
        #expect(night?["at"] as? String == "2026-11-24T21:00:00+01:00")
        #expect(night?["change"] as? String == "start")
        // The physiotherapy of 24 November was moved to the 26th: no alarm on the 24th.
        #expect(!run.output.contains("Leave for the physiotherapist"))
    }

    @Test func checkReportsFileAndLineAndExitsOne() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let broken = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20260701T100000Z\r\nDTEND:bogus\r\n"
                + "SUMMARY:x\r\nEND:VCALENDAR\r\n"
            try Data(broken.utf8).write(to: folder.appendingPathComponent("broken.ics"))
            // Yearly, so it shows in the coming year whenever the test runs (one warning, not two).
            let warned = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20260701T100000Z\r\nDTEND:bogus\r\n"
                + "RRULE:FREQ=YEARLY\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            try Data(warned.utf8).write(to: folder.appendingPathComponent("warned.ics"))
            let bad = try Self.marquee("check", folder.path)
            #expect(bad.status == 1)
            #expect(bad.output.contains("broken.ics:7: error: END:VCALENDAR does not close BEGIN:VEVENT of line 2"))
            #expect(bad.output.contains("broken.ics: unusable"))
            #expect(bad.output.contains("warned.ics:5: warning: "))
            #expect(bad.output.contains("warned.ics: ok, 1 event(s) with 1 warning(s)"))
            let good = try Self.marquee("check", Self.examples)
            #expect(good.status == 0)
            #expect(good.output.contains("appointments.ics: ok, 3 event(s)"))
        }
    }

    /// `check` warns of characters in the coming messages that no framebuffer font has (they
    /// are left out), each once, with its file; a script Noto has only in a regular cut (Runic)
    /// is drawn, so not among them.
    @Test func checkTellsCharactersNoFontHas() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let tomorrow = Date().addingTimeInterval(86_400)
            let day = tomorrow.formatted(.iso8601.year().month().day().dateSeparator(.omitted))
            let scripts = calendar(event("UID:a@b", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:\(day)", "RRULE:FREQ=DAILY;COUNT=3",
                                         "SUMMARY:Tangut \u{17000} and runes \u{16A0}"))
            try Data(scripts.utf8).write(to: folder.appendingPathComponent("scripts.ics"))
            let run = try Self.marquee("check", folder.path)
            #expect(run.status == 0)
            let told = run.output.split(separator: "\n").filter { $0.contains("no font has") }
            #expect(told == ["\(folder.path)/scripts.ics: warning: no font has \"\u{17000}\" (U+17000) in \"Tangut \u{17000} and runes "
                + "\u{16A0}\"; the framebuffer leaves it out"])
            // For scripts (and the carer's Home Assistant): one JSON object per file.
            let json = try Self.marquee("check", "--json", folder.path, "/nonexistent/feeds.d")
            #expect(json.status == 1)
            let reports = try json.output.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(reports.map { $0["path"] as? String } == ["/nonexistent/feeds.d", "\(folder.path)/scripts.ics"])
            #expect(reports.map { $0["state"] as? String } == ["unusable", "ok"])
            #expect(reports.last?["events"] as? Int == 1)
            let problems = try #require(reports.last?["problems"] as? [[String: Any]])
            #expect(problems.count == 1 && problems[0]["severity"] as? String == "warning")
        }
    }

    /// `say` writes what the box plays to a WAV file; to a device that is not there it says so
    /// in one line (ALSA's own complaints, which would draw on a terminal display, are kept
    /// quiet).
    @Test func sayWritesTheSoundOrSaysWhyNot() throws {
        try withTemporaryFolder { temporary in
            let wav = temporary.path + "/pills.wav"
            let written = try Self.marquee(["say", "Time for your pills 💊", "--language", "de", "--out", wav])
            #expect(written.status == 0 && written.output.hasPrefix("wrote \(wav): "), "\(written.errors)")
            #expect(written.errors.isEmpty)
            #expect(FileManager.default.fileExists(atPath: wav))
            try Data("sound_device = \"hw:CARD=NoSuchCard\"\n".utf8).write(to: URL(fileURLWithPath: temporary.path + "/m.toml"))
            let missing = try Self.marquee(["say", "hello", "--config", temporary.path + "/m.toml"])
            #expect(missing.status == 1)
            #expect(missing.errors.hasPrefix("marquee say: cannot open the sound device \"hw:CARD=NoSuchCard\": "))
            #expect(missing.errors.split(separator: "\n").count == 1, "\(missing.errors)")
        }
    }

    /// A 0.3 MB FLAC that decodes to 180 MB (eight channels at 192 kHz for 59 s: a second of
    /// a tone, then silence) plays within a 100 MB data limit: read a block at a time, mixed to
    /// one channel and averaged down to 48 kHz as it is read. Before, it took 223 MB.
    @Test func aSmallRecordingThatDecodesToMuchPlaysInLittleMemory() throws {
        try withTemporaryFolder { temporary in
            let flac = temporary.path + "/pills.flac"
            var info = SF_INFO(frames: 0, samplerate: 192_000, channels: 8, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16),
                               sections: 0, seekable: 0)
            let file = try #require(sf_open(flac, Int32(SFM_WRITE), &info))
            var block = [Int16](repeating: 0, count: 8 * 4_800)
            for first in stride(from: 0, to: 59 * 192_000, by: 4_800) {
                for frame in 0..<4_800 {
                    let time = Double(first + frame) / 192_000
                    let value = time < 1 ? Int16(8_000 * sin(2 * Double.pi * 440 * time)) : 0
                    for channel in 0..<8 { block[frame * 8 + channel] = value }
                }
                #expect(sf_writef_short(file, block, 4_800) == 4_800)
            }
            sf_close(file)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: flac)[.size] as? Int)
            #expect(size < 1 << 20, "\(size) bytes")
            let clip = try Recording.load(flac)
            #expect(clip.sampleRate == 48_000 && clip.samples.count == 59 * 48_000)
            #expect(dominantFrequency(clip.samples[4_800..<43_200], rate: 48_000, among: [330, 440, 550]) == 440)
            let wav = temporary.path + "/pills.wav"
            let played = try Self.run("/usr/bin/prlimit", ["--data=100000000", Self.binary, "say", "Pills", "--recording", flac, "--out", wav])
            #expect(played.status == 0, "\(played.errors)")
            #expect(try readWAV(wav).samples.count > 59 * 48_000)
        }
    }

    /// `check` tries the recordings the coming reminders attach: one that is missing, damaged or
    /// at an address is said with its calendar; one that plays is not.
    @Test func checkTriesTheAttachedRecordings() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let tomorrow = Date().addingTimeInterval(86_400)
            let day = tomorrow.formatted(.iso8601.year().month().day().dateSeparator(.omitted))
            func reminder(_ uid: String, _ attachment: String) -> String {
                event("UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:\(day)", "SUMMARY:\(uid)",
                      "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:PT9H\r\nATTACH:\(attachment)\r\nEND:VALARM")
            }
            let feed = calendar(reminder("pills", "pills.ogg"), reminder("walk", "https://127.0.0.1:1/walk.mp3"),
                                reminder("damaged", "damaged.wav"), reminder("lunch", "lunch.wav"))
            try Data(feed.utf8).write(to: folder.appendingPathComponent("voices.ics"))
            try Data("RIFF then nothing a sound file would hold".utf8).write(to: folder.appendingPathComponent("damaged.wav"))
            let tone = SoundClip(samples: (0..<8_000).map { Int16(4_000 * sin(Double($0) / 5)) }, sampleRate: 8_000)
            try Data(tone.wav).write(to: folder.appendingPathComponent("lunch.wav"))
            let run = try Self.marquee("check", folder.path)
            #expect(run.status == 0)
            let told = run.output.split(separator: "\n").filter { $0.contains("ATTACH") || $0.contains("the recording at") }
            let calendarPath = "\(folder.path)/voices.ics"
            #expect(told.count == 3, "\(run.output)")
            #expect(told.contains { $0.hasPrefix("\(calendarPath): warning: ATTACH pills.ogg: the recording \(folder.path)/pills.ogg "
                + "cannot be read: No such file or directory") })
            #expect(told.contains { $0.hasPrefix("\(calendarPath): warning: ATTACH damaged.wav: the recording") && $0.contains("cannot be played") })
            #expect(told.contains { $0.contains("the recording at https://127.0.0.1:1/") && $0.contains(" cannot be fetched: ") })
        }
    }

    /// Every `--json` line is JSON whatever a file's name or text holds (DEL and C1 controls
    /// were printed as Swift's `\u{7F}`), raw controls never reach the terminal, and two names
    /// that are not UTF-8 and differ only there stay two files (as U+FFFD they were one).
    @Test func jsonOutputIsJSONForAnyBytes() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url.path
            let hostile = "Pay \u{7F}\u{9B}31m\u{1B}[2J \u{85}now"
            func write(_ name: [UInt8], _ summary: String) throws {
                let text = calendar(event("UID:\(name.count)-\(name.last ?? 0)", "DTSTART:20261126T090000Z", "DURATION:PT2H",
                                          "SUMMARY:\(summary)"))
                let path = Array(folder.utf8) + Array("/".utf8) + name
                let descriptor = (path + [0]).withUnsafeBufferPointer { pointer in
                    pointer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_TRUNC, 0o644) }
                }
                #expect(descriptor >= 0)
                _ = Array(text.utf8).withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
            }
            try write(Array("del\u{7F}\u{9B}.ics".utf8), hostile)
            try write([0x61, 0xFF] + Array(".ics".utf8), "Latin one")
            try write([0x61, 0xFE] + Array(".ics".utf8), "Latin two")
            for arguments in [["check", "--json", folder], ["messages", "--json", "--feeds", folder, "--at", "2026-11-26T10:00:00Z"]] {
                let run = try Self.marquee(arguments)
                #expect(!run.output.unicodeScalars.contains { $0.value < 0x0A || (0x0B..<0x20).contains($0.value) || (0x7F...0x9F).contains($0.value) })
                let objects = try run.output.split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
                }
                #expect(objects.count == 3, "\(arguments[0]): \(run.output)")
                if arguments[0] == "check" {
                    let paths = objects.compactMap { $0["path"] as? String }
                    #expect(Set(paths).count == 3 && paths.contains("\(folder)/a\\xFF.ics") && paths.contains("\(folder)/a\\xFE.ics"), "\(paths)")
                    #expect(paths.contains("\(folder)/del\u{7F}\u{9B}.ics"))
                } else {
                    #expect(Set(objects.compactMap { $0["text"] as? String }).count == 3)
                }
            }
        }
    }

    /// A calendar whose events are all over reads well and shows nothing: check says so
    /// (it said "ok"); one with a coming event does not.
    @Test func checkSaysACalendarShowsNothingInTheComingYear() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            try temporary.write("past.ics", calendar(event("UID:p", "DTSTART:20200101T100000Z", "SUMMARY:Long ago")))
            try temporary.write("yearly.ics", calendar(event("UID:y", "DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=YEARLY",
                                                              "SUMMARY:New year")))
            let run = try Self.marquee("check", folder)
            #expect(run.status == 0)
            #expect(run.output.contains("\(folder)/past.ics: warning: nothing in it shows in the coming year (its events are over)"))
            #expect(!run.output.contains("yearly.ics: warning"), "\(run.output)")
        }
    }

    /// A feed folder that does not exist is an error for the commands that read it.
    @Test(arguments: ["messages", "agenda", "check"])
    func aMissingFeedFolderExitsOne(command: String) throws {
        let run = try Self.marquee(command, "--feeds", "/nonexistent/feeds.d")
        #expect(run.status == 1)
        #expect(run.errors.contains("/nonexistent/feeds.d: error: cannot read: does not exist")
            || run.output.contains("/nonexistent/feeds.d: error: cannot read: does not exist"))
    }

    /// With no argument, `check` checks the configured feeds.
    @Test func checkWithoutArgumentsChecksTheConfiguredFeeds() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let configuration = folder.appendingPathComponent("marquee.toml")
            try Data("feeds = \"\(Self.examples)\"\n".utf8).write(to: configuration)
            let run = try Self.marquee("check", "--config", configuration.path)
            #expect(run.status == 0)
            #expect(run.output.contains("appointments.ics: ok, 3 event(s)"))
        }
    }

    /// `agenda --days 2` across the night the clocks go back ends at the same wall-clock time
    /// two days on (49 hours later), not an hour early.
    @Test func agendaDaysAreCalendarDays() throws {
        let run = try Self.marquee("agenda", "--feeds", Self.examples, "--timezone", "Europe/Berlin",
                                   "--from", "2026-10-24 12:00", "--days", "2")
        #expect(run.status == 0)
        #expect(run.output.contains("From Sat 24 Oct 2026 12:00 to Mon 26 Oct 2026 12:00 (Europe/Berlin):"))
    }

    /// Text from a file never reaches the terminal as control characters.
    @Test func checkEscapesControlCharacters() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let hostile = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:\u{1B}]0;owned\u{07}\u{1B}[2J\r\nDTSTART:bogus\r\n"
                + "SUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            try Data(hostile.utf8).write(to: folder.appendingPathComponent("\u{1B}[31mred.ics"))
            for arguments in [["check", folder.path], ["messages", "--feeds", folder.path]] {
                let run = try Self.marquee(arguments)
                #expect(!run.output.contains("\u{1B}") && !run.errors.contains("\u{1B}"))
                #expect((run.output + run.errors).contains("\\e[31mred.ics"))
            }
        }
    }

    @Test(arguments: [
        ["messages", "--at", "tomorrow"], ["agenda", "--days", "0"], ["messages", "--no-such-flag"],
        ["snapshot", "--at", "2300-01-01 00:00", "--out", "/dev/null"], ["run", "--at", "1900-01-01T00:00:00Z"],
        ["messages", "--timezone", "Nowhere/Land", "--feeds", "/tmp"],
    ])
    func badUsageExitsTwo(arguments: [String]) throws {
        let run = try Self.marquee(arguments)
        #expect(run.status == 2)
        #expect(!run.errors.isEmpty)
    }
}
