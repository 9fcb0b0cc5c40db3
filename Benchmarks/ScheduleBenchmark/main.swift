// Measures loading a generated 10,000-VEVENT feed against libical's own parse of the same
// bytes, peak memory, and the cost of queries after loading; then both shapes of feed (a
// family calendar, a plan of counted repeats) at 10k and 50k events, in this process and
// through the helper process as marquee reads. Run in release, with marquee built beside it:
//   swift build -c release && swift run -c release schedule-benchmark
// `schedule-benchmark hung` measures instead a folder in which some files hang libical.
import CLibical
import Foundation
import Schedule
import Support
import Synchronization

/// A family calendar grown large: weekly appointments with exceptions and moved
/// occurrences, yearly birthdays, one-off events over ten years, all-day days.
func generatedFeed(events: Int) -> String {
    var generator = SplitMix64(seed: 2026)
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//benchmark//EN"]
    let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney"]
    func stamp(_ day: Int, _ hour: Int, _ minute: Int = 0) -> String {
        let date = Date(timeIntervalSince1970: 1_577_836_800 + Double(day) * 86_400)  // from 2020-01-01
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d%02d%02dT%02d%02d00", parts.year!, parts.month!, parts.day!, hour, minute)
    }
    func day(_ stamp: String) -> String { String(stamp.prefix(8)) }
    let weekly = events / 4, overrides = events / 20, yearly = events * 3 / 20, allDay = events / 10
    let single = events - weekly - overrides - yearly - allDay
    for index in 0..<weekly {
        let zone = zones[index % zones.count]
        let start = stamp(Int(generator.next() % 2000), 8 + Int(generator.next() % 10))
        lines += ["BEGIN:VEVENT", "UID:weekly-\(index)", "DTSTART;TZID=\(zone):\(start)",
                  "DTEND;TZID=\(zone):\(start.prefix(11))5900", "RRULE:FREQ=WEEKLY" + (index % 3 == 0 ? ";COUNT=200" : ""),
                  "EXDATE;TZID=\(zone):\(stamp(Int(generator.next() % 2500), 9))",
                  "SUMMARY:Weekly appointment \(index)", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT30M",
                  "DESCRIPTION:Leave now for appointment \(index)", "END:VALARM", "END:VEVENT"]
        if index < overrides {
            lines += ["BEGIN:VEVENT", "UID:weekly-\(index)", "RECURRENCE-ID;TZID=\(zone):\(start)", "SEQUENCE:1",
                      "DTSTART;TZID=\(zone):\(start.prefix(9))130000", "DURATION:PT1H", "SUMMARY:Moved \(index)",
                      "END:VEVENT"]
        }
    }
    for index in 0..<yearly {
        let born = 1930 + Int(generator.next() % 90)
        let date = day(stamp(366 + Int(generator.next() % 365), 0)).dropFirst(4)  // days of 2021
        lines += ["BEGIN:VEVENT", "UID:birthday-\(index)", "DTSTART;VALUE=DATE:\(born)\(date)", "RRULE:FREQ=YEARLY",
                  "SUMMARY:Birthday \(index): turns {age}", "COLOR:hotpink", "END:VEVENT"]
    }
    for index in 0..<single {
        let start = stamp(Int(generator.next() % 3650), Int(generator.next() % 24), 30)
        lines += ["BEGIN:VEVENT", "UID:single-\(index)", "DTSTART;TZID=Europe/Berlin:\(start)", "DURATION:PT45M",
                  "SUMMARY:One-off event \(index)", "DESCRIPTION:Some notes about event \(index)", "END:VEVENT"]
    }
    for index in 0..<allDay {
        let date = day(stamp(Int(generator.next() % 3650), 0))
        lines += ["BEGIN:VEVENT", "UID:allday-\(index)", "DTSTART;VALUE=DATE:\(date)", "SUMMARY:All-day \(index)",
                  "END:VEVENT"]
    }
    lines.append("END:VCALENDAR")
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// A calendar that is mostly repeats ending after a count, as course and therapy plans are
/// written (`recurring` out of every 100 events): the same weekdays every week or every few
/// days, a weekday of the month, one weekday a week; the rest one-off.
func recurringFeed(events: Int, recurring: Int = 65) -> String {
    var generator = SplitMix64(seed: 2027)
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//benchmark//EN"]
    let rules = ["FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=60", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=60",
                 "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=60", "FREQ=WEEKLY;COUNT=60", "FREQ=MONTHLY;BYDAY=2TU;COUNT=60"]
    let weekdaysOf = ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5]
    for index in 0..<events {
        // A start on one of the rule's days: a Monday (or Tuesday) in 2020–2027.
        let rule = index % 100 < recurring ? rules[index % rules.count] : nil
        let monday = 1_578_268_800 + Double(generator.next() % 400) * 7 * 86_400  // 2020-01-06
        let shift = rule.map { $0.contains("BYDAY=TU") || $0.contains("=2TU") ? (weekdaysOf["TU"]! - 1) : 0 } ?? 0
        let date = Date(timeIntervalSince1970: monday + Double(shift) * 86_400)
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        let start = String(format: "%04d%02d%02dT%02d0000", parts.year!, parts.month!, parts.day!, 8 + index % 10)
        lines += ["BEGIN:VEVENT", "UID:recurring-\(index)", "DTSTART;TZID=Europe/Berlin:\(start)", "DURATION:PT1H"]
        if let rule { lines.append("RRULE:" + rule) }
        lines += ["SUMMARY:Course \(index)", "END:VEVENT"]
    }
    lines.append("END:VCALENDAR")
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// Load and first query against libical's parse of the same bytes, for both shapes at 10k and
/// 50k events: in this process, and through the helper process as marquee reads (`helper`).
func compareShapesWithParse(in folder: URL, helper: String?) async throws {
    let shapes: [(name: String, feed: (Int) -> String)] = [
        ("general shape (25% weekly, 15% yearly, 60% one-off)", { generatedFeed(events: $0) }),
        ("recurring shape (65% COUNT rules)", { recurringFeed(events: $0) }),
    ]
    print("\nload + first query against libical's parse of the same bytes in this process (median of 5 side-by-side "
        + "ratios of wall and of CPU time; goal: at most 1.5x)")
    for (name, feed) in shapes {
        for events in [10_000, 50_000] {
            let text = feed(events)
            let file = folder.appendingPathComponent("shape-\(events).ics")
            try Data(text.utf8).write(to: file)
            var line = String(format: "%@, %d VEVENTs, %d KB: ", name, events, text.utf8.count / 1024)
            for reader in [FeedReader.inProcess] + (helper.map { [.helper(executable: $0, arguments: ["read-feed"])] } ?? []) {
                var ratios: [Double] = []
                var cpuRatios: [Double] = []
                var loads: [Double] = []
                var parses: [Double] = []
                for _ in 0..<5 {
                    let parseCPU = cpuSeconds()
                    let parse = await libicalParseSeconds(text)
                    let loadCPU = cpuSeconds()
                    let schedule = try await Schedule(displayZone: "Europe/Berlin", reader: reader)
                    let noon = await schedule.instant(of: TimeArgument("2026-11-24 12:00")!)
                    let load = await seconds {
                        await schedule.load([file.path], around: noon)
                        _ = await schedule.messages(at: noon)
                    }
                    cpuRatios.append((cpuSeconds() - loadCPU) / (loadCPU - parseCPU))
                    let status = await schedule.feeds.first!
                    precondition(status.eventCount == events && status.state == .loaded, "unexpected load: \(status)")
                    parses.append(parse)
                    loads.append(load)
                    ratios.append(load / parse)
                }
                let place = if case .inProcess = reader { "in this process" } else { "through the helper" }
                line += String(format: "%@ %.1f ms = %.2fx (parse %.1f ms; CPU time %.2fx); ", place,
                               median(loads) * 1000, median(ratios), median(parses) * 1000, median(cpuRatios))
            }
            print(line.dropLast(2))
            try FileManager.default.removeItem(at: file)
        }
    }
}

func seconds(_ work: () async -> Void) async -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    await work()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// How long libical's own parse of `text` takes, in seconds.
func libicalParseSeconds(_ text: String) async -> Double {
    await seconds {
        let bytes = Array(text.utf8) + [0]
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { icalcomponent_free(icalparser_parse_string($0.baseAddress)) }
        }
    }
}

/// CPU time of this process and its waited-for children (the helper processes), in seconds:
/// steadier than wall time on a shared machine, where a virtual CPU is often not running.
func cpuSeconds() -> Double {
    var total = 0.0
    for who in [RUSAGE_SELF, RUSAGE_CHILDREN] {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        total += Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    return total
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func peakMemoryMB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func run() async throws {
    let text = generatedFeed(events: 10_000)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-benchmark")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("big.ics")
    try Data(text.utf8).write(to: file)
    print("feed: 10000 VEVENTs, \(text.utf8.count / 1024) KB")
    let memoryBefore = peakMemoryMB()

    var libicalTimes: [Double] = []
    var loadTimes: [Double] = []
    var firstQueryTimes: [Double] = []
    var firstSnapshotTimes: [Double] = []
    var schedule = try await Schedule(displayZone: "Europe/Berlin")
    let noon = await schedule.instant(of: TimeArgument("2026-11-22 12:00")!)
    var count = 0
    for _ in 0..<9 {
        libicalTimes.append(await libicalParseSeconds(text))
        // As the daemon and the CLI start: load around the first instant, ask for it.
        schedule = try await Schedule(displayZone: "Europe/Berlin")
        let fresh = schedule
        loadTimes.append(await seconds { await fresh.load([file.path], around: noon) })
        firstQueryTimes.append(await seconds { count = await fresh.messages(at: noon).count })
        firstSnapshotTimes.append(await seconds { _ = await fresh.snapshot(at: noon) })
    }
    let libical = median(libicalTimes), load = median(loadTimes), firstQuery = median(firstQueryTimes)
    print(String(format: "libical parse of the same bytes: %.1f ms (median of 9)", libical * 1000))
    print(String(format: "Schedule.load(around:) (read, parse, scan, expand the first window): %.1f ms (median of 9)",
                 load * 1000))
    print(String(format: "first messages(at:) after it: %.2f ms, %d messages", firstQuery * 1000, count))
    print(String(format: "load + first query: %.1f ms = %.2fx libical's parse (goal: at most 1.5x)",
                 (load + firstQuery) * 1000, (load + firstQuery) / libical))
    print(String(format: "first snapshot (messages, next change, until when): %.2f ms (median of 9)",
                 median(firstSnapshotTimes) * 1000))
    // The daemon and the CLI read through `marquee read-feed` (a process start, the request and
    // the answer on a socket), built next to this benchmark by `swift build -c release`.
    let marquee = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("marquee").path
    let helper = FileManager.default.isExecutableFile(atPath: marquee) ? marquee : nil
    if let marquee = helper {
        var helperTimes: [Double] = []
        var helperRatios: [Double] = []
        for _ in 0..<9 {
            let parse = await libicalParseSeconds(text)
            let helped = try await Schedule(displayZone: "Europe/Berlin",
                                            reader: .helper(executable: marquee, arguments: ["read-feed"]))
            var helpedCount = 0
            let time = await seconds {
                await helped.load([file.path], around: noon)
                helpedCount = await helped.messages(at: noon).count
            }
            // A figure is only worth printing for the right answer.
            let status = await helped.feeds.first
            guard status?.state == .loaded, status?.eventCount == 10_000, helpedCount == count else {
                print("load through the helper process FAILED: \(status?.problems.map(\.message) ?? []), "
                    + "\(helpedCount) messages instead of \(count)")
                exit(1)
            }
            helperTimes.append(time)
            helperRatios.append(time / parse)
        }
        print(String(format: "load + first query through the helper process, as marquee reads: %.1f ms = %.2fx "
            + "libical's parse (median of 9 side-by-side ratios)", median(helperTimes) * 1000, median(helperRatios)))
    } else {
        print("load through the helper process: skipped (\(marquee) is not built)")
    }
    print(String(format: "peak memory: %.1f MB (%.1f MB before loading)", peakMemoryMB(), memoryBefore))
    let status = await schedule.feeds.first!
    precondition(status.eventCount == 10_000 && status.problems.isEmpty, "unexpected load: \(status)")

    // Every 10 minutes for a week: the load expanded the first day; the query past it expands
    // the next 28 days (the file is parsed again); the others read what is expanded.
    var queries: [Double] = []
    for step in 0..<1008 {
        let at = noon + Int64(step * 600)
        queries.append(await seconds { _ = await schedule.messages(at: at) })
    }
    let expanding = queries.indices.max { queries[$0] < queries[$1] }!
    let expansion = queries.remove(at: expanding)
    print(String(format: "messages(at:) every 10 minutes for a week: median %.1f µs, max %.1f µs, "
        + "but %.1f ms for the one that expands the next 28 days (%.1f h after the load's instant)",
                 median(queries) * 1e6, queries.max()! * 1e6, expansion * 1000, Double(expanding) / 6))
    var changes: [Double] = []
    var next = noon
    for _ in 0..<1000 {
        let after = next
        changes.append(await seconds { next = await schedule.nextChange(after: after)! })
    }
    print(String(format: "nextChange(after:), 1000 successive changes: median %.1f µs, max %.2f ms (reached %@)",
                 median(changes) * 1e6, changes.max()! * 1000, await schedule.zoned(next).rfc3339))
    let far = await schedule.instant(of: TimeArgument("2029-06-01 12:00")!)
    let cold = await seconds { _ = await schedule.nextChange(after: far) }
    print(String(format: "nextChange(after:) years later (parses again, expands 28 days): %.2f ms", cold * 1000))
    print(String(format: "peak memory at the end: %.1f MB", peakMemoryMB()))
    try await compareShapesWithParse(in: folder, helper: helper)
    try await runEveryMinute(in: folder)
}

/// The hostile case of issue 10: 5,000 series that each repeat every minute. The file's
/// budget keeps what is computed at once to about 100,000 messages: a stretch of minutes with
/// all 5,000, computed again when time reaches its end.
func runEveryMinute(in folder: URL) async throws {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//benchmark//EN"]
    for index in 0..<5_000 {
        lines += ["BEGIN:VEVENT", "UID:minute-\(index)", String(format: "DTSTART:20260101T%02d%02d00Z", index % 24, index % 60),
                  "DURATION:PT1M", "RRULE:FREQ=MINUTELY", "SUMMARY:Minute \(index)", "END:VEVENT"]
    }
    lines.append("END:VCALENDAR")
    let text = lines.joined(separator: "\r\n") + "\r\n"
    let file = folder.appendingPathComponent("every-minute.ics")
    try Data(text.utf8).write(to: file)
    print("\nfeed: 5000 VEVENTs each repeating every minute, \(text.utf8.count / 1024) KB")
    let schedule = try await Schedule(displayZone: "UTC")
    let noon = await schedule.instant(of: TimeArgument("2026-11-22 12:00")!)
    let load = await seconds { await schedule.load([file.path], around: noon) }
    var count = 0
    let first = await seconds { count = await schedule.messages(at: noon).count }
    print(String(format: "load(around:): %.1f ms; first messages(at:): %.2f ms, %d messages", load * 1000, first * 1000, count))
    for problem in await schedule.feeds.first!.problems { print("  reported: \(problem.message)") }
    var queries: [Double] = []
    for minute in 1...240 {
        let at = noon + Int64(minute * 60)
        queries.append(await seconds { count = await schedule.messages(at: at).count })
        precondition(count == 5_000, "\(count) messages at minute \(minute)")
    }
    let computing = queries.filter { $0 > 0.01 }
    let reading = queries.filter { $0 <= 0.01 }
    print(String(format: "messages(at:) every minute for 4 hours: median %.2f ms, max %.2f ms over %d queries, "
        + "and %d that compute the next stretch: median %.1f ms, max %.1f ms",
                 median(reading) * 1000, reading.max()! * 1000, reading.count, computing.count,
                 median(computing) * 1000, computing.max()! * 1000))
    print(String(format: "peak memory at the end: %.1f MB", peakMemoryMB()))
}

/// Folders of small files of which some hang libical (a shim preloaded into `marquee read-feed`
/// spins on the processor for a file holding X-TEST-HANG, until the reader is stopped at its
/// deadline): how long until every other file is in effect, and until the load ends.
func runHungFiles() async throws {
    let marquee = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("marquee").path
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-hung-benchmark")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let shim = folder.appendingPathComponent("hang-libical.so").path
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/EndToEndTests/Fixtures/hang-libical.c").standardized.path
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
    compiler.arguments = ["-shared", "-fPIC", "-O2", "-o", shim, source, "-ldl"]
    try compiler.run()
    compiler.waitUntilExit()
    precondition(compiler.terminationStatus == 0, "cannot build \(source)")
    let limits = ScheduleLimits()
    print(String(format: "folders with files that hang libical (deadline %.0f s a file):", limits.maximumSecondsPerFile))
    for (hung, total) in [(1, 30), (50, 200)] {
        let feeds = folder.appendingPathComponent("feeds-\(hung)-\(total)")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        for index in 0..<total {
            let hangs = index % (total / hung) == total / hung / 2
            let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee//benchmark//EN", "BEGIN:VEVENT",
                        "UID:file-\(index)", "DTSTART:20261122T100000Z", "DURATION:PT4H", "SUMMARY:File \(index)"]
                + (hangs ? ["X-TEST-HANG:1"] : []) + ["END:VEVENT", "END:VCALENDAR"]
            try Data((text.joined(separator: "\r\n") + "\r\n").utf8)
                .write(to: feeds.appendingPathComponent(String(format: "f%03d.ics", index)))
        }
        let reader = FeedReader.helper(executable: "/bin/sh", arguments: [
            "-c", "LD_PRELOAD=\"$1\" exec \"$0\" read-feed", marquee, shim])
        let schedule = try await Schedule(displayZone: "UTC", limits: limits, reader: reader)
        let noon = await schedule.instant(of: TimeArgument("2026-11-22 12:00")!)
        let start = ContinuousClock.now
        let loading = Task { await schedule.load([feeds.path], around: noon) }
        let done = Mutex(false)
        let finished = Task {
            let statuses = await loading.value
            done.withLock { $0 = true }
            return statuses
        }
        var goodShown: Duration?
        while goodShown == nil, !done.withLock({ $0 }) {
            if await schedule.messages(at: noon).count == total - hung { goodShown = ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(5))
        }
        let statuses = await finished.value
        let all = ContinuousClock.now - start
        let stopped = statuses.filter { $0.problems.contains { $0.message.hasPrefix("reading the file took longer") } }.count
        let shown = await schedule.messages(at: noon).count
        precondition(shown == total - hung && stopped == hung, "unexpected load: \(shown) shown, \(stopped) stopped")
        func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        print(String(format: "  %3d hung of %3d: every good file in effect after %.2f s; load ended after %.1f s "
            + "(%d stopped at the deadline)", hung, total, seconds(goodShown ?? all), seconds(all), stopped))
    }
}

if CommandLine.arguments.dropFirst().first == "hung" {
    try await runHungFiles()
} else {
    try await run()
}
