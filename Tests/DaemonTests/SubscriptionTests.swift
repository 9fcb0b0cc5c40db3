import DaemonTestKit
import Foundation
import LoopbackServers
import Schedule
import TestSupport
import Synchronization
import Testing

@testable import Daemon

/// A calendar with one event in late 2026, as a phone's calendar app would publish it.
private func dentist(_ summary: String = "Dentist at 10", refresh: String? = nil) -> String {
    calendar(event("UID:dentist@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261125T090000Z", "DTEND:20261125T100000Z",
                   "SUMMARY:\(summary)"),
             header: refresh.map { ["REFRESH-INTERVAL;VALUE=DURATION:\($0)"] } ?? [])
}

private let emptyCalendar = calendar([])

private let now = Instant(secondsSinceEpoch: 1_795_000_000)

extension Instant {
    fileprivate func adding(seconds: Int64) -> Instant { Instant(secondsSinceEpoch: secondsSinceEpoch + seconds) }
}

/// Subscriptions over a cache folder of the test's, checking calendars with a real schedule.
private func makeSubscriptions(
    _ addresses: [String], server: LoopbackWebServer?, cache: TemporaryFolder, stallSeconds: Int = 30
) async throws -> (Subscriptions, Schedule) {
    let schedule = try await Schedule(displayZone: "Europe/Berlin")
    let subscriptions = Subscriptions(
        addresses: addresses.map { SubscriptionAddress($0)! }, folder: cache.path + "/subscriptions",
        certificateAuthorities: server?.certificateAuthorities, stallSeconds: stallSeconds,
        inspect: { await schedule.inspect($0, name: $1) }, seed: 7)
    return (subscriptions, schedule)
}

/// A server serving `text` as `name` (nothing, when nil), and a subscription to the address
/// `address` gives (the file's, by default) that was asked for once at `now`.
private struct FirstFetch {
    let server: LoopbackWebServer
    let cache: TemporaryFolder
    let subscriptions: Subscriptions
    /// Whether the first fetch brought a calendar, and the status after it.
    let changed: Bool
    let status: SubscriptionStatus
    let address: SubscriptionAddress

    init(_ name: String = "calendar.ics", serving text: String? = dentist(),
         address: ((LoopbackWebServer) -> String)? = nil) async throws {
        server = try LoopbackWebServer()
        if let text { try server.serve(name, text) }
        cache = try TemporaryFolder()
        let url = address?(server) ?? server.url(name)
        (subscriptions, _) = try await makeSubscriptions([url], server: server, cache: cache)
        self.address = await subscriptions.addresses[0]
        changed = await subscriptions.refresh(self.address, at: now)
        status = await subscriptions.statuses()[0]
    }
}

@Suite("Calendar subscriptions against a real web server on loopback", .tags(.live),
       .tier(.live, needs: [.program("/usr/sbin/nginx"), .program("/usr/bin/openssl")]))
struct SubscriptionTests {
    @Test("A calendar is fetched once, then asked for conditionally and not sent again while unchanged")
    func conditionalRequests() async throws {
        let fetched = try await FirstFetch()
        #expect(fetched.changed)
        let (server, subscriptions, address) = (fetched.server, fetched.subscriptions, fetched.address)
        var status = await subscriptions.statuses()[0]
        #expect(status.httpStatus == 200 && status.events == 1 && status.error == nil)
        #expect(status.nextAttempt == Instant(secondsSinceEpoch: now.secondsSinceEpoch + 300).description)
        #expect(await !subscriptions.refresh(address, at: now.adding(seconds: 300)))
        status = await subscriptions.statuses()[0]
        #expect(status.httpStatus == 304 && status.events == 1 && status.error == nil)
        let requests = server.requests
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.first?.hasPrefix("GET /calendar.ics 200 \"-\"") == true)
        // The second request names the copy in hand (nginx weakens the tag of what it compresses).
        #expect(requests.last?.hasPrefix("GET /calendar.ics 304 \"W/") == true)
        #expect(requests.first.map { !$0.hasSuffix(" -") } == true, "the calendar came compressed: \(requests)")
        // A new size: nginx's tag is the file's time (to the second) and size.
        try server.serve("calendar.ics", dentist("Dentist at 11:30"))
        #expect(await subscriptions.refresh(address, at: now.adding(seconds: 600)))
    }

    @Test("The schedule reads a subscription's copy under its address, and the copy outlives a restart without network")
    func cachedCopyAfterRestart() async throws {
        let cache = try TemporaryFolder()
        var server: LoopbackWebServer? = try LoopbackWebServer()
        let address = server!.url("calendar.ics")
        try server!.serve("calendar.ics", dentist())
        let (first, _) = try await makeSubscriptions([address], server: server, cache: cache)
        #expect(await first.refresh(await first.addresses[0], at: now))
        server = nil  // the box restarts with no network: the connection is refused
        let (second, schedule) = try await makeSubscriptions([address], server: nil, cache: cache)
        #expect(await !second.refresh(await second.addresses[0], at: now.adding(seconds: 60)))
        let status = await second.statuses()[0]
        #expect(status.error?.contains("onnect") == true, "\(status)")
        #expect(status.events == 1 && status.lastSuccess == now.description)
        // No server answered: the box's own network may be what is missing, asked again soon.
        let again = await second.nextAttempt(at: now.adding(seconds: 60))?.secondsSinceEpoch
        #expect(again == now.secondsSinceEpoch + 65)
        // 25 November 2026, 09:30 UTC: during the event.
        let during = Instant(secondsSinceEpoch: 1_795_599_000)
        await schedule.load([], fetched: await second.fetched(), around: during)
        let messages = await schedule.messages(at: during)
        #expect(messages.map(\.text) == ["Dentist at 10"])
        #expect(messages.first?.source == (await second.addresses[0]).shown)
    }

    @Test("A calendar whose copy cannot be written is shown all the same, and the failure said")
    func shownWithoutACopy() async throws {
        let server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        // A state folder that cannot be made (a file stands where its parent should be): as a
        // missing, read-only or full one, no copy can be written there, even by root.
        let blocked = try TemporaryFolder()
        try blocked.write("state", "a file, not a folder")
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        let subscriptions = Subscriptions(
            addresses: [SubscriptionAddress(server.url("calendar.ics"))!], folder: blocked.path + "/state/subscriptions",
            certificateAuthorities: server.certificateAuthorities, inspect: { await schedule.inspect($0, name: $1) }, seed: 7)
        let address = await subscriptions.addresses[0]
        #expect(await subscriptions.refresh(address, at: now))
        let status = await subscriptions.statuses()[0]
        #expect(status.lastSuccess == now.description && status.events == 1)
        #expect(status.error?.hasPrefix("shown, but no copy can be kept in \(blocked.path)/state/subscriptions (") == true,
                "\(status)")
        #expect(status.error?.contains("Not a directory") == true, "\(status)")
        let during = Instant(secondsSinceEpoch: 1_795_599_000)
        await schedule.load([], fetched: await subscriptions.fetched(), around: during)
        #expect(await schedule.messages(at: during).map(\.text) == ["Dentist at 10"])
        // Asked again and sent the same calendar: still shown, nothing read again.
        #expect(await !subscriptions.refresh(address, at: now.adding(seconds: 600)))
        #expect(await subscriptions.fetched()[0].held != nil)
    }

    @Test("A record that cannot be written is said; the calendar is shown all the same")
    func aRecordThatCannotBeKept() async throws {
        let server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        let cache = try TemporaryFolder()
        let (subscriptions, _) = try await makeSubscriptions([server.url("calendar.ics")], server: server, cache: cache)
        let address = await subscriptions.addresses[0]
        try FileManager.default.createDirectory(atPath: cache.path + "/subscriptions/\(address.key).json",
                                                withIntermediateDirectories: true)
        #expect(await subscriptions.refresh(address, at: now))
        let status = await subscriptions.statuses()[0]
        #expect(status.lastSuccess == now.description && status.events == 1)
        #expect(status.error?.hasPrefix("shown, but its record (when to ask next, the server's validators) cannot be kept in "
            + "\(cache.path)/subscriptions (") == true, "\(status)")
    }

    @Test("A folder made where a calendar's copy goes does not block it: asked for anew and shown")
    func aFolderAtTheCopysPlace() async throws {
        let fetched = try await FirstFetch()
        let copy = try #require(await fetched.subscriptions.fetched()[0].file)
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        let (restarted, schedule) = try await makeSubscriptions([fetched.server.url("calendar.ics")], server: fetched.server,
                                                                cache: fetched.cache)
        #expect(await restarted.refresh(restarted.addresses[0], at: now.adding(seconds: 600)))
        // Asked without validators: the server sends the calendar, not "not modified".
        #expect(fetched.server.requests.last?.hasPrefix("GET /calendar.ics 200") == true, "\(fetched.server.requests)")
        #expect(await restarted.statuses()[0].error?.hasPrefix("shown, but no copy can be kept") == true)
        let during = Instant(secondsSinceEpoch: 1_795_599_000)
        await schedule.load([], fetched: await restarted.fetched(), around: during)
        #expect(await schedule.messages(at: during).map(\.text) == ["Dentist at 10"])
    }

    @Test("Without a folder (a one-shot command) the calendar is held in memory only")
    func heldInMemory() async throws {
        let server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        let subscriptions = Subscriptions(
            addresses: [SubscriptionAddress(server.url("calendar.ics"))!], folder: nil,
            certificateAuthorities: server.certificateAuthorities, inspect: { await schedule.inspect($0, name: $1) }, seed: 7)
        await subscriptions.refreshAll(at: now)
        let status = await subscriptions.statuses()[0]
        #expect(status.error == nil && status.events == 1, "\(status)")
        let fetched = await subscriptions.fetched()
        #expect(fetched.count == 1 && fetched[0].file == nil && fetched[0].held == Array(dentist().utf8))
    }

    @Test("webcal:// is fetched over https, and redirects are followed")
    func webcalAndRedirects() async throws {
        let server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        let cache = try TemporaryFolder()
        let addresses = [
            server.url("calendar.ics", scheme: "webcal"), server.url("moved.ics"),
            "http://127.0.0.1:\(server.plainPort)/calendar.ics",
        ]
        let (subscriptions, _) = try await makeSubscriptions(addresses, server: server, cache: cache)
        for address in await subscriptions.addresses {
            #expect(await subscriptions.refresh(address, at: now), "\(address)")
        }
        #expect(await subscriptions.statuses().map(\.events) == [1, 1, 1])
        #expect(server.requests.filter { $0.hasPrefix("GET /moved.ics 301") }.count == 1)
    }

    @Test("A missing calendar, a web page, a broken calendar and an unknown authority keep the copy in hand")
    func failuresKeepTheLastGoodCopy() async throws {
        let fetched = try await FirstFetch()
        #expect(fetched.changed)
        let (server, subscriptions, address) = (fetched.server, fetched.subscriptions, fetched.address)
        let copy = try #require(await subscriptions.fetched()[0].file)
        let good = try Data(contentsOf: URL(fileURLWithPath: copy))
        func expectFailure(_ words: String, at seconds: Int64, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(await !subscriptions.refresh(address, at: now.adding(seconds: seconds)), sourceLocation: sourceLocation)
            let status = await subscriptions.statuses()[0]
            #expect(status.error?.contains(words) == true, "\(status)", sourceLocation: sourceLocation)
            #expect(status.events == 1, sourceLocation: sourceLocation)
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == good, sourceLocation: sourceLocation)
        }
        try FileManager.default.removeItem(atPath: server.root + "/calendar.ics")
        try await expectFailure("HTTP 404", at: 1000)
        try server.serve("calendar.ics", "<!DOCTYPE html><html><body>Sign in</body></html>")
        try await expectFailure("web page", at: 2000)
        try server.serve("calendar.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:garbage\r\n")
        try await expectFailure("cannot be used: https://127.0.0.1", at: 3000)
        try server.serve("calendar.ics", "\u{FF}\u{FE}not a calendar at all")
        try await expectFailure("cannot be used", at: 4000)
    }

    @Test("A server without validators sends the same calendar again: it is not read again")
    func noValidators() async throws {
        let fetched = try await FirstFetch("plain.ics")
        let (server, subscriptions, address) = (fetched.server, fetched.subscriptions, fetched.address)
        #expect(fetched.changed)
        #expect(await !subscriptions.refresh(address, at: now.adding(seconds: 300)))
        #expect(server.requests.map { $0.prefix(21) } == ["GET /plain.ics 200 \"-", "GET /plain.ics 200 \"-"])
        let status = await subscriptions.statuses()[0]
        #expect(status.httpStatus == 200 && status.error == nil)
        try server.serve("plain.ics", dentist("Dentist moved to 11:30"))
        #expect(await subscriptions.refresh(address, at: now.adding(seconds: 600)))
    }

    @Test("A calendar its server calls a web page is still a calendar")
    func mislabelledCalendar() async throws {
        let fetched = try await FirstFetch("labelled.ics")
        #expect(fetched.changed && fetched.status.events == 1)
    }

    @Test("Redirects that go round in a circle are given up on")
    func redirectLoop() async throws {
        let fetched = try await FirstFetch("loop.ics", serving: nil)
        #expect(!fetched.changed && fetched.status.error?.contains("redirects") == true, "\(fetched.status)")
        #expect(fetched.server.requests.count == 6)
    }

    @Test("An https calendar is never sent on over plain http")
    func noDowngrade() async throws {
        let fetched = try await FirstFetch("downgrade.ics")
        #expect(!fetched.changed && fetched.status.error?.contains("without encryption") == true, "\(fetched.status)")
        #expect(fetched.server.requests.filter { $0.contains("in-clear") }.isEmpty, "\(fetched.server.requests)")
    }

    @Test("A certificate from an unknown authority is refused")
    func unknownAuthority() async throws {
        let fetched = try await FirstFetch { "https://127.0.0.1:\($0.untrustedPort)/calendar.ics" }
        #expect(!fetched.changed && fetched.status.error?.contains("certificate") == true, "\(fetched.status)")
        #expect(fetched.status.events == nil && fetched.status.lastSuccess == nil)
        let copy = try #require(await fetched.subscriptions.fetched()[0].file)
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    @Test("Too many requests: the server's Retry-After is honoured")
    func retryAfter() async throws {
        let fetched = try await FirstFetch("busy.ics", serving: nil)
        let subscriptions = fetched.subscriptions
        #expect(!fetched.changed && fetched.status.httpStatus == 429 && fetched.status.error?.contains("HTTP 429") == true)
        #expect(await subscriptions.nextAttempt(at: now) == now.adding(seconds: 7200))
        #expect(await subscriptions.claimDue(at: now.adding(seconds: 7199)).isEmpty)
        #expect(await subscriptions.claimDue(at: now.adding(seconds: 7200)) == subscriptions.addresses)
        // Claimed: not due again while its fetch runs, and the status says it is being tried.
        #expect(await subscriptions.claimDue(at: now.adding(seconds: 7201)).isEmpty)
        #expect(await subscriptions.statuses()[0].lastAttempt == now.adding(seconds: 7200).description)
    }

    @Test("A subscription added is due at once; one removed leaves no copy, no record, and nothing shown")
    func addedAndRemoved() async throws {
        let fetched = try await FirstFetch()
        let folder = fetched.cache.path + "/subscriptions"
        let copy = try #require(await fetched.subscriptions.fetched()[0].file)
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(await !fetched.subscriptions.use([fetched.address]), "the same list is no change")

        #expect(await fetched.subscriptions.use([]))
        #expect(await fetched.subscriptions.fetched().isEmpty)
        #expect(await fetched.subscriptions.statuses().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "the private calendar is gone from the disk")

        let other = try #require(SubscriptionAddress(fetched.server.url("other.ics")))
        #expect(await fetched.subscriptions.use([fetched.address, other]))
        // Both due now: the one fetched before was forgotten with its record.
        #expect(await fetched.subscriptions.claimDue(at: now.adding(seconds: 1)).map(\.key) == [fetched.address.key, other.key])
    }

    @Test("A fetch under way when its address is removed keeps nothing")
    func removedWhileFetching() async throws {
        let silent = try SilentServer()
        let cache = try TemporaryFolder()
        let (subscriptions, _) = try await makeSubscriptions(
            ["https://127.0.0.1:\(silent.port)/calendar.ics"], server: nil, cache: cache, stallSeconds: 1)
        let address = await subscriptions.addresses[0]
        let fetching = Task { await subscriptions.refresh(address, at: now) }
        #expect(await eventually { await subscriptions.statuses().first?.lastAttempt != nil }, "the fetch began")
        #expect(await subscriptions.use([]))
        #expect(await !fetching.value)
        #expect(await subscriptions.statuses().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path + "/subscriptions").isEmpty)
    }

    @Test("A server that accepts and never answers is given up on")
    func hangingServer() async throws {
        let silent = try SilentServer()
        let cache = try TemporaryFolder()
        let (subscriptions, _) = try await makeSubscriptions(
            ["https://127.0.0.1:\(silent.port)/calendar.ics"], server: nil, cache: cache, stallSeconds: 1)
        #expect(await !subscriptions.refresh(subscriptions.addresses[0], at: now))
        let status = await subscriptions.statuses()[0]
        #expect(status.error?.lowercased().contains("timeout") == true || status.error?.contains("timed out") == true, "\(status)")
    }

    @Test("Every address is asked for at once, and a server that trickles a few bytes a second is given up on")
    func tricklingServersAtOnce() async throws {
        let trickling = try TricklingServer()
        let cache = try TemporaryFolder()
        let addresses = (1...3).map { "http://127.0.0.1:\(trickling.port)/calendar-\($0).ics" }
        let (subscriptions, _) = try await makeSubscriptions(addresses, server: nil, cache: cache, stallSeconds: 2)
        await subscriptions.refreshAll(at: now)
        let errors = await subscriptions.statuses().map(\.error)
        #expect(errors.allSatisfy { $0?.contains("too slow") == true }, "\(errors)")
        #expect(trickling.mostAtOnce == 3)
    }

    @Test("A header line of a megabyte is said as such, not as curl's \"Out of memory\"")
    func hugeHeader() async throws {
        let server = try TricklingServer(headers: "HTTP/1.1 200 OK\r\nX-Filler: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n")
        let cache = try TemporaryFolder()
        let (subscriptions, _) = try await makeSubscriptions(["http://127.0.0.1:\(server.port)/calendar.ics"], server: nil, cache: cache)
        #expect(await !subscriptions.refresh(subscriptions.addresses[0], at: now))
        #expect(await subscriptions.statuses()[0].error == "the server's answer is too large to read (a header over 100 KB)")
    }

    @Test("A 20 MB calendar is refused at the feed size limit")
    func hugeCalendar() async throws {
        let filler = String(repeating: "X-FILLER:" + String(repeating: "x", count: 1000) + "\r\n", count: 20_000)
        let fetched = try await FirstFetch("big.ics", serving: dentist() + filler)
        #expect(!fetched.changed && fetched.status.error == "the calendar is larger than 16 MB", "\(fetched.status)")
    }

    @Test("A calendar that suddenly has no events keeps its events for an hour, then is believed")
    func suddenlyEmpty() async throws {
        let fetched = try await FirstFetch()
        #expect(fetched.changed)
        let (server, subscriptions, address) = (fetched.server, fetched.subscriptions, fetched.address)
        try server.serve("calendar.ics", emptyCalendar)
        #expect(await !subscriptions.refresh(address, at: now.adding(seconds: 300)))
        var status = await subscriptions.statuses()[0]
        #expect(status.events == 1 && status.error?.contains("no events now") == true)
        #expect(await !subscriptions.refresh(address, at: now.adding(seconds: 300 + 3599)))
        #expect(await subscriptions.refresh(address, at: now.adding(seconds: 300 + 3600)))
        status = await subscriptions.statuses()[0]
        #expect(status.events == 0 && status.error == nil)
    }

    @Test("A box that fetched while its clock was a year ahead fetches again once the clock is set back")
    func clockSetBack() async throws {
        let ahead = now.adding(seconds: 365 * 86_400)
        let server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        let cache = try TemporaryFolder()
        let (subscriptions, _) = try await makeSubscriptions([server.url("calendar.ics")], server: server, cache: cache)
        #expect(await subscriptions.refresh(subscriptions.addresses[0], at: ahead))
        #expect(await subscriptions.claimDue(at: ahead.adding(seconds: 299)).isEmpty)
        #expect(await subscriptions.nextAttempt(at: now) == now)
        #expect(await subscriptions.claimDue(at: now) == subscriptions.addresses)
    }

    @Test("A carer's reload asks again at once, but not a server that asked to wait")
    func askAgainNow() async throws {
        let fetched = try await FirstFetch()
        let busy = try await FirstFetch("busy.ics", serving: nil)
        for subscriptions in [fetched.subscriptions, busy.subscriptions] {
            #expect(await subscriptions.claimDue(at: now.adding(seconds: 10)).isEmpty)
            await subscriptions.askAgainNow(at: now.adding(seconds: 10))
            var wakeUps = subscriptions.wakeUps.makeAsyncIterator()
            #expect(await wakeUps.next() != nil)
        }
        #expect(await fetched.subscriptions.claimDue(at: now.adding(seconds: 10)) == fetched.subscriptions.addresses)
        #expect(await busy.subscriptions.claimDue(at: now.adding(seconds: 10)).isEmpty)
    }

    @Test("The calendar's REFRESH-INTERVAL is honoured when it is longer than marquee's")
    func calendarRefreshInterval() async throws {
        let fetched = try await FirstFetch(serving: dentist(refresh: "PT2H"))
        #expect(fetched.changed)
        #expect(await fetched.subscriptions.nextAttempt(at: now) == now.adding(seconds: 7200))
    }
}

/// The daemon's subscription loop over a real server, its clock moved by the test: what it
/// asked the server, posted to the display loop, told the status and wrote to the journal.
private struct FetchingLoop {
    let server: LoopbackWebServer
    let cache: TemporaryFolder
    let clock = ManualClock(wall: now)
    let mailbox = EventMailbox()
    let state = DisplayState(clock: ManualClock(wall: now))
    let journal = Pipe()
    let task: Task<Void, Never>

    /// `address`: what is subscribed to (the server's calendar by default).
    init(address: String? = nil) async throws {
        server = try LoopbackWebServer()
        try server.serve("calendar.ics", dentist())
        cache = try TemporaryFolder()
        let (subscriptions, schedule) = try await makeSubscriptions([address ?? server.url("calendar.ics")], server: server,
                                                                    cache: cache)
        let log = EventLog(environment: [:], descriptor: journal.fileHandleForWriting.fileDescriptor)
        // On threads of its own: the test's time is its own, and a test elsewhere that blocks
        // the threads tasks share does not hold it up.
        task = Task(executorPreference: Self.executor) { [clock, mailbox, state] in
            await keepFetching(subscriptions, schedule: schedule, mailbox: mailbox, state: state, log: log, clock: clock)
        }
    }

    private static let executor = QueueTaskExecutor(label: "subscription-loop-test")

    /// Whether `condition` comes to hold. The loop asks the schedule: `scheduleWaitLimit`.
    func eventually(_ condition: () async throws -> Bool) async rethrows -> Bool {
        try await TestSupport.eventually(within: scheduleWaitLimit, condition)
    }

    /// Lets `seconds` pass and returns once the loop waits again.
    func advance(seconds: Int64) async {
        let waits = clock.waits.count
        clock.advance(seconds: seconds)
        #expect(await eventually { clock.waits.count > waits })
    }

    /// What it posted to the display loop since the last look, by name.
    func posted() -> [String] { mailbox.take().map { "\($0)" } }

    /// The journal's lines (once the loop has ended).
    func journalLines() -> [String] {
        journal.fileHandleForWriting.closeFile()
        let text = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }
}

@Suite("The daemon's subscription loop, on a clock the test moves", .tags(.live),
       .tier(.live, needs: [.program("/usr/sbin/nginx"), .program("/usr/bin/openssl")]))
struct SubscriptionLoopTests {
    @Test("Fetched at the start and when due, looked at each minute; a new version has the feeds read again")
    func fetchesWhenDue() async throws {
        let loop = try await FetchingLoop()
        defer { loop.task.cancel() }
        #expect(await loop.eventually { loop.state.subscriptions.first?.httpStatus == 200 })
        #expect(await loop.eventually { loop.posted().contains("feedsChanged") })
        #expect(loop.clock.waits.allSatisfy { $0 <= 60_000_000_000 }, "\(loop.clock.waits)")
        // Due every 300 s: the minutes between ask the server nothing.
        for _ in 1...4 { await loop.advance(seconds: 60) }
        #expect(loop.server.requests.count == 1, "\(loop.server.requests)")
        await loop.advance(seconds: 60)
        #expect(await loop.eventually { loop.server.requests.count == 2 })
        #expect(await loop.eventually { loop.state.subscriptions.first?.httpStatus == 304 })
        #expect(!loop.posted().contains("feedsChanged"))
        try loop.server.serve("calendar.ics", dentist("Dentist at 11:30"))
        for _ in 1...5 { await loop.advance(seconds: 60) }
        #expect(await loop.eventually { loop.posted().contains("feedsChanged") })
        #expect(loop.server.requests.count == 3)
        loop.task.cancel()
        await loop.task.value
        // (The same line twice within a minute is written once.)
        #expect(loop.journalLines().contains { $0.hasSuffix("calendar.ics: fetched a new version of the calendar") })
    }

    @Test("No server reached (the box's network not up yet): asked again 5 s after the failure, not at the next minute")
    func noServerReachedIsAskedAgainSoon() async throws {
        let closed = try freePorts(1)[0]
        let loop = try await FetchingLoop(address: "http://127.0.0.1:\(closed)/calendar.ics")
        defer { loop.task.cancel() }
        #expect(await loop.eventually { loop.state.subscriptions.first?.error?.contains("onnect") == true })
        let first = try #require(loop.state.subscriptions.first?.lastAttempt)
        // The minute's timer was armed while the first fetch ran; its failure armed a sooner one.
        #expect(await loop.eventually { loop.clock.waits.last == 5_000_000_000 }, "\(loop.clock.waits)")
        await loop.advance(seconds: 5)
        #expect(await loop.eventually { loop.state.subscriptions.first.map { $0.lastAttempt != first } == true },
                "\(String(describing: loop.state.subscriptions.first))")
    }

    @Test("A failure is said once while it lasts, and a clock set back is noticed within a minute")
    func failuresAndClockSetBack() async throws {
        let loop = try await FetchingLoop()
        defer { loop.task.cancel() }
        #expect(await loop.eventually { loop.state.subscriptions.first?.httpStatus == 200 })
        _ = loop.posted()
        try FileManager.default.removeItem(atPath: loop.server.root + "/calendar.ics")
        for _ in 1...5 { await loop.advance(seconds: 60) }
        #expect(await loop.eventually { loop.state.subscriptions.first?.httpStatus == 404 })
        #expect(await loop.eventually { loop.posted().contains("subscriptionsChanged") })
        // Failures back off from a minute: two more attempts within ten minutes, said no more.
        try loop.server.serve("calendar.ics", dentist())
        try FileManager.default.removeItem(atPath: loop.server.root + "/calendar.ics")
        let before = loop.server.requests.count
        for _ in 1...10 { await loop.advance(seconds: 60) }
        #expect(loop.server.requests.count > before, "\(loop.server.requests)")
        #expect(!loop.posted().contains("subscriptionsChanged"))
        // Set back a day, as NTP does to a box that booted with a wrong date.
        try loop.server.serve("calendar.ics", dentist())
        let requests = loop.server.requests.count
        loop.clock.setWall(Instant(secondsSinceEpoch: loop.clock.now().secondsSinceEpoch - 86_400))
        await loop.advance(seconds: 60)
        #expect(await loop.eventually { loop.server.requests.count > requests })
        #expect(await loop.eventually { loop.state.subscriptions.first?.error == nil })
        #expect(await loop.eventually { loop.posted().contains("subscriptionsChanged") })
        loop.task.cancel()
        await loop.task.value
        let lines = loop.journalLines()
        let warnings = lines.filter { $0.contains("no calendar at this address") && !$0.contains("fetched again") }
        #expect(warnings.count == 1, "\(warnings)")
        // Its recovery is said once too (it never was).
        let recovered = lines.filter { $0.contains("fetched again; it was failing (there is no calendar at this address") }
        #expect(recovered.count == 1, "\(lines)")
    }
}

@Suite("When subscriptions are asked for again")
struct RefreshPolicyTests {
    @Test("Never more often than once a minute; longer when the calendar or the server asks")
    func intervals() {
        #expect(RefreshPolicy(interval: 5).interval == 60)
        let policy = RefreshPolicy()
        #expect(policy.nextAfterSuccess(at: 0, calendarSeconds: nil, retryAfter: nil) == 300)
        #expect(policy.nextAfterSuccess(at: 0, calendarSeconds: 60, retryAfter: nil) == 300)
        #expect(policy.nextAfterSuccess(at: 0, calendarSeconds: 3600, retryAfter: 600) == 3600)
        #expect(policy.nextAfterSuccess(at: 0, calendarSeconds: 99 * 86_400, retryAfter: nil) == 86_400)
    }

    @Test("Failures back off from a minute to an hour, with jitter, never before Retry-After")
    func backoff() {
        let policy = RefreshPolicy()
        for failures in 1...12 {
            let doubled: Int64 = min(3600, 60 << Int64(failures - 1))
            let low = policy.nextAfterFailure(at: 0, failures: failures, retryAfter: nil, jitter: 0)
            let high = policy.nextAfterFailure(at: 0, failures: failures, retryAfter: nil, jitter: 0.999_999)
            #expect(low == max(60, doubled / 2) && (doubled - 1...doubled).contains(high), "failure \(failures)")
        }
        #expect(policy.nextAfterFailure(at: 100, failures: 1, retryAfter: 900, jitter: 0.5) == 1000)
        #expect(policy.nextAfterFailure(at: 0, failures: 1, retryAfter: 30 * 86_400, jitter: 0.5) == 86_400)
    }

    @Test("A failure that reached no server is asked again after 5 s, doubling up to the hour")
    func backoffWithoutServer() {
        let policy = RefreshPolicy()
        for failures in 1...12 {
            let doubled: Int64 = min(3600, 5 << Int64(failures - 1))
            let low = policy.nextAfterFailure(at: 0, failures: failures, retryAfter: nil, jitter: 0, reachedServer: false)
            let high = policy.nextAfterFailure(at: 0, failures: failures, retryAfter: nil, jitter: 0.999_999,
                                               reachedServer: false)
            #expect(low == max(5, doubled / 2) && (doubled - 1...doubled).contains(high), "failure \(failures)")
        }
        #expect(policy.nextAfterFailure(at: 0, failures: 1, retryAfter: 120, jitter: 0, reachedServer: false) == 120)
    }
}

@Suite("Subscription addresses")
struct SubscriptionAddressTests {
    @Test("Private addresses are shown without their secrets, and told apart")
    func redaction() throws {
        let google = try #require(SubscriptionAddress(
            "https://calendar.google.com/calendar/ical/mum%40gmail.com/private-0a1b2c3d4e5f60718293a4b5c6d7e8f9/basic.ics"))
        #expect(google.url == google.given)
        #expect(google.shown.hasPrefix("https://calendar.google.com/calendar/ical/…"))
        #expect(google.shown.hasSuffix("/basic.ics") && !google.shown.contains("0a1b2c3d4e5f") && !google.shown.contains("mum"))
        let other = try #require(SubscriptionAddress(
            "https://calendar.google.com/calendar/ical/mum%40gmail.com/private-99999999999999999999999999999999/basic.ics"))
        #expect(other.shown != google.shown && other.key != google.key)

        let icloud = try #require(SubscriptionAddress("webcal://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0"))
        #expect(icloud.url == "https://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0")
        #expect(icloud.shown.hasPrefix("webcal://p42-caldav.icloud.com/published/2/…"))
        #expect(!icloud.shown.contains("MTIz"))

        let nextcloud = try #require(SubscriptionAddress("https://carer:s3cret-pass@cloud.example.org/remote.php/dav/public-calendars/a8Zk29QpL3mX0wYt?export"))
        #expect(nextcloud.shown.hasPrefix("https://cloud.example.org/remote.php/dav/public-calendars/…"))
        #expect(!nextcloud.shown.contains("a8Zk"))
        #expect(nextcloud.shown.hasSuffix("?export") && !nextcloud.shown.contains("s3cret") && !nextcloud.shown.contains("carer"))
    }

    /// An address pasted with the line's end (a lone LF, or CR LF) is the address.
    @Test("The end of a pasted line is trimmed")
    func pastedLineEnds() throws {
        for pasted in ["https://example.org/feed.ics\n", " https://example.org/feed.ics\r\n", "\thttps://example.org/feed.ics\r"] {
            #expect(SubscriptionAddress(pasted)?.url == "https://example.org/feed.ics", "\(pasted.debugDescription)")
        }
    }

    /// Real providers' private addresses and the forms secrets hide in: whatever is shown keeps
    /// none of the secret, parsed or not.
    @Test("Secrets never show, whatever their shape", arguments: [
        ("https://alice:S3cretPassw0rd@cloud.example.org/private-0123456789abcdef0123/basic.ics ", ["alice", "S3cret", "0123456789"]),
        ("htps://alice:S3cretPassw0rd@cloud.example.org/private-0123456789abcdef0123/basic.ics", ["alice", "S3cret", "0123456789"]),
        ("https://example.org/feed.ics?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw", ["eyJ", "SflK"]),
        ("https://example.org/cal/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw/basic.ics", ["eyJ", "SflK"]),
        ("https://example.org/cal/aGVsbG8gd29ybGQ%3D%3D/basic.ics", ["aGVs", "%3D"]),
        ("https://example.org/cal/qwertzuiopasdfghjklyxcvbnm/basic.ics", ["qwertz"]),
        ("https://example.org/basic.ics?token=s3cret", ["s3cret"]),
        ("https://example.org/basic.ics?auth=letters", ["letters"]),
        ("https://example.org/basic.ics?k=Sh0rtT0k3n", ["Sh0rt"]),
        ("https://alice:pa/ss@host.example/basic.ics", ["alice", "pa/ss", "ss@"]),
        ("https://calendar.google.com/calendar/ical/mum%40gmail.com/private-0a1b2c3d4e5f60718293a4b5c6d7e8f9/basic.ics",
         ["mum", "0a1b2c"]),
        ("webcal://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3OA", ["MTIz"]),
        ("https://outlook.office365.com/owa/calendar/3f2504e04f8941d39a0c0305e82c3301@example.com/8b7df143d91c4d58/calendar.ics",
         ["3f2504", "8b7df1"]),
        ("https://cloud.example.org/remote.php/dav/public-calendars/a8Zk29QpL3mX0wYt?export", ["a8Zk"]),
        ("https://calendar.proton.me/api/calendar/v1/url/AbCdEf123456789_-XyZ==/calendar.ics?CacheKey=abc123&PassphraseKey=xyzw",
         ["AbCdEf", "abc123", "xyzw"]),
        ("https://user.fm/calendar/v1-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6/Family.ics", ["a1b2c3"]),
        ("calendar.example.org/private-0123456789abcdef0123/basic.ics", ["0123456789"]),
    ])
    func secretsNeverShow(address: String, secrets: [String]) {
        #expect(SubscriptionAddress.looksLikeAddress(address))
        let shown = SubscriptionAddress(address)?.shown ?? SubscriptionAddress.redacted(address)
        for secret in secrets { #expect(!shown.contains(secret), "\(shown) shows \(secret)") }
        #expect([".org", ".com", ".me", ".fm", ".example"].contains { shown.contains($0) }, "the host stays readable: \(shown)")
        #expect(!shown.hasSuffix(" "))
    }

    @Test("Words stay readable and two addresses stay apart")
    func wordsStay() {
        #expect(SubscriptionAddress.redacted("https://outlook.office365.com/owa/calendar/a1@b.com/c2/calendar.ics")
            .hasPrefix("https://outlook.office365.com/owa/calendar/…"))
        #expect(SubscriptionAddress.redacted("https://cloud.example.org:8443/remote.php/dav/public-calendars/x?export")
            .hasPrefix("https://cloud.example.org:8443/remote.php/dav/public-calendars/"))
        #expect(SubscriptionAddress.redacted("https://a.example/cal/Tok3n1") != SubscriptionAddress.redacted("https://a.example/cal/Tok3n2"))
        for text in ["/etc/marquee/feeds.d", "feeds/family.ics", "family.ics", "./x/y.ics"] {
            #expect(!SubscriptionAddress.looksLikeAddress(text), "\(text)")
        }
    }

    @Test("Paths, other schemes and addresses without a host are not subscriptions")
    func notAddresses() {
        for text in ["/etc/marquee/feeds.d", "feeds/family.ics", "ftp://example.org/a.ics", "https://", "https:///a.ics",
                     "file:///etc/a.ics", "https://exa mple.org/a.ics"] {
            #expect(SubscriptionAddress(text) == nil, "\(text)")
        }
        #expect(SubscriptionAddress("HTTPS://example.org/a.ics")?.url == "https://example.org/a.ics")
        #expect(SubscriptionAddress("https://example.org/a.ics#fragment")?.url == "https://example.org/a.ics")
    }
}
