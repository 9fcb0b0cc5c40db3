import Foundation
import TestSupport
import Testing

/// The carer's page as a carer meets it: `marquee web-password`, then `marquee run` in a real
/// terminal (tmux), then Debian's chromium (Selenium, `Fixtures/page_browser.py`) at a phone's
/// size and a computer's: a wrong password, the sign-in, "Now" with the picture of the glass, a
/// message sent now reaching the page without a reload, a pause from the page, the reminders.
/// The screenshots are kept in `MARQUEE_PAGE_SHOTS` when it is set, to be looked at.
@Suite(.serialized, .tier(.live, needs: [
    .program("/usr/bin/tmux"), .program("/usr/bin/chromium"), .program("/usr/bin/chromedriver"), .program("/usr/bin/python3"),
]))
struct CarerPageBrowserTests {
    let tmux = Tmux()

    /// A loopback port nothing listens on now.
    private func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
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

    @Test func aCarerUsesThePageFromAPhone() throws {
        let folder = try TemporaryFolder()
        let state = folder.path + "/state", socket = folder.path + "/marquee.sock"
        #expect(mkdir(state, 0o750) == 0)
        let port = try freePort()
        try """
            feeds = "\(CommandLineTests.examples)"
            state_dir = "\(state)"
            socket = "\(socket)"
            web_listen = "127.0.0.1:\(port)"
            """.write(toFile: folder.path + "/marquee.toml", atomically: true, encoding: .utf8)
        let binary = CommandLineTests.binary
        let short = try CommandLineTests.run("/bin/sh", ["-c", "echo short | \(binary) web-password --config \(folder.path)/marquee.toml"])
        #expect(short.status == 1 && short.errors.contains("at least 8 characters"), "\(short.errors)")
        let set = try CommandLineTests.run("/bin/sh", ["-c", "echo \"Anna's carer 2026\" | \(binary) web-password --config \(folder.path)/marquee.toml"])
        #expect(set.status == 0 && set.output.contains("The password is set"), "\(set.errors)")
        let kept = try String(contentsOfFile: state + "/page-password", encoding: .utf8)
        #expect(kept.hasPrefix("$argon2id$") && !kept.contains("Anna"))

        try tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30",
                 "TZ=Europe/Berlin \(binary) run --config \(folder.path)/marquee.toml 2>\(folder.path)/journal; sleep 60")
        defer { _ = try? tmux("kill-server") }
        // The page is served once the status says where.
        #expect(try waitUntil(within: .seconds(60)) {
            try CommandLineTests.marquee("status", "--socket", socket).output.contains("page: http://127.0.0.1:\(port)/")
        })
        let shots = ProcessInfo.processInfo.environment["MARQUEE_PAGE_SHOTS"] ?? folder.path
        let script = CommandLineTests.root.appendingPathComponent("Tests/EndToEndTests/Fixtures/page_browser.py").path
        let browser = try CommandLineTests.run("/usr/bin/python3", [script, "http://127.0.0.1:\(port)", "Anna's carer 2026", shots,
                                                                    binary, socket])
        #expect(browser.status == 0, "\(browser.errors.suffix(2000))")
        let line = try #require(browser.output.split(separator: "\n").last, "\(browser.errors.suffix(2000))")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("the carer's page in chromium:", line)
        #expect(seen["wrongPassword"] as? String == "That password is not right.")
        let cookies = try #require(seen["cookies"] as? [[String: Any]])
        #expect(cookies.count == 1 && cookies[0]["httpOnly"] as? Bool == true && cookies[0]["sameSite"] as? String == "Strict")
        #expect(seen["documentCookie"] as? String == "", "the session is out of the page's scripts' reach")
        #expect((seen["pictureWidth"] as? Int ?? 0) > 0)
        // The page follows the box: the text at once, the picture of the glass within a second
        // and a half (it looks four times a second; the glass draws the message first).
        #expect((seen["textFollowedSeconds"] as? Double ?? 99) < 1)
        #expect((seen["pictureFollowedSeconds"] as? Double ?? 99) < 1.5)
        #expect((seen["showing"] as? [String])?.first == "Anna is coming at 3")
        #expect(seen["showing"] as? [String] == seen["statusShowing"] as? [String])
        #expect(seen["statusPaused"] as? Bool == true && seen["notice"] as? String == "Done.")
        #expect((seen["states"] as? [String])?.contains("The text is paused.") == true)
        #expect(seen["phoneWidth"] as? Int == 360 && seen["horizontalScroll"] as? Bool == false)
        #expect((seen["smallestTarget"] as? Int ?? 0) >= 44, "targets a finger can hit")
        #expect(seen["remindersHeading"] as? String == "Reminders")
        #expect((seen["pictureAfterSignOut"] as? String)?.contains("401") == true)
        #expect(seen["wideWidth"] as? Int == 1280)
        for shot in ["page-now-360.png", "page-reminders-360.png", "page-now-1280.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: shots + "/" + shot)[.size] as? Int) ?? 0
            #expect(size > 5_000, "\(shot): \(size) bytes")
        }
        let journal = try String(contentsOfFile: folder.path + "/journal", encoding: .utf8)
        #expect(journal.contains("the page: a wrong password from 127.0.0.1"))
        #expect(journal.contains("the page: pause by the carer from 127.0.0.1"))
        #expect(!journal.contains("Anna's carer 2026"), "the password is never said")
    }
}
