import Foundation
import LoopbackServers
import Support
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport
import Testing

/// The carer's page as a carer meets it, in one browser at a time (three chromiums and their
/// boxes at once on two cores are what was measured, not the page): `marquee web-password`, then `marquee run` in a real
/// terminal (tmux), then Debian's chromium (Selenium, `Fixtures/page_browser.py`) at a phone's
/// size and a computer's: a wrong password, the sign-in, "Now" with the picture of the glass, a
/// message sent now reaching the page without a reload, a pause from the page, the reminders.
/// The screenshots are kept in `MARQUEE_PAGE_SHOTS` when it is set, to be looked at.
/// `marquee run` with the carer's page, in tmux: a state folder with the page's password, the
/// examples' feeds, the page on `host` (a free port), the socket.
struct PageBox {
    static let password = "Anna's carer 2026"
    let folder: TemporaryFolder
    let tmux = Tmux()
    let port: Int
    /// The terminal's width: narrower than the examples' messages, the text moves.
    let columns: Int
    var socket: String { folder.path + "/marquee.sock" }
    var configuration: String { folder.path + "/marquee.toml" }
    var journal: String { (try? String(contentsOfFile: folder.path + "/journal", encoding: .utf8)) ?? "" }

    /// Where what the box plays is kept (ALSA's file PCM).
    var played: String { folder.path + "/played.wav" }
    /// `marquee run`'s clock starts here (nil: the system's).
    let startsAt: String?

    /// - Parameter settings: more lines of the configuration file.
    init(host: String = "127.0.0.1", columns: Int = 100, startsAt: String? = nil, settings: String = "") throws {
        self.columns = columns
        self.startsAt = startsAt
        folder = try TemporaryFolder()
        let state = folder.path + "/state"
        #expect(mkdir(state, 0o750) == 0)
        port = try Self.freePort()
        try """
            feeds = "\(CommandLineTests.examples)"
            state_dir = "\(state)"
            socket = "\(folder.path)/marquee.sock"
            web_listen = "\(host):\(port)"
            sound_device = "file:FILE=\(folder.path)/played.wav,FORMAT=wav"
            \(settings)
            """.write(toFile: folder.path + "/marquee.toml", atomically: true, encoding: .utf8)
    }

    /// Sets the password as a carer does: `marquee web-password`, from standard input.
    func setPassword(_ password: String = PageBox.password) throws -> CommandLineTests.Run {
        try CommandLineTests.run("/bin/sh", ["-c", "printf '%s\\n' \"$1\" | \(CommandLineTests.binary) web-password --config \(configuration)",
                                             "sh", password])
    }

    /// Starts the display; returns once the status says where the page is served.
    func start() throws {
        try tmux("new-session", "-d", "-s", "t", "-x", String(columns), "-y", "30",
                 "TZ=Europe/Berlin \(CommandLineTests.binary) run --config \(configuration)"
                    + (startsAt.map { " --at \($0)" } ?? "") + " 2>\(folder.path)/journal; sleep 60")
        #expect(try waitUntil(within: .seconds(60)) {
            try CommandLineTests.marquee("status", "--socket", socket).output.contains("page: https://")
        })
    }

    /// Ends the display and waits until it is gone: it writes its state folder as it ends, and
    /// a folder written into while it is removed after the test stays behind.
    func stop() {
        let found = try? CommandLineTests.run("/usr/bin/pgrep", ["-f", "--", "run --config \(configuration)"])
        let daemons = (found?.output ?? "").split(separator: "\n").compactMap { pid_t($0) }
        _ = try? tmux("kill-server")
        for daemon in daemons where !waitUntil(within: .seconds(10), { processHasEnded(daemon) }) {
            kill(daemon, SIGTERM)
            _ = waitUntil(within: .seconds(10)) { processHasEnded(daemon) }
        }
    }

    /// Runs `work` (a browser, a flood: seconds of waiting) on a thread of its own, not one of
    /// the few that the other tests' tasks share.
    static func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        guard let result = await onThread(named: "page-test", { Result { try work() } }) else { throw POSIXError(.EAGAIN) }
        return try result.get()
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: 0),
                                  sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

@Suite(.serialized, .tier(.live, needs: [
    .program("/usr/bin/tmux"), .program("/usr/bin/chromium"), .program("/usr/bin/chromedriver"), .program("/usr/bin/python3"),
]))
struct CarerPageBrowserTests {
    @Test func aCarerUsesThePageFromAPhone() async throws {
        // A family calendar at a private address (a token in its path), which the carer
        // subscribes to on the page.
        let server = try LoopbackWebServer()
        try server.serve("family-Xk29fQz81.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//family//EN\r\nBEGIN:VEVENT\r\n"
            + "UID:lunch@family\r\nDTSTAMP:20261101T000000Z\r\nDTSTART;VALUE=DATE:20261101\r\nRRULE:FREQ=DAILY\r\n"
            + "SUMMARY:Lunch with the family\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        // A Monday morning, whatever the time here: no reminder of the examples' comes before
        // the message sent now.
        let box = try PageBox(startsAt: "2026-11-30T10:00:00", settings: "subscription_ca_file = \"\(server.certificateAuthorities)\"")
        let short = try box.setPassword("short")
        #expect(short.status == 1 && short.errors.contains("at least 8 characters"), "\(short.errors)")
        let set = try box.setPassword()
        #expect(set.status == 0 && set.output.contains("The password is set"), "\(set.errors)")
        let kept = try String(contentsOfFile: box.folder.path + "/state/page-password", encoding: .utf8)
        #expect(kept.hasPrefix("$argon2id$") && !kept.contains("Anna"))
        try box.start()
        defer { box.stop() }
        let (port, socket, binary) = (box.port, box.socket, CommandLineTests.binary)
        let address = server.url("family-Xk29fQz81.ics", scheme: "webcal")
        let shots = ProcessInfo.processInfo.environment["MARQUEE_PAGE_SHOTS"] ?? box.folder.path
        let script = CommandLineTests.root.appendingPathComponent("Tests/EndToEndTests/Fixtures/page_browser.py").path
        let browser = try await PageBox.offThePool {
            try CommandLineTests.run("/usr/bin/python3", [script, "https://127.0.0.1:\(port)", PageBox.password, shots, binary, socket,
                                                          address])
        }
        #expect(browser.status == 0, "\(browser.errors.suffix(2000))")
        let line = try #require(browser.output.split(separator: "\n").last, "\(browser.errors.suffix(2000))")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("the carer's page in chromium:", line)
        #expect(seen["wrongPassword"] as? String == "That password is not right.")
        let cookies = try #require(seen["cookies"] as? [[String: Any]])
        #expect(cookies.count == 1 && cookies[0]["httpOnly"] as? Bool == true && cookies[0]["sameSite"] as? String == "Strict"
            && cookies[0]["secure"] as? Bool == true)
        // Over HTTPS with the box's own certificate, whose fingerprint the status says.
        let statusPage = seen["statusPage"] as? [String: Any]
        #expect(statusPage?["scheme"] as? String == "https")
        #expect((seen["servedFingerprint"] as? String)?.count == 95 && statusPage?["certificate"] as? String == seen["servedFingerprint"] as? String,
                "\(seen["servedFingerprint"] ?? "") \(statusPage ?? [:])")
        #expect(seen["secureContext"] as? Bool == true, "MediaRecorder may be used")
        #expect(seen["documentCookie"] as? String == "", "the session is out of the page's scripts' reach")
        #expect((seen["pictureWidth"] as? Int ?? 0) > 0)
        // The page follows the box: on a quiet machine the text in 0.2 s and the picture of the
        // glass in 0.7 s (the page looks four times a second; the glass draws the message
        // first); the bound leaves room for a whole test run's other tests on two cores (the
        // picture took 4.9 s there once, with three browsers at once).
        #expect((seen["textFollowedSeconds"] as? Double ?? 99) < 5)
        #expect((seen["pictureFollowedSeconds"] as? Double ?? 99) < 5)
        #expect((seen["showing"] as? [String])?.first == "Anna is coming at 3")
        #expect(seen["showing"] as? [String] == seen["statusShowing"] as? [String])
        #expect(seen["statusPaused"] as? Bool == true && seen["notice"] as? String == "Done.")
        #expect((seen["states"] as? [String])?.contains("The text is paused.") == true)
        #expect(seen["phoneWidth"] as? Int == 360 && seen["horizontalScroll"] as? Bool == false)
        #expect((seen["smallestTarget"] as? Int ?? 0) >= 44, "targets a finger can hit")
        #expect(seen["remindersHeading"] as? String == "Reminders")
        let calendars = seen["calendars"] as? String ?? ""
        #expect(calendars.contains("examples/feeds/birthdays.ics") && calendars.contains("read, 3 events"), "\(calendars)")
        #expect(seen["calendarsHorizontalScroll"] as? Bool == false)
        #expect((seen["uploadRefused"] as? String)?.contains("broken.ics:1: error: the file is truncated") == true, "\(seen)")
        // Subscribed from the page: fetched at once, shown in the box's status, the address
        // never shown back in full; then removed.
        let subscribed = seen["subscribed"] as? String ?? ""
        #expect(subscribed.contains("webcal://127.0.0.1:") && subscribed.contains("1 event"), "\(subscribed)")
        #expect(seen["subscribedNotice"] as? String == "The subscription is kept; its calendar is fetched now.")
        #expect(seen["statusSubscriptions"] as? Int == 1 && (seen["statusShowsLunch"] as? Bool) == true, "\(seen)")
        #expect(seen["pageHoldsToken"] as? Bool == false, "the address is never shown back")
        #expect(seen["unsubscribed"] as? String == "No subscriptions.")
        #expect(seen["statusSubscriptionsAfter"] as? Int == 0 && seen["statusShowsLunchAfter"] as? Bool == false)
        #expect((seen["boxVersion"] as? String)?.hasPrefix("marquee 0.") == true && (seen["boxParts"] as? Int ?? 0) > 5)
        #expect(seen["boxHorizontalScroll"] as? Bool == false)
        #expect((seen["pictureAfterSignOut"] as? String)?.contains("401") == true)
        #expect(seen["wideWidth"] as? Int == 1280)
        for shot in ["page-now-360.png", "page-reminders-360.png", "page-calendars-360.png", "page-subscriptions-360.png", "page-box-360.png", "page-now-1280.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: shots + "/" + shot)[.size] as? Int) ?? 0
            #expect(size > 5_000, "\(shot): \(size) bytes")
        }
        let journal = box.journal
        #expect(journal.contains("the page: a wrong password from 127.0.0.1"))
        #expect(journal.contains("the page: pause by the carer from 127.0.0.1"))
        #expect(!journal.contains("Anna's carer 2026"), "the password is never said")
        #expect(journal.contains("the page: subscription webcal://127.0.0.1:\(server.port)/…"), "\(journal)")
        #expect(journal.contains("fetched a new version of the calendar"), "\(journal)")
        #expect(!journal.contains("Xk29fQz81"), "the private address is never said")
    }
}

/// A carer writes a daily reminder on the page in chromium and records it in their own voice
/// (Chromium's fake microphone: a 300 Hz tone into MediaRecorder); at its minute the box plays
/// the chime and then that recording (ALSA's file PCM, looked into).
extension CarerPageBrowserTests {
    /// The longest run of 50 ms windows whose zero crossings say a tone of `hertz` (±5 %), in seconds.
    static func longestTone(of hertz: Double, in path: String) throws -> Double {
        let clip = try readWAV(path)
        let window = clip.sampleRate / 20
        var longest = 0, run = 0
        for start in stride(from: 0, to: clip.samples.count - window, by: window) {
            let part = clip.samples[start..<start + window]
            let crossings = zip(part, part.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
            let loud = part.map { abs(Int($0)) }.max() ?? 0 > 1_000
            let tone = Double(crossings) * 10
            run = loud && abs(tone - hertz) <= hertz * 0.05 ? run + 1 : 0
            longest = max(longest, run)
        }
        return Double(longest) / 20
    }

    @Test func aReminderWrittenInTheCarersVoiceIsHeardAtItsMinute() async throws {
        // Monday 30 November 2026, half a minute before nine in Berlin.
        let box = try PageBox(startsAt: "2026-11-30T08:59:30")
        #expect(try box.setPassword().status == 0)
        try box.start()
        defer { box.stop() }
        let port = box.port
        let shots = ProcessInfo.processInfo.environment["MARQUEE_PAGE_SHOTS"] ?? box.folder.path
        let script = CommandLineTests.root.appendingPathComponent("Tests/EndToEndTests/Fixtures/page_write.py").path
        let out = box.folder.path
        let browser = try await PageBox.offThePool {
            try CommandLineTests.run("/usr/bin/python3", [script, "https://127.0.0.1:\(port)", PageBox.password, out, "2026-11-30", "09:00"])
        }
        if shots != out {
            for shot in ["page-write-360.png", "page-written-360.png"] { _ = try? FileManager.default.copyItem(atPath: out + "/" + shot, toPath: shots + "/" + shot) }
        }
        #expect(browser.status == 0, "\(browser.errors.suffix(2000))")
        let line = try #require(browser.output.split(separator: "\n").last, "\(browser.errors.suffix(2000))")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("writing a reminder on the page in chromium:", line)
        #expect(seen["emptyList"] as? Bool == true && seen["recorderOffered"] as? Bool == true)
        #expect((2.0...3.5).contains(seen["recordedSeconds"] as? Double ?? 0), "\(seen)")
        #expect(seen["notice"] as? String == "The reminder is kept.")
        #expect((seen["listed"] as? String)?.contains("Pills now, Anna: listen to me") == true)
        #expect((seen["listed"] as? String)?.contains("It plays your recorded voice.") == true)
        #expect(seen["horizontalScroll"] as? Bool == false && (seen["smallestTarget"] as? Double ?? 0) >= 44)

        // At nine (on the box's clock, begun at 08:59:30): the chime, then the carer's voice.
        let played = box.played
        #expect(try await PageBox.offThePool {
            waitUntil(within: .seconds(90)) { (try? Self.longestTone(of: 300, in: played)) ?? 0 >= 1.5 }
        }, "the recording was not heard: \(box.journal.suffix(1500))")
        print("the carer's recorded voice, heard: \(try Self.longestTone(of: 300, in: played)) s of its 300 Hz tone")
        #expect(box.journal.contains("the page: reminder \"Pills now, Anna: listen to me\" added by the carer from 127.0.0.1, with a recorded voice"))
    }
}

/// A carer turns the day's volume down on the page in chromium and hears the test reminder
/// quieter: the settings are written into the box's configuration file and applied at once.
extension CarerPageBrowserTests {
    @Test func theVolumeChangedOnThePageIsHeard() async throws {
        // Monday 30 November 2026, ten in the morning in Berlin: the day's volume.
        let box = try PageBox(startsAt: "2026-11-30T10:00:00")
        #expect(try box.setPassword().status == 0)
        try box.start()
        defer { box.stop() }
        let (port, out, played) = (box.port, box.folder.path, box.played)
        let shots = ProcessInfo.processInfo.environment["MARQUEE_PAGE_SHOTS"] ?? out
        let script = CommandLineTests.root.appendingPathComponent("Tests/EndToEndTests/Fixtures/page_volume.py").path
        let browser = try await PageBox.offThePool {
            try CommandLineTests.run("/usr/bin/python3", [script, "https://127.0.0.1:\(port)", PageBox.password, out, played])
        }
        if shots != out { _ = try? FileManager.default.copyItem(atPath: out + "/page-settings-360.png", toPath: shots + "/page-settings-360.png") }
        #expect(browser.status == 0, "\(browser.errors.suffix(2000))")
        let line = try #require(browser.output.split(separator: "\n").last, "\(browser.errors.suffix(2000))")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("the volume changed on the page in chromium:", line)
        #expect(seen["notice100"] as? String == "The settings are kept and in use.")
        let (loud, quiet) = (seen["rms100"] as? Double ?? 0, seen["rms30"] as? Double ?? 0)
        // The gain is the square of the fraction: 30 is 0.09 of 100's, about 21 dB quieter.
        #expect(loud > 500 && quiet > 0 && quiet < loud * 0.15, "\(loud) then \(quiet)")
        #expect(seen["horizontalScroll"] as? Bool == false)
        let written = try String(contentsOfFile: box.configuration, encoding: .utf8)
        #expect(written.contains("\nvolume_day = 30\n") && written.contains("web_listen = "), "\(written)")
        #expect(box.journal.contains("the page: settings changed (volume_day) by the carer from 127.0.0.1"))
    }
}

/// Who may reach the page: a peer with a public address (from a network namespace of the
/// test's own, 203.0.113.0/24) is refused before anything is read; the home network is
/// answered. And what the page costs: the daemon's memory with the page idle and with five
/// carers following it.
@Suite(.serialized, .tier(.live, needs: [.root, .program("/usr/bin/tmux"), .program("/usr/bin/curl"), .program("/usr/sbin/ip")]))
struct CarerPageNetworkTests {
    @discardableResult
    private func ip(_ arguments: String...) throws -> CommandLineTests.Run { try CommandLineTests.run("/usr/sbin/ip", arguments) }

    /// The resident memory of the box's `marquee run`, in MB.
    private func residentMB(of box: PageBox) throws -> Double {
        // The program itself, not the shell tmux started it from.
        let found = try CommandLineTests.run("/usr/bin/pgrep", ["-f", "^\(CommandLineTests.binary) run --config \(box.configuration)"])
        let pid = try #require(found.output.split(separator: "\n").first, "no marquee run for \(box.configuration)")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test func aPublicAddressIsRefusedAndCarersCostLittle() async throws {
        let box = try PageBox(host: "0.0.0.0")
        #expect(try box.setPassword().status == 0)
        try box.start()
        defer { box.stop() }
        let namespace = "marquee-public-\(box.port)", outside = "mqo\(box.port % 10_000)", inside = "mqi\(box.port % 10_000)"
        try ip("netns", "add", namespace)
        defer {
            _ = try? ip("netns", "del", namespace)
            _ = try? ip("link", "del", outside)
        }
        for step in [["link", "add", outside, "type", "veth", "peer", "name", inside], ["link", "set", inside, "netns", namespace],
                     ["addr", "add", "203.0.113.1/24", "dev", outside], ["link", "set", outside, "up"],
                     ["netns", "exec", namespace, "ip", "addr", "add", "203.0.113.2/24", "dev", inside],
                     ["netns", "exec", namespace, "ip", "link", "set", inside, "up"]] {
            let run = try CommandLineTests.run("/usr/sbin/ip", step)
            #expect(run.status == 0, "ip \(step.joined(separator: " ")): \(run.errors)")
        }
        let refused = try CommandLineTests.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/curl", "-s", "-m", "10",
                                                                "-k", "-w", "\n%{http_code}", "https://203.0.113.1:\(box.port)/"])
        #expect(refused.output.hasSuffix("\n403") && refused.output.contains("home network only"), "\(refused.output) \(refused.errors)")
        let signIn = try CommandLineTests.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/curl", "-s", "-m", "10", "-o",
                                                               "/dev/null", "-w", "%{http_code}", "--data", "password=x",
                                                               "-k", "https://203.0.113.1:\(box.port)/login"])
        #expect(signIn.output == "403", "no password is even tried from outside")
        let home = try CommandLineTests.run("/usr/bin/curl", ["-s", "-k", "-m", "10", "-o", "/dev/null", "-w", "%{http_code}",
                                                              "https://127.0.0.1:\(box.port)/"])
        #expect(home.output == "200")

        // Five carers signed in, each following "Now" for five seconds.
        let idle = try residentMB(of: box)
        let follow = (1...5).map { carer in
            "c=\(box.folder.path)/carer\(carer); curl -s -k -c $c -b $c -o /dev/null --data-urlencode "
                + "\"password=\(PageBox.password)\" https://127.0.0.1:\(box.port)/login && "
                + "curl -s -k -N -m 5 -b $c https://127.0.0.1:\(box.port)/events > \(box.folder.path)/events\(carer)"
        }.map { "( \($0) ) &" }.joined(separator: " ")
        let watching = try await PageBox.offThePool {
            try CommandLineTests.run("/bin/sh", ["-c", follow + " sleep 3; ss -Htn state established '( sport = :\(box.port) )' | wc -l; wait"])
        }
        let busy = try residentMB(of: box)
        print("the carer's page: the daemon's memory \(idle) MB with the page idle, \(busy) MB with 5 carers following it")
        #expect(Int(watching.output.split(separator: "\n").first ?? "") == 5, "\(watching.output)")
        for carer in 1...5 {
            let events = (try? String(contentsOfFile: box.folder.path + "/events\(carer)", encoding: .utf8)) ?? ""
            #expect(events.hasPrefix("event: now\ndata: {"), "carer \(carer): \(events.prefix(200))")
        }
        #expect(busy < idle + 30, "five carers cost \(busy - idle) MB")
        #expect(!box.journal.contains(PageBox.password))
    }

    /// The frames' lateness as the status says it now (milliseconds: p50, p99, max).
    private func lateness(_ box: PageBox) throws -> [String: Double] {
        let run = try CommandLineTests.marquee("status", "--json", "--socket", box.socket)
        let status = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        return (status?["frameLateness"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Double }
    }

    /// Forty slow clients holding connections open, 500 connections at once, a 100 MB form: a
    /// carer is still answered, every one of the 500 is, the form is refused unread, and the
    /// display's frames keep their deadlines throughout (the page has threads of its own).
    @Test func hostileClientsLeaveTheDisplayAlone() async throws {
        // 30 columns at ten on a Monday morning: "Good morning! Breakfast is at 8." is wider, so
        // the text moves and frames are drawn (at the system's time of day the examples may
        // show only what fits, and nothing moves).
        let box = try PageBox(columns: 30, startsAt: "2026-11-30T10:00:00")
        #expect(try box.setPassword().status == 0)
        try box.start()
        defer { box.stop() }
        // The text moves: frames have been drawn, with their lateness, before the clients come.
        #expect(try waitUntil { try lateness(box)["p99"] != nil })
        let before = try lateness(box)
        let idle = try residentMB(of: box)
        let script = CommandLineTests.root.appendingPathComponent("Tests/EndToEndTests/Fixtures/page_flood.py").path
        let flood = try await PageBox.offThePool { try CommandLineTests.run("/usr/bin/python3", [script, "127.0.0.1", String(box.port)]) }
        let line = try #require(flood.output.split(separator: "\n").last, "\(flood.errors.suffix(2000))")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let after = try lateness(box)
        let busy = try residentMB(of: box)
        print("the carer's page under hostile clients:", line, "frame lateness before \(before), after \(after);",
              "memory \(idle) MB before, \(busy) MB after")
        #expect(seen["slowOpened"] as? Int == 40)
        #expect(seen["answeredDuringSlowloris"] as? Int == 200)
        #expect(seen["floodAnswered"] as? Int == 500, "\(seen["floodCodes"] ?? "")")
        #expect(seen["hugeForm"] as? Int == 413)
        #expect((seen["hugeFormSeconds"] as? Double ?? 99) < 10)
        #expect(seen["afterwards"] as? Int == 200)
        // The frames of the flood's seconds: most on time, none late by more than a few frames
        // of a terminal's (the python clients and the server share two cores with the loop).
        #expect((after["p50"] ?? 999) < 10 && (after["max"] ?? 999) < 200, "frames late by \(after) after the flood (before: \(before))")
        #expect(busy < idle + 100, "the flood left \(busy - idle) MB behind")
    }
}
