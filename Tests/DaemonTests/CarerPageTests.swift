import DaemonTestKit
import Foundation
import Ledger
import LoopbackServers
import Schedule
import Support
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// The carer's page, its rules alone: who is the home network, how wrong passwords are slowed,
/// how the password is kept, how sessions end, and that nothing a calendar writes becomes markup.
struct CarerPageRuleTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("10.20.30.40", true), ("172.16.0.1", true), ("172.31.255.254", true), ("172.32.0.1", false),
        ("192.168.1.23", true), ("192.169.0.1", false), ("169.254.10.1", true), ("8.8.8.8", false), ("203.0.113.2", false),
        ("::1", true), ("fe80::1", true), ("fd12:3456::1", true), ("2001:db8::1", false), ("::ffff:192.168.1.5", true),
        ("::ffff:8.8.8.8", false), ("not an address", false), ("", false), ("1.2.3.4.5", false),
    ])
    func theHomeNetwork(address: String, isHome: Bool) {
        #expect(PagePeers.isHomeNetwork(address) == isHome)
        #expect(PagePeers.home.admits(address) == isHome)
        #expect(PagePeers.any.admits(address))
    }

    /// Four wrong passwords cost only their second each; the fifth locks the address out for a
    /// quarter of an hour, the next lockout for half an hour; another address is not touched,
    /// and the right password starts afresh.
    @Test func wrongPasswordsLockAnAddressOut() {
        var throttle = LoginThrottle()
        for _ in 1..<LoginThrottle.freeTries { #expect(throttle.failed("192.168.1.9", at: 1_000) == nil) }
        #expect(throttle.failed("192.168.1.9", at: 1_000) == 1_900)
        #expect(throttle.lockedUntil("192.168.1.9", at: 1_899) == 1_900)
        #expect(throttle.lockedUntil("192.168.1.10", at: 1_000) == nil)
        #expect(throttle.lockedUntil("192.168.1.9", at: 1_900) == nil)
        for _ in 1..<LoginThrottle.freeTries { _ = throttle.failed("192.168.1.9", at: 2_000) }
        #expect(throttle.failed("192.168.1.9", at: 2_000) == 3_800)
        throttle.succeeded("192.168.1.9")
        #expect(throttle.lockedUntil("192.168.1.9", at: 2_001) == nil)
    }

    @Test func thePasswordIsKeptAsAnArgon2idHash() {
        let hash = PagePassword.hash("correct horse battery")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(!hash.contains("correct horse"))
        #expect(PagePassword.verify("correct horse battery", against: hash))
        #expect(!PagePassword.verify("correct horse batterY", against: hash))
        #expect(!PagePassword.verify("correct horse battery", against: "$argon2id$garbage"))
        #expect(!PagePassword.verify(String(repeating: "a", count: 100_000), against: hash))
        #expect(PagePassword.hash("correct horse battery") != hash, "each hash has a salt of its own")
        #expect(PagePassword.refusal(of: "short") != nil && PagePassword.refusal(of: "long enough") == nil)
    }

    @Test func sessionsEndUnusedSignedOutOrCrowdedOut() {
        let sessions = PageSessions()
        let first = sessions.open(at: 0)
        #expect(first.token.count == 64 && first.changeToken.count == 64 && first.token != first.changeToken)
        #expect(sessions.session(first.token, at: PageSessions.lifetime - 1) != nil)
        #expect(sessions.session(first.token, at: 2 * PageSessions.lifetime - 2) != nil, "use keeps it")
        #expect(sessions.session(first.token, at: 3 * PageSessions.lifetime) == nil)
        let second = sessions.open(at: 0)
        sessions.close(second.token)
        #expect(sessions.session(second.token, at: 1) == nil)
        let crowd = (0...PageSessions.most).map { sessions.open(at: Int64($0)) }
        #expect(sessions.session(crowd[0].token, at: 100) == nil && sessions.session(crowd.last!.token, at: 100) != nil)
        #expect(sessions.session("", at: 100) == nil)
        #expect(tokensMatch(first.changeToken, first.changeToken) && !tokensMatch(first.changeToken, second.changeToken))
        #expect(!tokensMatch("", first.changeToken))
    }

    /// A calendar's `<script>` is text on the page, in the list and in the JSON the script reads.
    @Test func nothingACalendarWritesBecomesMarkup() {
        var now = PageNow(report: StatusReport(updatedAt: "", output: ""), problems: ["feed \"<b>x</b>\" broken"], changes: 1,
                          picture: 2, words: PageWords())
        now.showing = ["<script>alert('pills')</script> & more", "Johnny's birthday"]
        let page = PageViews.now(PageWords(), now, changeToken: "\"><script>", notice: "<img src=x onerror=alert(1)>")
        #expect(!page.contains("<script>alert") && !page.contains("<b>x</b>") && !page.contains("<img src=x"))
        #expect(page.contains("&lt;script&gt;alert(&#39;pills&#39;)&lt;/script&gt; &amp; more"))
        #expect(page.contains("value=\"&quot;&gt;&lt;script&gt;\""))
        #expect(!PageViews.escapedJSON(now).contains("</script>"))
        #expect(PageViews.now(PageWords.forLanguage("de_DE"), now, changeToken: "t", notice: nil).contains("Erinnerung bestätigen"))
    }
}

/// The carer's page served on loopback and asked by curl, a real HTTP client: the sign-in, the
/// lockout, the cookie's rules, "Now", a change with and without its token, the events, and
/// what is refused.
@Suite(.tier(.live, needs: [.program("/usr/bin/curl")]))
struct CarerPageTests {
    let folder: TemporaryFolder
    let state: DisplayState
    let mailbox = EventMailbox()
    /// Moved on by a quarter of a second every 10 ms while the page serves: its waits (a wrong
    /// password's second, the events' looks) pass forty times faster than on the wall.
    let clock = ManualClock(wall: instant("2026-11-29T10:00:00+01:00"))
    let journal = Pipe()

    init() throws {
        folder = try TemporaryFolder()
        state = DisplayState(clock: clock)
        state.update { $0.showing = ["<script>alert(1)</script> Pills now, Anna"] }
        #expect(mkdir(folder.path + "/said", 0o700) == 0)
        // The ledger as the loop keeps it: this morning's pills acknowledged by a key, last
        // Tuesday's missed while the box was off.
        let morning = instant("2026-11-29T08:00:00+01:00").secondsSinceEpoch
        let tuesday = instant("2026-11-24T08:00:00+01:00").secondsSinceEpoch
        try ReminderLedger(path: ReminderLedger.path(inStateFolder: folder.path)).record([
            LedgerEntry(key: .init(event: "pills", trigger: morning, origin: "audio"), text: "Pills now, Anna", triggerOffset: 3_600,
                        fate: .acknowledged, soundings: 2, total: 3, decidedAt: morning, changedAt: morning + 120,
                        acknowledgedBy: "a key"),
            LedgerEntry(key: .init(event: "pills", trigger: tuesday, origin: "audio"), text: "<b>Pills</b> now, Anna",
                        triggerOffset: 3_600, fate: .missed, why: "the box was off at its time", decidedAt: tuesday + 7_200),
        ])
        #expect(writeFileAtomically(Array(PagePassword.hash("a carer's secret").utf8), to: folder.path + "/page-password") == nil)
    }

    /// Uploads are read as the box reads them: by `marquee read-feed` helpers (the package's
    /// binary, built with the tests), not on libical's one actor that other tests hold for minutes.
    static let reader = FeedReader.helper(
        executable: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/marquee").path,
        arguments: ["read-feed"])

    /// Serves the page on a free loopback port while `body` runs (over TLS with `certificate`).
    private func serving(certificate: PageCertificate? = nil, _ body: (_ base: String) async throws -> Void) async throws {
        let log = EventLog(environment: [:], descriptor: journal.fileHandleForWriting.fileDescriptor)
        let desk = ControlDesk(state: state, mailbox: mailbox, checkConfiguration: nil, said: SaidNow(folder: folder.path + "/said"),
                               ledger: ReminderLedger.path(inStateFolder: folder.path), clock: clock)
        let page = CarerPage(settings: PageSettings(host: "127.0.0.1", port: 0, peers: .home,
                                                    passwordFile: folder.path + "/page-password", language: "en",
                                                    version: "9.9.9", stateFolder: folder.path,
                                                    configurationFile: folder.path + "/marquee.toml",
                                                    tls: certificate == nil ? nil : .own(folder: folder.path + "/page-tls")),
                             state: state, desk: desk, written: WrittenCalendar(stateFolder: folder.path),
                             uploaded: UploadedCalendars(stateFolder: folder.path),
                             schedule: try await Schedule(displayZone: "Europe/Berlin", reader: Self.reader), pictures: nil,
                             clock: clock, log: log)
        let port = Mutex(0)
        let server = Task { try await page.serve(certificate: certificate) { listening in port.withLock { $0 = listening } } }
        // On a thread of its own, as curl runs: a test elsewhere that blocks the threads tasks
        // share does not stop the page's time.
        let stopped = Mutex(false)
        let time = runningThread(named: "page-test-time") { [clock] in
            while !stopped.withLock({ $0 }) {
                clock.advance(by: 250_000_000)
                usleep(10_000)
            }
        }
        defer {
            server.cancel()
            stopped.withLock { $0 = true }
        }
        #expect(await eventually { port.withLock { $0 } != 0 })
        try await body("\(certificate == nil ? "http" : "https")://127.0.0.1:\(port.withLock { $0 })")
        server.cancel()
        _ = try? await server.value
        stopped.withLock { $0 = true }
        _ = await time?.ended()
    }

    /// curl's answer: the status, the headers (lower-cased names) and the body.
    private struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Runs curl on a thread of its own: waiting for it on one of the few threads tasks share
    /// would starve the server it asks.
    private func curl(_ arguments: [String]) async throws -> Answer {
        let folder = folder.path
        guard let answer = await onThread(named: "curl", { Result { try Self.runCurl(arguments, folder: folder) } }) else {
            throw CurlFailure()
        }
        return try answer.get()
    }

    private struct CurlFailure: Error {}

    private static func runCurl(_ arguments: [String], folder: String) throws -> Answer {
        let headers = folder + "/headers-\(UUID().uuidString)"
        let body = Data(try Spawned.run("/usr/bin/curl", ["-s", "-o", "-", "-D", headers, "--max-time", "10", "-c",
                                                         folder + "/cookies", "-b", folder + "/cookies"] + arguments).output)
        let head = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
        let lines = head.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: fields, body: String(decoding: body, as: UTF8.self))
    }

    private func changeToken(in page: String) -> String? {
        guard let field = page.range(of: "name=\"token\" value=\"") else { return nil }
        return String(page[field.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aCarerSignsInSeesNowAndActs() async throws {
        try await serving { base in
            let signIn = try await curl([base + "/"])
            #expect(signIn.status == 200 && signIn.body.contains("type=\"password\""))
            #expect(signIn.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            let wrong = try await curl(["--data-urlencode", "password=guess", base + "/login"])
            #expect(wrong.status == 401 && wrong.body.contains("That password is not right."))
            let right = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            #expect(right.status == 303 && right.headers["location"] == "/")
            let cookie = try #require(right.headers["set-cookie"])
            #expect(cookie.contains("marquee_session=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))

            let now = try await curl([base + "/"])
            #expect(now.status == 200 && now.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; Pills now, Anna"))
            #expect(!now.body.contains("<script>alert(1)"))
            let token = try #require(changeToken(in: now.body))

            let forged = try await curl(["--data", "token=0000&action=pause", base + "/act"])
            #expect(forged.status == 403)
            #expect(mailbox.take().isEmpty, "a change without the session's token does nothing")
            let paused = try await curl(["--data", "token=\(token)&action=pause", base + "/act"])
            #expect(paused.status == 303)
            #expect(mailbox.take().map { "\($0)" } == ["control(Daemon.ControlRequest.Kind.pause)"])
            #expect(try await curl([base + "/"]).body.contains("Done."))

            let shown = try await curl(["--data", "token=\(token)&action=show&minutes=5", "--data-urlencode", "text=Anna is coming at 3",
                                  base + "/act"])
            #expect(shown.status == 303)
            #expect(mailbox.take().map { "\($0)" } == ["control(Daemon.ControlRequest.Kind.show)"])

            let reminders = try await curl([base + "/reminders"])
            let (today, week) = try #require(reminders.body.split(separator: "The last 7 days").first.map { ($0, reminders.body) })
            #expect(today.contains("11-29 08:00") && today.contains("acknowledged (by a key, 08:02)"))
            #expect(week.contains("11-24 08:00") && week.contains("&lt;b&gt;Pills&lt;/b&gt; now, Anna")
                && week.contains("missed: the box was off at its time"))

            let box = try await curl([base + "/box"])
            #expect(box.status == 200 && box.body.contains("marquee 9.9.9") && box.body.contains(" GB free of "))
            #expect(box.body.contains("id=\"uptime\""))

            let events = try await curl(["-N", "--max-time", "1", base + "/events"])
            #expect(events.body.hasPrefix("event: now\ndata: {"))
            #expect(events.body.contains("Pills now, Anna"))

            let huge = try await curl(["--data", "token=\(token)&action=show&text=" + String(repeating: "x", count: 100_000), base + "/act"])
            #expect(huge.status == 413)
            #expect(try await curl(["--data", "token=\(token)&action=reboot", base + "/act"]).status == 400)

            _ = try await curl(["-X", "POST", base + "/logout"])
            #expect(try await curl([base + "/picture.png"]).status == 401)
            #expect(try await curl([base + "/"]).body.contains("type=\"password\""))
        }
        journal.fileHandleForWriting.closeFile()
        let lines = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("the page: a wrong password from 127.0.0.1"))
        #expect(lines.contains("the page: pause by the carer from 127.0.0.1"))
        #expect(lines.contains("the page: show \"Anna is coming at 3\" by the carer from 127.0.0.1"))
        #expect(!lines.contains("a carer's secret"))
    }

    /// One second of a 300 Hz tone as the page's script sends a recording: WAV, 16 kHz, one channel.
    private func toneWAV(seconds: Double = 1) -> Data {
        let count = Int(16_000 * seconds)
        var bytes = Data("RIFF".utf8)
        func word(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func half(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        word(UInt32(36 + count * 2))
        bytes.append(contentsOf: Array("WAVEfmt ".utf8))
        word(16); half(1); half(1); word(16_000); word(32_000); half(2); half(16)
        bytes.append(contentsOf: Array("data".utf8))
        word(UInt32(count * 2))
        for index in 0..<count {
            half(UInt16(bitPattern: Int16(8_000 * sin(2 * Double.pi * 300 * Double(index) / 16_000))))
        }
        return bytes
    }

    /// A carer writes a daily reminder with a recorded voice, sees it listed, and removes it:
    /// the box's calendar and the recording follow; what is not a recording, a recording too
    /// large, a change without its token and a made-up name are refused.
    @Test func aCarerWritesARemindersWithTheirVoice() async throws {
        let written = WrittenCalendar(stateFolder: folder.path)
        let sound = folder.path + "/tone.wav", garbage = folder.path + "/garbage.wav", huge = folder.path + "/huge.wav"
        try toneWAV().write(to: URL(fileURLWithPath: sound))
        try Data(repeating: 0x41, count: 4_000).write(to: URL(fileURLWithPath: garbage))
        try Data(repeating: 0, count: 11 << 20).write(to: URL(fileURLWithPath: huge))
        try await serving { base in
            _ = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            let page = try await curl([base + "/write"])
            #expect(page.status == 200 && page.body.contains("None yet") && page.body.contains("value=\"2026-11-29\""))
            let token = try #require(changeToken(in: page.body))
            func recording(_ file: String, token: String) async throws -> Answer {
                try await curl(["-H", "X-Marquee-Token: \(token)", "-H", "Content-Type: audio/wav", "--data-binary", "@" + file,
                                base + "/recording"])
            }
            #expect(try await recording(sound, token: "forged").status == 403)
            let refused = try await recording(garbage, token: token)
            #expect(refused.status == 400 && refused.body.contains("\"error\"") && refused.body.contains("cannot be played"))
            #expect(try await recording(huge, token: token).status == 413)
            let taken = try await recording(sound, token: token)
            #expect(taken.status == 200 && taken.body == "{\"seconds\":1}", "\(taken.body)")

            let fields = ["-d", "repetition=daily", "-d", "time=08:30", "-d", "day=2026-11-29", "-d", "minutes=20", "-d", "heard=on",
                          "-d", "voice=new", "--data-urlencode", "text=Pills at half past, Anna"]
            #expect(try await curl(["-d", "token=forged"] + fields + [base + "/write"]).status == 403)
            let kept = try await curl(["-d", "token=\(token)"] + fields + [base + "/write"])
            #expect(kept.status == 303 && kept.headers["location"] == "/write")
            let listed = try await curl([base + "/write"])
            #expect(listed.body.contains("The reminder is kept.") && listed.body.contains("Pills at half past, Anna")
                && listed.body.contains("Every day, 2026-11-29 08:30") && listed.body.contains("It plays your recorded voice."))
            let reminder = try #require(try written.reminders().get().first)
            let voice = try #require(reminder.recording)
            let calendar = try String(contentsOfFile: written.folder + "/" + WrittenCalendar.fileName, encoding: .utf8)
            #expect(calendar.contains("RRULE:FREQ=DAILY") && calendar.contains("DTSTART:20261129T083000")
                && calendar.contains("ATTACH:\(voice)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: written.folder + "/" + voice)) == toneWAV())

            // A name the box did not give writes nothing outside: it is a new reminder.
            let strange = try await curl(["-d", "token=\(token)", "-d", "id=../../../etc/passwd", "-d", "repetition=once",
                                          "-d", "day=2026-11-30", "-d", "time=", "-d", "text=Tea"] + [base + "/write"])
            #expect(strange.status == 303)
            #expect(try written.reminders().get().map(\.id).allSatisfy { !$0.contains("/") && $0.count == 16 })
            // Refused: the form comes back as typed, and the voice just recorded waits for it.
            #expect(try await recording(sound, token: token).status == 200)
            let wrong = try await curl(["-d", "token=\(token)", "-d", "repetition=weekly", "-d", "day=2026-11-30", "-d", "time=09:00",
                                        "-d", "voice=new", "-d", "text=Club", base + "/write"])
            #expect(wrong.status == 400 && wrong.body.contains("at least one day of the week") && wrong.body.contains("value=\"Club\""))
            #expect(wrong.body.contains("name=\"voice\" value=\"new\""))

            for id in try written.reminders().get().map(\.id) {
                #expect(try await curl(["-d", "token=\(token)", "-d", "id=\(id)", "-d", "remove=on", base + "/write"]).status == 303)
            }
            #expect(try await curl([base + "/write"]).body.contains("None yet"))
            #expect(!FileManager.default.fileExists(atPath: written.folder + "/" + WrittenCalendar.fileName))
            #expect(!FileManager.default.fileExists(atPath: written.folder + "/" + voice))
        }
        journal.fileHandleForWriting.closeFile()
        let lines = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("the page: reminder \"Pills at half past, Anna\" added by the carer from 127.0.0.1, with a recorded voice"))
        #expect(lines.contains("the page: reminder \"Tea\" removed by the carer from 127.0.0.1"))
        #expect(lines.contains("the page: a recording from 127.0.0.1 was refused"))
    }

    /// A carer uploads calendar files: a broken one is refused with its lines and replaces
    /// nothing, a good one is kept (under its own name only, whatever folders the name claims)
    /// and can be removed; a file too large, a name not a calendar's and a missing token are refused.
    @Test func aCarerUploadsCalendars() async throws {
        let uploaded = UploadedCalendars(stateFolder: folder.path)
        let good = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:tea\r\nDTSTART:20261130T150000\r\n"
            + "DURATION:PT1H\r\nSUMMARY:Tea with Anna\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let truncated = String(good.prefix(good.count - 32))
        try good.write(toFile: folder.path + "/good.ics", atomically: true, encoding: .utf8)
        try truncated.write(toFile: folder.path + "/truncated.ics", atomically: true, encoding: .utf8)
        try Data(repeating: 0x41, count: 6 << 20).write(to: URL(fileURLWithPath: folder.path + "/huge.ics"))
        try await serving { base in
            _ = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            let token = try #require(changeToken(in: try await curl([base + "/"]).body))
            // The schedule reads an upload on libical's one actor, which other tests in this
            // process may hold for minutes: curl waits as long.
            func send(_ file: String, as name: String, token: String) async throws -> Answer {
                try await curl(["--max-time", "600", "-H", "X-Marquee-Token: \(token)", "--data-binary", "@" + folder.path + "/" + file,
                                base + "/calendars/upload?name=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")])
            }
            #expect(try await send("good.ics", as: "family.ics", token: "forged").status == 403)
            #expect(try await send("huge.ics", as: "family.ics", token: token).status == 413)
            let notCalendar = try await send("good.ics", as: "family.txt", token: token)
            #expect(notCalendar.status == 400 && notCalendar.body.contains("ends in .ics"))
            let kept = try await send("good.ics", as: "../../family.ics", token: token)
            #expect(kept.status == 200 && kept.body == "{\"events\":1}", "\(kept.body)")
            #expect(try String(contentsOfFile: uploaded.folder + "/family.ics", encoding: .utf8) == good)
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/../family.ics"))
            let broken = try await send("truncated.ics", as: "family.ics", token: token)
            #expect(broken.status == 400 && broken.body.contains("family.ics:1: error: the file is truncated"), "\(broken.body)")
            #expect(try String(contentsOfFile: uploaded.folder + "/family.ics", encoding: .utf8) == good, "the good one stays")
            let page = try await curl([base + "/calendars"])
            #expect(page.body.contains("The calendar is read and kept.") && page.body.contains("id=\"calendarfile\""))
            let removed = try await curl(["-d", "token=\(token)", "-d", "name=family.ics", base + "/calendars/remove"])
            #expect(removed.status == 303 && !FileManager.default.fileExists(atPath: uploaded.folder + "/family.ics"))
        }
        journal.fileHandleForWriting.closeFile()
        let lines = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("the page: calendar \"family.ics\" (1 event(s)) uploaded by the carer from 127.0.0.1"))
        #expect(lines.contains("the page: calendar \"family.ics\" from 127.0.0.1 was refused: family.ics:1: error"))
        #expect(lines.contains("the page: calendar \"family.ics\" removed by the carer from 127.0.0.1"))
    }

    /// A carer changes settings: the configuration keeps its comments and other lines, a
    /// setting is changed where it stands and a new one added; the display is told to reload;
    /// a value the display cannot use is refused with the file's line and nothing is written.
    @Test func aCarerChangesTheSettings() async throws {
        let path = folder.path + "/marquee.toml"
        let original = "# The box in Anna's kitchen.\nfeeds = \"/etc/marquee/feeds.d\"\n\n# Louder by day.\nvolume_day = 80\nmorning = \"07:00\"\n"
        try original.write(toFile: path, atomically: true, encoding: .utf8)
        try await serving { base in
            _ = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            let page = try await curl([base + "/settings"])
            #expect(page.status == 200 && page.body.contains("id=\"volume_day\" name=\"volume_day\" type=\"number\" min=\"0\" max=\"100\" value=\"80\""))
            #expect(page.body.contains("id=\"morning\" name=\"morning\" value=\"07:00\""))
            let token = try #require(changeToken(in: page.body))
            #expect(try await curl(["-d", "token=forged", "-d", "volume_day=50", base + "/settings"]).status == 403)
            _ = mailbox.take()

            let refused = try await curl(["-d", "token=\(token)", "-d", "volume_day=150", "-d", "morning=07:00", base + "/settings"])
            #expect(refused.status == 400 && refused.body.contains("marquee.toml:5: `volume_day`"), "\(refused.body)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == original, "nothing written")
            #expect(mailbox.take().isEmpty)

            // Only what is sent changes: `morning` is not sent, and stays.
            let kept = try await curl(["-d", "token=\(token)", "-d", "volume_day=50", "-d", "night=21:30", "-d", "speak=",
                                       base + "/settings"])
            #expect(kept.status == 303)
            #expect(try String(contentsOfFile: path, encoding: .utf8)
                == "# The box in Anna's kitchen.\nfeeds = \"/etc/marquee/feeds.d\"\n\n# Louder by day.\nvolume_day = 50\nmorning = \"07:00\"\nnight = \"21:30\"\n")
            #expect(mailbox.take().map { "\($0)" } == ["control(Daemon.ControlRequest.Kind.reload)"])
            #expect(try await curl([base + "/settings"]).body.contains("The settings are kept and in use."))

            // Chosen from lists: a yes or no is written as TOML's true or false; the television's
            // adapter says it takes a restart.
            let television = try await curl(["-d", "token=\(token)", "-d", "cec_standby=true", "-d", "cec=off", base + "/settings"])
            #expect(television.status == 303)
            let file = try String(contentsOfFile: path, encoding: .utf8)
            #expect(file.hasSuffix("night = \"21:30\"\ncec = \"off\"\ncec_standby = true\n"), "\(file)")
            let shown = try await curl([base + "/settings"]).body
            #expect(shown.contains("<option value=\"true\" selected>yes</option>") && shown.contains("<option value=\"off\" selected>off</option>"))
            #expect(shown.contains("default: auto). Takes effect when the box restarts."), "\(shown)")

            let test = try await curl(["-d", "token=\(token)", "-d", "action=test", base + "/act"])
            #expect(test.status == 303 && test.headers["location"] == "/settings")
            let said = try String(contentsOfFile: folder.path + "/said/said-now.ics", encoding: .utf8)
            #expect(said.contains("SUMMARY:This is a test reminder. Is it loud enough?") && said.contains("X-MARQUEE-SPEAK:YES"))
        }
        journal.fileHandleForWriting.closeFile()
        let lines = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("the page: settings changed (night, volume_day) by the carer from 127.0.0.1"))
        #expect(lines.contains("the page: a test reminder by the carer from 127.0.0.1"))
    }

    @Test func aCarerSubscribesToACalendarAndRemovesIt() async throws {
        let path = folder.path + "/marquee.toml"
        let secret = "https://calendar.example/calendar/ical/anna/private-9f2Kq7Zx3Lm/basic.ics"
        let shown = SubscriptionAddress.redacted(secret)
        try "subscriptions = [\"webcal://family.example/cal.ics\"]\nvolume_day = 70\n".write(toFile: path, atomically: true, encoding: .utf8)
        state.update { $0.subscriptions = [SubscriptionStatus(address: shown, events: 3)] }
        try await serving { base in
            _ = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            let page = try await curl([base + "/calendars"])
            #expect(page.body.contains("id=\"subscribeform\"") && page.body.contains("value=\"\(shown)\""))
            let token = try #require(changeToken(in: page.body))
            #expect(try await curl(["-d", "token=forged", "--data-urlencode", "address=\(secret)", base + "/calendars/subscribe"]).status
                == 403)
            _ = mailbox.take()

            let refused = try await curl(["-d", "token=\(token)", "--data-urlencode", "address=htps://calendar.example/x.ics",
                                          base + "/calendars/subscribe"])
            #expect(refused.status == 303)
            #expect(try await curl([base + "/calendars"]).body.contains("not a calendar address the box can fetch"))
            #expect(mailbox.take().isEmpty)

            let added = try await curl(["-d", "token=\(token)", "--data-urlencode", "address= \(secret) ", base + "/calendars/subscribe"])
            #expect(added.status == 303 && added.headers["location"] == "/calendars")
            #expect(try String(contentsOfFile: path, encoding: .utf8)
                == "subscriptions = [\"webcal://family.example/cal.ics\", \"\(secret)\"]\nvolume_day = 70\n")
            #expect(mailbox.take().map { "\($0)" } == ["control(Daemon.ControlRequest.Kind.reload)"])
            let after = try await curl([base + "/calendars"])
            #expect(after.body.contains("The subscription is kept; its calendar is fetched now."))
            #expect(!after.body.contains("private-9f2Kq7Zx3Lm"), "the address is never shown back")
            let again = try await curl(["-d", "token=\(token)", "--data-urlencode", "address=\(secret)", base + "/calendars/subscribe"])
            #expect(again.status == 303)
            #expect(try await curl([base + "/calendars"]).body.contains("already subscribes"))

            // Removed by the address as the page shows it: the secret is never sent back.
            #expect(try await curl(["-d", "token=\(token)", "--data-urlencode", "address=\(shown)", base + "/calendars/unsubscribe"])
                .status == 303)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "subscriptions = [\"webcal://family.example/cal.ics\"]\nvolume_day = 70\n")
            #expect(try await curl([base + "/calendars"]).body.contains("The subscription is removed."))
            _ = try await curl(["-d", "token=\(token)", "--data-urlencode", "address=webcal://family.example/cal.ics",
                                base + "/calendars/unsubscribe"])
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "volume_day = 70\n", "the last one takes the key away")
        }
        journal.fileHandleForWriting.closeFile()
        let lines = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("the page: subscription \(shown) added by the carer from 127.0.0.1"))
        #expect(lines.contains("the page: subscription \(shown) removed by the carer from 127.0.0.1"))
        #expect(!lines.contains("private-9f2Kq7Zx3Lm"), "the journal never holds the address")
    }

    @Test func theBoxMakesItsOwnCertificateOnceAndServesOverIt() async throws {
        let folder = folder.path + "/page-tls"
        let made = try PageCertificate.load(.own(folder: folder), hostName: "kitchen")
        let certificate = folder + "/" + PageCertificate.certificateName
        let key = folder + "/" + PageCertificate.keyName
        var info = stat()
        #expect(stat(key, &info) == 0 && info.st_mode & 0o077 == 0, "the key is the service's alone")
        // Its fingerprint as openssl says it, the names a browser checks, and kept: a second start uses it again.
        let said = String(decoding: try Spawned.run("/usr/bin/openssl", [
            "x509", "-in", certificate, "-noout", "-fingerprint", "-sha256", "-ext", "subjectAltName"]).output, as: UTF8.self)
        #expect(said.contains("=" + made.fingerprint + "\n") && made.fingerprint.count == 95, "\(said)")
        #expect(said.contains("DNS:kitchen, DNS:kitchen.local, DNS:localhost, IP Address:127.0.0.1"), "\(said)")
        #expect(try PageCertificate.load(.own(folder: folder), hostName: "kitchen").fingerprint == made.fingerprint)
        try await serving(certificate: made) { base in
            #expect(base.hasPrefix("https://"))
            // A client that trusts the box's certificate (as a carer who compared the fingerprint) is served; one that does not, is not.
            #expect(try await curl(["--cacert", certificate, base + "/"]).status == 200)
            #expect(try await curl([base + "/"]).status == 0)
            // Asked in plain HTTP on the same port (a carer typed http://): sent to HTTPS, nothing served.
            let plain = try await curl(["-H", "Host: kitchen.local:8080", base.replacing("https://", with: "http://") + "/reminders"])
            #expect(plain.status == 301 && plain.headers["location"] == "https://kitchen.local:8080/" && plain.body.isEmpty, "\(plain)")
            #expect(PlainHTTPRedirect.host(in: "GET / HTTP/1.1\r\nHost: <script>\r\n\r\n") == nil)
            #expect(PlainHTTPRedirect.host(in: "GET / HTTP/1.1\r\nhost:\t[fd00::5]:8080\r\n\r\n") == "[fd00::5]:8080")
            let signedIn = try await curl(["--cacert", certificate, "--data-urlencode", "password=a carer's secret", base + "/login"])
            #expect(signedIn.headers["set-cookie"]?.contains("; Secure") == true, "\(signedIn.headers)")
        }
    }

    @Test func aCertificateThatCannotBeUsedIsSaidWithItsFile() throws {
        try "not a certificate".write(toFile: folder.path + "/given.crt", atomically: true, encoding: .utf8)
        #expect(throws: PageCertificate.Problem.self) {
            try PageCertificate.load(.given(certificate: folder.path + "/given.crt", key: folder.path + "/given.key"), hostName: "box")
        }
        do {
            _ = try PageCertificate.load(.given(certificate: folder.path + "/given.crt", key: folder.path + "/given.key"), hostName: "box")
        } catch {
            #expect(error.description.hasPrefix(folder.path + "/given.crt: not a certificate in PEM form"), "\(error)")
        }
        // The box's own, where its folder cannot be made: said, with the folder.
        try "a file".write(toFile: folder.path + "/blocked", atomically: true, encoding: .utf8)
        do {
            _ = try PageCertificate.load(.own(folder: folder.path + "/blocked/page-tls"), hostName: "box")
            Issue.record("made in a folder that cannot be")
        } catch {
            #expect(error.description.hasPrefix(folder.path + "/blocked/page-tls: cannot be made"), "\(error)")
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse("web_certificate = \"/etc/ssl/box.crt\"\n", path: "m.toml") }
    }

    @Test func wrongPasswordsLockTheAddressOut() async throws {
        try await serving { base in
            for _ in 1..<LoginThrottle.freeTries {
                #expect(try await curl(["--data", "password=nope", base + "/login"]).status == 401)
            }
            let locked = try await curl(["--data", "password=nope", base + "/login"])
            // The time it names is on the test's clock, which runs forty times faster than the wall.
            #expect(locked.status == 429 && locked.body.contains("Try again at "))
            let right = try await curl(["--data-urlencode", "password=a carer's secret", base + "/login"])
            #expect(right.status == 429 && right.headers["set-cookie"] == nil, "locked out even with the right password")
        }
    }
}
