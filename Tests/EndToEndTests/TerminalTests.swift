import Foundation
import LoopbackServers
import TestSupport
import Testing

/// `marquee run` in a real terminal emulator (tmux): what is on screen, how far it moves,
/// resizing, and the terminal given back on exit. What the screen should come to show is
/// waited for; a fixed while of real time only where motion is measured or where nothing
/// should change.
@Suite(.serialized, .tags(.live), .tier(.live, needs: [.root, .program("/usr/bin/tmux"), .program("/usr/sbin/nginx")]))
struct TerminalTests {
    let tmux = Tmux()

    func start(
        term: String = "tmux-256color", width: Int = 80, at: String? = "2026-11-22 19:10", speed: Int = 10,
        feeds: String = CommandLineTests.examples, socket: String? = nil, environment: String = "", extra: String = "",
        shows: ([String]) -> Bool = { $0.count > 12 && !$0[12].trimmingCharacters(in: .whitespaces).isEmpty }
    ) throws {
        let binary = CommandLineTests.root.appendingPathComponent(".build/debug/marquee").path
        let command = "\(environment) TERM=\(term) TZ=Europe/Berlin \(binary) run --feeds \(feeds) "
            + (at.map { "--at '\($0)' " } ?? "") + (socket.map { "--socket \($0) " } ?? "") + "\(extra) --speed \(speed); sleep 60"
        try tmux("new-session", "-d", "-s", "t", "-x", String(width), "-y", "24", command)
        // What it shows first: the band of its first frame, unless told.
        #expect(try waitUntil { shows(try screen()) })
    }

    func screen() throws -> [String] {
        try tmux("capture-pane", "-t", "t", "-p").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func state() throws -> String {
        try tmux("display", "-t", "t", "-p", "alt=#{alternate_on} cursor=#{cursor_flag}")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The shift s (in cells) that turns `before` into `after`, if there is one.
    func shift(from before: String, to after: String) -> Int? {
        let old = Array(before), new = Array(after)
        return (0..<min(old.count, 60)).first { s in
            let overlap = min(old.count - s, new.count) - 1
            return overlap > 20 && (0..<overlap).allSatisfy { old[$0 + s] == new[$0] }
        }
    }

    @Test func scrollsAtItsSpeedResizesAndRestores() throws {
        try start()
        defer { _ = try? tmux("kill-server") }
        #expect(try state() == "alt=1 cursor=0")
        // The announcement box types its message.
        #expect(try waitUntil { try screen()[8].hasPrefix("        Take your evening pills") })
        let first = try screen()
        let firstTime = Date()
        // The band shows the date and the evening's two messages: where it is in them depends on
        // when the box finished typing, so any of their words will do.
        #expect(["November 2026", "Take", "pills", "blue box", "kitchen", "Good evening", "Supper"].contains { first[12].contains($0) },
                "\(first[12])")
        Thread.sleep(forTimeInterval: 2)
        let second = try screen()
        let elapsed = Date().timeIntervalSince(firstTime)
        let moved = try #require(shift(from: first[12], to: second[12]), "\(first[12]) / \(second[12])")
        #expect(abs(Double(moved) - 10 * elapsed) <= 3, "moved \(moved) cells in \(elapsed) s at 10/s")
        // Narrower window: the band moves to the new middle row and keeps scrolling.
        try tmux("resize-window", "-t", "t", "-x", "50", "-y", "16")
        #expect(try waitUntil {
            let resized = try screen()
            return resized.count > 8 && resized.count <= 17 && resized[8].count >= 40
                && resized.contains { $0.contains("evening") || $0.contains("pills") || $0.contains("•") }
        })
        try tmux("send-keys", "-t", "t", "C-c")
        #expect(try waitUntil { try state() == "alt=0 cursor=1" })
    }

    /// The Linux console has no alternate screen: the ticker clears on exit instead. SIGTERM
    /// and SIGHUP restore the terminal just like Ctrl-C.
    @Test(arguments: [SIGTERM, SIGHUP])
    func linuxConsoleTerminal(signal: Int32) throws {
        try start(term: "linux") { $0.count > 12 && $0[12].contains("evening") }
        defer { _ = try? tmux("kill-server") }
        #expect(try state() == "alt=0 cursor=0")
        let shell = try #require(Int32(try tmux("display", "-t", "t", "-p", "#{pane_pid}").trimmingCharacters(in: .whitespacesAndNewlines)))
        let marquee = try #require(Self.child(of: shell))
        kill(marquee, signal)
        #expect(try waitUntil { try state() == "alt=0 cursor=1" })
        #expect(try waitUntil { try screen().allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } })
    }

    /// Removes a folder the display in the pane used (its socket, its state), after the tmux
    /// server is stopped: the display may still be ending and remove its socket meanwhile, so
    /// removal is tried again until the folder is gone (at most 2 s).
    static func removeWhenFree(_ folder: URL) {
        for _ in 0..<40 where FileManager.default.fileExists(atPath: folder.path) {
            if (try? FileManager.default.removeItem(at: folder)) == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
    }

    /// The first child process of `parent` (the shell in the pane runs marquee).
    static func child(of parent: Int32) -> Int32? {
        let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// What fits stands still, centred, and does not move.
    @Test func stillWhenItFits() throws {
        let line = "It's night-time right now. You should be in bed."
        // (The first frame may come before the feeds are read, showing the date.)
        try start(at: "2026-11-22 03:00") { $0.count > 12 && $0[12].trimmingCharacters(in: .whitespaces) == line }
        defer { _ = try? tmux("kill-server") }
        let first = try screen()[12]
        #expect(first.trimmingCharacters(in: .whitespaces) == line)
        #expect(first.prefix(while: { $0 == " " }).count == (80 - line.count) / 2)
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try screen()[12] == first)
        try tmux("send-keys", "-t", "t", "C-c")
    }

    /// A folder of its own with one all-day event (25 November 2026) per message, in priority
    /// order; removed after `body`.
    func withMessages(_ texts: [String], _ body: (String) throws -> Void) throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.url
            let events = texts.enumerated().map { index, text in
                event("UID:\(index)@test", "DTSTART;VALUE=DATE:20261125", "PRIORITY:\(index + 1)", "SUMMARY:\(text)")
            }
            try Data(calendar(events).utf8).write(to: folder.appendingPathComponent("scripts.ics"))
            try body(folder.path)
        }
    }

    /// Every script and emoji scrolls without corrupting the line: each picture taken while it
    /// moves is a window onto the messages as the terminal is sent them (Devanagari conjuncts,
    /// decomposed accents, an emoji with VS16, a ZWJ family and a stray ZWJ, a line separator).
    /// They took the cells of their first code point, so what followed them landed in the
    /// wrong cells ("Fail" for "Family", "w0w x"), and an accent or vowel sign written in the
    /// last column joined the letter before it ("Caf́e").
    @Test func everyScriptScrollsWithoutCorruption() throws {
        let messages = ["नमस्ते दुनिया आज", "Line\u{2028}break here", "Cafe\u{301} au lait", "I ❤️ you",
                        "Family 👨‍👩‍👧 visit", "w0\u{200D}x and more"]
        let sent = "नमस्ते दुनिया आज • Line break here • Cafe\u{301} au lait • I ❤ you • Family 👨👩👧 visit • w0x and more • "
        let tape = String(repeating: sent, count: 4)
        /// Whether a picture of the band is a window onto the tape. What it cuts at either end
        /// may be half a letter: what is inside is compared.
        func onTape(_ line: String) -> Bool {
            var inside = Substring(line.trimmingCharacters(in: .whitespaces)).dropFirst().dropLast()
            while let first = inside.unicodeScalars.first, first.properties.generalCategory == .nonspacingMark {
                inside = Substring(inside.unicodeScalars.dropFirst())
            }
            return !inside.isEmpty && tape.contains(inside)
        }
        try withMessages(messages) { folder in
            // Until the calendar is read (slow on a loaded machine) the band shows the date, which
            // scrolls out before the messages (its last digits may share a picture with them):
            // the pictures begin with the first that holds only the messages.
            try start(width: 60, at: "2026-11-25 10:00", speed: 7, feeds: folder) {
                $0.count > 12 && $0[12].contains("•") && onTape($0[12])
            }
            defer { _ = try? tmux("kill-server") }
            var pictures: Set<String> = []
            for _ in 0..<40 {
                let line = try screen()[12]
                pictures.insert(line)
                #expect(onTape(line), "\(line)")
                Thread.sleep(forTimeInterval: 0.2)
            }
            #expect(pictures.count > 20)
        }
    }

    /// A Devanagari line that fits stands still and whole (its last word was cut: it was
    /// measured a cell per cluster).
    @Test func aStillDevanagariLineIsWhole() throws {
        // 73 cells; counted as 55, it was centred 12 cells in and its last word fell off.
        let hindi = "आज दोपहर को डॉक्टर साहिबा आएँगी, कृपया दवाई की थैली और पानी की बोतल तैयार रखिए"
        try withMessages([hindi]) { folder in
            try start(at: "2026-11-25 10:00", feeds: folder) { $0.count > 12 && $0[12].trimmingCharacters(in: .whitespaces) == hindi }
            defer { _ = try? tmux("kill-server") }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try screen()[12].trimmingCharacters(in: .whitespaces) == hindi)
        }
    }

    /// The orientation line two rows below the band, in the language asked for: the day and the
    /// part of it, the date, still; `status` says it too.
    @Test(arguments: [("de", "Montagmorgen · 23. November 2026"), ("en", "Monday morning · November 23, 2026"),
                      ("ja", "月曜日の朝 · 2026年11月23日")])
    func orientationLineInTheLanguage(language: String, line: String) throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-\(UUID().uuidString.prefix(8)).sock").path
        try start(at: "2026-11-23 10:00", socket: socket, environment: "LANG=C.UTF-8", extra: "--language \(language)")
        defer { _ = try? tmux("kill-server") }
        let screen = try screen()
        #expect(screen[14].trimmingCharacters(in: .whitespaces) == line, "\(screen)")
        Thread.sleep(forTimeInterval: 1)
        #expect(try self.screen()[14] == screen[14])
        let status = try CommandLineTests.run(CommandLineTests.binary, "status", "--socket", socket)
        #expect(status.output.contains("orientation: \(line)"), "\(status.output)")
    }

    /// A message with nothing visible in it (zero-width spaces) is no message: the date shows.
    @Test func anInvisibleMessageLeavesTheDate() throws {
        try withMessages(["\u{200B}\u{200B}\u{2060}"]) { folder in
            try start(at: "2026-11-25 10:00", feeds: folder)
            defer { _ = try? tmux("kill-server") }
            #expect(try screen()[12].contains("25 November 2026"))
        }
    }

    /// When stderr is the terminal (the log is silent there), a framebuffer that cannot be used
    /// is still told on it, before anything is drawn.
    @Test func unusableFramebufferIsToldOnTheTerminal() throws {
        try start(extra: "--output framebuffer --device /dev/null") { $0.joined().contains("not a framebuffer device") }
        defer { _ = try? tmux("kill-server") }
        let text = try screen().joined(separator: "\n")
        #expect(text.contains("marquee: /dev/null: not a framebuffer device"), "\(text)")
    }

    /// A file synced into the folder (temporary file, then rename) shows within a second; a
    /// broken rewrite keeps the last good version; SIGTERM ends a still picture at once.
    @Test func feedFolderIsWatched() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { Self.removeWhenFree(folder) }
        try start(at: nil, feeds: folder.path)
        defer { _ = try? tmux("kill-server") }
        let idle = try screen()[12].trimmingCharacters(in: .whitespaces)
        #expect(idle.hasSuffix(" 2026") || idle.hasSuffix(" 2027"))  // today's date, written out
        let feed = calendar(event("UID:n", "DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY", "SUMMARY:Dropped in just now"))
        let temporary = folder.appendingPathComponent(".partial")
        try Data(feed.utf8).write(to: temporary)
        try FileManager.default.moveItem(at: temporary, to: folder.appendingPathComponent("family.ics"))
        #expect(try waitUntil(within: .seconds(1.5)) {
            try screen()[12].trimmingCharacters(in: .whitespaces) == "Dropped in just now"
        })
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:bro".utf8).write(to: folder.appendingPathComponent("family.ics"))
        Thread.sleep(forTimeInterval: 1)
        #expect(try screen()[12].trimmingCharacters(in: .whitespaces) == "Dropped in just now")
        let shell = try #require(Int32(try tmux("display", "-t", "t", "-p", "#{pane_pid}").trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(try #require(Self.child(of: shell)), SIGTERM)
        #expect(try waitUntil { try state() == "alt=0 cursor=1" })
    }

    /// `marquee status`, `pause` and `resume` against the running display, who may control
    /// it, and what hostile clients get.
    @Test func statusSocket() throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-\(UUID().uuidString.prefix(8)).sock").path
        try start(socket: socket)
        defer { _ = try? tmux("kill-server") }
        // A loaded machine may read the feeds after the first frame (which then shows the
        // date): the status is asked until it has them.
        var report: [String: Any] = [:]
        #expect(try waitUntil {
            let status = try CommandLineTests.marquee("status", "--json", "--socket", socket)
            guard status.status == 0 else { return false }
            report = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any] ?? [:]
            return (report["feeds"] as? [[String: Any]])?.count == 3
        })
        #expect((report["showing"] as? [String])?.contains("Good evening! Supper is at 6.") == true)
        #expect(report["nextChange"] as? String == "2026-11-22T19:30:00+01:00")
        #expect(report["paused"] as? Bool == false)

        #expect(try CommandLineTests.marquee("pause", "--socket", socket).status == 0)
        Thread.sleep(forTimeInterval: 0.3)
        let paused = try screen()[12]
        Thread.sleep(forTimeInterval: 1)
        #expect(try screen()[12] == paused)
        #expect(try CommandLineTests.marquee("status", "--socket", socket).output.contains(": paused,"))
        #expect(try CommandLineTests.marquee("resume", "--socket", socket).status == 0)
        #expect(try waitUntil { try screen()[12] != paused })

        // Another user may read the status but not control the display (SO_PEERCRED). The
        // binary is copied where `nobody` can run it, wherever this checkout lives.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.copyItem(atPath: CommandLineTests.binary, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        chmod(copy, 0o755)
        // Not in the socket's group: told which group it is for and how to join it.
        chmod(socket, 0o660)
        let outsider = try CommandLineTests.run("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                copy, "status", "--socket", socket)
        #expect(outsider.status == 1)
        #expect(outsider.errors.contains("it is for root and the members of the group root (sudo adduser $USER root, then log in again)"),
                "\(outsider.errors)")
        chmod(socket, 0o666)
        let refused = try CommandLineTests.run("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                               copy, "pause", "--socket", socket)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("not allowed: pause is for root, the user root and the members of the group root "
            + "(sudo adduser $USER root, then log in again)"), "\(refused.errors)")
        let reader = try CommandLineTests.run("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                              copy, "status", "--socket", socket)
        #expect(reader.status == 0)
        // A supplementary member of the daemon's group (as systemd's SupplementaryGroups= makes
        // one; /etc/group does not list it) may control it: the kernel says so.
        let member = try CommandLineTests.run("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                              "--groups=\(getegid())", copy, "pause", "--socket", socket)
        #expect(member.status == 0, "\(member.errors)")
        #expect(try CommandLineTests.marquee("resume", "--socket", socket).status == 0)

        // Idle connections do not block others; garbage and oversized requests get an error.
        let idle = (0..<20).compactMap { _ in Self.connect(socket) }
        defer { idle.forEach { close($0) } }
        #expect(Self.exchange(socket, Array("garbage\n".utf8)).contains("malformed request"))
        #expect(Self.exchange(socket, [UInt8](repeating: 0x41, count: 5000)).contains("request too large"))
        #expect(try CommandLineTests.marquee("status", "--socket", socket).status == 0)

        try tmux("send-keys", "-t", "t", "C-c")
        #expect(try waitUntil { try CommandLineTests.marquee("status", "--socket", socket).status == 1 })
    }

    static func connect(_ path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count + 1)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Sends raw bytes and returns the reply line.
    static func exchange(_ path: String, _ bytes: [UInt8]) -> String {
        guard let descriptor = connect(path) else { return "" }
        defer { close(descriptor) }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var reply = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let count = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: reply[0..<count], as: UTF8.self) : ""
    }

    /// Under systemd (a fake NOTIFY_SOCKET): READY=1 after the first frame, STATUS=, WATCHDOG=1
    /// from the render loop, STOPPING=1 on SIGTERM; SIGHUP reloads instead of ending.
    @Test func systemdNotifyProtocol() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count + 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) }
        }
        try #require(bound == 0)
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func received(for seconds: Double) -> [String] {
            var messages: [String] = []
            let end = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < end {
                let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
                if count > 0 { messages.append(String(decoding: buffer[0..<count], as: UTF8.self)) }
            }
            return messages
        }
        try start(at: "2026-11-22 03:00", environment: "NOTIFY_SOCKET=\(path) WATCHDOG_USEC=400000")
        defer { _ = try? tmux("kill-server") }
        let first = received(for: 1.5)
        #expect(first.contains("READY=1"))
        #expect(first.contains("STATUS=showing 1 message; next change 07:00"))
        #expect(first.filter { $0 == "WATCHDOG=1" }.count >= 4)  // every 200 ms, even for a still picture
        let shell = try #require(Int32(try tmux("display", "-t", "t", "-p", "#{pane_pid}").trimmingCharacters(in: .whitespacesAndNewlines)))
        let marquee = try #require(Self.child(of: shell))
        kill(marquee, SIGHUP)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(kill(marquee, 0) == 0)  // still running
        kill(marquee, SIGTERM)
        #expect(received(for: 0.8).contains("STOPPING=1"))
        #expect(try state() == "alt=0 cursor=1")
    }

    /// The configuration file is read at start (a broken one is refused with its line and
    /// key) and again on a reload request; a broken file on reload keeps the settings in use.
    @Test func configurationFileAndReload() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-conf-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { Self.removeWhenFree(folder) }
        let config = folder.appendingPathComponent("marquee.toml")
        let feeds = folder.appendingPathComponent("feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        try Data("idle_text = \"Nothing planned. {date}\"\nspeed = 4\n".utf8).write(to: config)
        let socket = folder.appendingPathComponent("m.sock").path
        try start(at: "2026-11-22 10:00", feeds: feeds.path, socket: socket, extra: "--config \(config.path)")
        defer { _ = try? tmux("kill-server") }
        // The date once: the band carries the orientation line's words; below it, while the
        // folder holds no calendar, how to add one (this run has no page: into the folder).
        #expect(try screen()[12].trimmingCharacters(in: .whitespaces) == "Nothing planned. Sunday morning · 22 November 2026")
        #expect(try screen()[14].trimmingCharacters(in: .whitespaces).hasPrefix("To add calendars, copy calendar files (.ics) into /"))
        // A calendar with nothing today: the line below is left out.
        try Data(calendar(event("UID:s", "DTSTART;VALUE=DATE:20270601", "SUMMARY:Summer")).utf8)
            .write(to: feeds.appendingPathComponent("later.ics"))
        #expect(try waitUntil { try screen()[14].trimmingCharacters(in: .whitespaces).isEmpty })
        #expect(try screen()[12].trimmingCharacters(in: .whitespaces) == "Nothing planned. Sunday morning · 22 November 2026")
        try Data("idle_text = \"A quiet day\"\n".utf8).write(to: config)
        #expect(Self.exchange(socket, Array("{\"type\":\"reload\"}\n".utf8)).contains(#""ok":true"#))
        #expect(try waitUntil { try screen()[12].trimmingCharacters(in: .whitespaces) == "A quiet day" })
        try Data("idle_text = 'broken\n".utf8).write(to: config)
        _ = Self.exchange(socket, Array("{\"type\":\"reload\"}\n".utf8))
        Thread.sleep(forTimeInterval: 0.7)
        #expect(try screen()[12].trimmingCharacters(in: .whitespaces) == "A quiet day")
        let refused = try CommandLineTests.marquee("run", "--config", config.path, "--feeds", feeds.path)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("marquee.toml:1: `idle_text` the string has no closing '"))
    }

    /// Seen through `marquee status --json`: a file renamed into the folder shows within a
    /// second; breaking it reports the error and keeps the old messages; a restart with the
    /// broken file still shows its last good version (kept in the state folder).
    @Test func feedLifecycleThroughStatus() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-life-\(UUID().uuidString.prefix(8))")
        let feeds = folder.appendingPathComponent("feeds")
        let state = folder.appendingPathComponent("state")
        for path in [feeds, state] { try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true) }
        defer { Self.removeWhenFree(folder) }
        let socket = folder.appendingPathComponent("m.sock").path
        func status() throws -> [String: Any] {
            let run = try CommandLineTests.marquee("status", "--json", "--socket", socket)
            return (try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]) ?? [:]
        }
        func showing() throws -> [String] { try status()["showing"] as? [String] ?? [] }
        try start(at: nil, feeds: feeds.path, socket: socket, extra: "--state-dir \(state.path)")
        let feed = calendar(event("UID:x", "DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY", "SUMMARY:Lunch with Anna"))
        try Data(feed.utf8).write(to: feeds.appendingPathComponent(".family.ics.tmp"))
        try FileManager.default.moveItem(at: feeds.appendingPathComponent(".family.ics.tmp"),
                                         to: feeds.appendingPathComponent("family.ics"))
        #expect(try waitUntil(within: .seconds(1.5)) { try showing() == ["Lunch with Anna"] })
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Lunch wi".utf8).write(to: feeds.appendingPathComponent("family.ics"))
        // The broken version is read (and refused) while the good one stays on screen.
        #expect(try waitUntil { (try status()["feeds"] as? [[String: Any]])?.first?["state"] as? String == "error" })
        #expect(try showing() == ["Lunch with Anna"])
        let broken = (try status()["feeds"] as? [[String: Any]])?.first
        #expect(broken?["state"] as? String == "error")
        #expect(broken?["lastGoodKept"] as? Bool == true)
        #expect((broken?["problems"] as? [String])?.first?.contains("truncated") == true)
        try tmux("kill-server")
        #expect(try waitUntil { try CommandLineTests.marquee("status", "--socket", socket).status == 1 })
        try start(at: nil, feeds: feeds.path, socket: socket, extra: "--state-dir \(state.path)")
        defer { _ = try? tmux("kill-server") }
        // The kept good copy, once the files are read (the broken one is never shown).
        #expect(try waitUntil { try showing() == ["Lunch with Anna"] })
    }

    /// A kiosk with a read-only root (overlayfs) or a full disk: the box starts and shows
    /// everything. A state folder that cannot be written is said on the screen's problem rows
    /// and in the status (the box exited 1 and showed nothing); a last good copy that does not
    /// fit is said with its file, and made once there is room (it was silent).
    @Test func aReadOnlyOrFullStateFolderNeverStopsTheBox() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-disk-\(UUID().uuidString.prefix(8))")
        let feeds = folder.appendingPathComponent("feeds")
        let readOnly = folder.appendingPathComponent("read-only")
        let full = folder.appendingPathComponent("full")
        for path in [feeds, readOnly, full] { try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true) }
        #expect(try CommandLineTests.run("/bin/mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", readOnly.path).status == 0)
        #expect(try CommandLineTests.run("/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full.path).status == 0)
        defer {
            _ = try? tmux("kill-server")
            for mounted in [readOnly, full] { _ = try? CommandLineTests.run("/bin/umount", "-l", mounted.path) }
            Self.removeWhenFree(folder)
        }
        // 100 KB: one message all day, and notes the screen does not show.
        let notes = (0..<400).map { index in
            event("UID:n\(index)", "DTSTART:20200101T000000Z", "DURATION:PT1H", "SUMMARY:Note \(index)",
                  "DESCRIPTION:" + String(repeating: "A long note that nobody reads on the screen. ", count: 5))
        }
        let big = calendar([event("UID:b", "DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY", "SUMMARY:Big calendar")] + notes)
        #expect(big.utf8.count > 100_000)
        try Data(big.utf8).write(to: feeds.appendingPathComponent("big.ics"))
        let socket = folder.appendingPathComponent("m.sock").path
        func status() throws -> [String: Any] {
            let run = try CommandLineTests.marquee("status", "--json", "--socket", socket)
            return (try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]) ?? [:]
        }
        func problems() throws -> [String] {
            (try status()["feeds"] as? [[String: Any]])?.first?["problems"] as? [String] ?? []
        }
        try start(at: nil, feeds: feeds.path, socket: socket, extra: "--state-dir \(readOnly.path)") {
            $0.contains { $0.contains("Big calendar") }
        }
        #expect(try waitUntil { try status()["showing"] as? [String] == ["Big calendar"] })
        let said = try status()["boxProblems"] as? [String] ?? []
        #expect(said.count == 1 && said[0].contains("Read-only file system") && said[0].contains("nothing is kept across a restart"),
                "\(said)")
        #expect(try waitUntil { try screen().joined().contains("cannot write in the state folder") })
        try tmux("kill-server")
        #expect(try waitUntil { try CommandLineTests.marquee("status", "--socket", socket).status == 1 })

        try start(at: nil, feeds: feeds.path, socket: socket, extra: "--state-dir \(full.path)") {
            $0.contains { $0.contains("Big calendar") }
        }
        #expect(try waitUntil { try problems().contains { $0.contains("cannot keep a last good copy in \(full.path): No space left") } })
        #expect(try status()["boxProblems"] as? [String] == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: full.path).filter { $0.hasSuffix(".last-good") }.isEmpty)
        // Room again: the next reload (another file arrives) makes the copy, and the warning goes.
        #expect(try CommandLineTests.run("/bin/mount", "-o", "remount,size=1m", full.path).status == 0)
        try Data(calendar(event("UID:s", "DTSTART:20200101T000000Z", "SUMMARY:Small")).utf8)
            .write(to: feeds.appendingPathComponent("small.ics"))
        #expect(try waitUntil { try problems().isEmpty })
        #expect(try FileManager.default.contentsOfDirectory(atPath: full.path).filter { $0.hasSuffix(".last-good") }.count == 2)
    }

    /// The daemon shows a subscription's calendar once fetched, lists it in the status, and
    /// keeps drawing while another subscription's server hangs.
    @Test func subscriptionsWhileDrawing() throws {
        let server = try LoopbackWebServer()
        try server.serve("family.ics", SubscriptionCommandTests.daily)
        let silent = try SilentServer()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-sub-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { Self.removeWhenFree(folder) }
        let socket = folder.appendingPathComponent("m.sock").path
        let address = server.url("family.ics")
        try start(
            at: nil, feeds: address, socket: socket, environment: "SSL_CERT_FILE=\(server.certificateAuthorities)",
            extra: "--feeds https://127.0.0.1:\(silent.port)/hangs.ics --state-dir \(folder.path)/state")
        defer { _ = try? tmux("kill-server") }
        func status() throws -> [String: Any] {
            let run = try CommandLineTests.marquee("status", "--json", "--socket", socket)
            return (try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]) ?? [:]
        }
        var report: [String: Any] = [:]
        #expect(try waitUntil(within: .seconds(10)) {
            report = try status()
            return report["showing"] as? [String] == ["Walk with Anna"]
        })
        let subscriptions = report["subscriptions"] as? [[String: Any]] ?? []
        #expect(subscriptions.first?["address"] as? String == address)
        #expect(subscriptions.first?["httpStatus"] as? Int == 200 && subscriptions.first?["events"] as? Int == 1)
        // In the display's zone, as the other times of the status.
        let offset = (report["updatedAt"] as? String)?.suffix(6) ?? "?"
        #expect((subscriptions.first?["lastSuccess"] as? String)?.hasSuffix(offset) == true, "\(subscriptions)")
        #expect(try screen().contains { $0.contains("Walk with Anna") })
        // The other subscription's fetch still hangs; the display draws all the same.
        #expect(subscriptions.count == 2 && subscriptions.last?["lastAttempt"] != nil)
        #expect(subscriptions.last?["lastSuccess"] == nil && subscriptions.last?["error"] == nil)
        let text = try CommandLineTests.marquee("status", "--socket", socket).output
        #expect(text.contains("subscriptions:\n  \(address): ok, HTTP 200, 1 event(s)"), "\(text)")
        // The carer changed the calendar and reloads: it shows without waiting for the interval.
        try server.serve("family.ics", SubscriptionCommandTests.daily.replacingOccurrences(of: "Walk with Anna", with: "Tea with Anna"))
        #expect(Self.exchange(socket, Array("{\"type\":\"reload\"}\n".utf8)).contains("\"ok\":true"))
        #expect(try waitUntil(within: .seconds(5)) { try status()["showing"] as? [String] == ["Tea with Anna"] })
        // The calendar is kept once, in the subscriptions' cache: it is a last good version
        // already. (The said, written and uploaded feeds wait for a message sent now, a reminder
        // written and a calendar uploaded on the page; the reminder ledger is open.)
        let state = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/state")
        #expect(Set(state) == ["subscriptions", "said", "written", "uploaded", "reminders.sqlite", "reminders.sqlite-wal",
                               "reminders.sqlite-shm"],
                "\(state)")
    }
}

/// The display as a carer sees it from afar: `marquee run` in tmux, configured for a real broker
/// (mosquitto on loopback, with a password), and mosquitto_sub as Home Assistant.
@Suite(.serialized, .tags(.live),
       .tier(.live, needs: [.program("/usr/bin/tmux"), .program("/usr/sbin/mosquitto"), .program("/usr/bin/mosquitto_sub")]))
struct BrokerTerminalTests {
    let terminal = TerminalTests()

    /// What the broker says the box shows is what the screen shows; a message sent now joins
    /// the band and the state, and leaves both when cleared; a pause sent over MQTT stills the
    /// band and the state says so; the screen's picture is the terminal's grid; killed
    /// without a goodbye (a box unplugged), the broker says it is offline through its last will.
    @Test func theBrokerSeesWhatTheScreenShowsAndTheBoxGoingAway() throws {
        let broker = try LoopbackBroker()
        let topic = "marquee/e2e-\(UUID().uuidString.prefix(8).lowercased())"
        try withTemporaryFolder { folder in
            let configuration = folder.path + "/marquee.toml"
            try """
                mqtt = "mqtt://\(broker.user)@127.0.0.1:\(broker.port)"
                mqtt_password_file = "\(broker.passwordFile)"
                mqtt_topic = "\(topic)"

                """.write(toFile: configuration, atomically: true, encoding: .utf8)
            let line = "It's night-time right now. You should be in bed."
            try terminal.start(at: "2026-11-22 03:00", extra: "--config \(configuration) --state-dir \(folder.path)/state") {
                $0.count > 12 && $0[12].trimmingCharacters(in: .whitespaces) == line
            }
            defer { _ = try? terminal.tmux("kill-server") }
            func state() throws -> [String: Any]? {
                guard let text = try broker.retained(topic + "/state") else { return nil }
                return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            }
            #expect(try waitUntil { try broker.retained(topic + "/availability") == "online" })
            #expect(try waitUntil { try state()?["showing"] as? [String] == [line] })
            #expect(try terminal.screen()[12].trimmingCharacters(in: .whitespaces) == line)
            #expect(try state()?["partOfDay"] as? String == "night")

            let said = "The taxi is late; I'll be there at 11."
            try broker.publish(topic + "/say/set", said)
            #expect(try waitUntil { try state()?["showing"] as? [String] == [said, line] })
            // Home Assistant's "Say now" shows what the box says it shows, not what was typed.
            #expect(try state()?["sayingNow"] as? String == said)
            // Typed into the box above the band (it waited for the band to bring it: 11–25 s at night).
            #expect(try waitUntil { try terminal.screen()[..<12].contains { $0.contains("The taxi is late") } })
            #expect(try waitUntil { try terminal.screen()[12].contains("taxi is late") })
            try broker.publish(topic + "/say/set", "Line one\nline two")
            #expect(try waitUntil { try broker.retained(topic + "/result")?.contains("control characters") == true })
            #expect(try state()?["sayingNow"] as? String == said)
            try broker.publish(topic + "/say/clear", "PRESS")
            #expect(try waitUntil { try state()?["showing"] as? [String] == [line] })
            #expect(try state()?["sayingNow"] as? String == "")
            #expect(try waitUntil { try terminal.screen()[12].trimmingCharacters(in: .whitespaces) == line })

            #expect(try waitUntil { try broker.retainedBytes(topic + "/screen") != nil })
            let moving = try #require(try broker.retainedBytes(topic + "/screen"))
            // The terminal's own grid drawn in pixels (8x16 a cell), not a simulated 16:9 frame.
            func word(_ png: [UInt8], at offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            let terminalRows = try #require(Int(try terminal.tmux("display", "-t", "t", "-p", "#{pane_height}")
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(word(moving, at: 16) == 640 && word(moving, at: 20) == terminalRows * 16,
                    "\(word(moving, at: 16))x\(word(moving, at: 20)) for \(terminalRows) rows")
            try broker.publish(topic + "/paused/set", "ON")
            #expect(try waitUntil { try state()?["paused"] as? Bool == true })
            #expect(try terminal.screen()[12].trimmingCharacters(in: .whitespaces) == line)
            // Paused, the picture stands still, drawn once more.
            #expect(try waitUntil { try broker.retainedBytes(topic + "/screen").map { $0 != moving } ?? false })
            // The picture of the frame drawn as the pause came may follow one taken just before
            // it (a loaded machine draws late): the paused picture is the one that then stays.
            var paused = try #require(try broker.retainedBytes(topic + "/screen"))
            let looked = Date()
            var unchangedSince = looked
            while Date().timeIntervalSince(unchangedSince) < 2, Date().timeIntervalSince(looked) < 30 {
                Thread.sleep(forTimeInterval: 0.25)
                let now = try #require(try broker.retainedBytes(topic + "/screen"))
                if now != paused { (paused, unchangedSince) = (now, Date()) }
            }

            // Refresh with a broken configuration is a failure (it answered ok): in the last
            // command's result and among the problems, until a command succeeds.
            let good = try String(contentsOfFile: configuration, encoding: .utf8)
            try (good + "speeed = 5\n").write(toFile: configuration, atomically: true, encoding: .utf8)
            try broker.publish(topic + "/refresh/press", "PRESS")
            #expect(try waitUntil { try broker.retained(topic + "/result")?.contains("nothing was reloaded") == true })
            #expect(try waitUntil { (try state()?["problems"] as? [String])?.contains { $0.hasPrefix("MQTT: refresh:") } == true })

            // Mended, the carer presses Refresh in Home Assistant (a reload): the failure before
            // is gone; the terminal's picture, still, is the one it was.
            try good.write(toFile: configuration, atomically: true, encoding: .utf8)
            try broker.publish(topic + "/refresh/press", "PRESS")
            #expect(try waitUntil { (try state()?["problems"] as? [String])?.isEmpty == true })
            #expect(try broker.retainedBytes(topic + "/screen") == paused)

            let shell = try #require(Int32(try terminal.tmux("display", "-t", "t", "-p", "#{pane_pid}")
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            kill(try #require(TerminalTests.child(of: shell)), SIGKILL)
            #expect(try waitUntil(within: .seconds(10)) { try broker.retained(topic + "/availability") == "offline" })
        }
    }
}
