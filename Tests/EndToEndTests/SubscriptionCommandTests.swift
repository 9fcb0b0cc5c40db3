import Foundation
import LoopbackServers
import TestSupport
import Testing

/// Calendar subscriptions through the built binary: the offline commands fetch an address
/// once, and the daemon fetches it while it draws, from a real web server on loopback.
@Suite(.tags(.live), .tier(.live, needs: [.program("/usr/sbin/nginx"), .program("/usr/bin/openssl")]))
struct SubscriptionCommandTests {
    /// A calendar whose all-day event repeats every day, so it is active whenever a test runs.
    static let daily = calendar(event("UID:walk@test", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20200101",
                                      "RRULE:FREQ=DAILY", "SUMMARY:Walk with Anna"))

    static func marquee(_ server: LoopbackWebServer, _ arguments: String...) throws -> CommandLineTests.Run {
        try CommandLineTests.run(CommandLineTests.binary, arguments, environment: ["SSL_CERT_FILE": server.certificateAuthorities])
    }

    @Test func messagesAndCheckFetchAnAddress() throws {
        let server = try LoopbackWebServer()
        try server.serve("family.ics", Self.daily)
        let address = server.url("family.ics", scheme: "webcal")
        let messages = try Self.marquee(server, "messages", "--feeds", address, "--feeds", CommandLineTests.examples,
                                        "--at", "2026-11-25 12:00", "--json")
        #expect(messages.status == 0, "\(messages.errors)")
        #expect(messages.output.contains("\"text\":\"Walk with Anna\""))
        #expect(messages.output.contains("\"source\":\"\(address)\""), "\(messages.output)")

        let check = try Self.marquee(server, "check", address)
        #expect(check.status == 0)
        #expect(check.output.contains("\(address): ok, 1 event(s)"), "\(check.output)")
        let missing = try Self.marquee(server, "check", server.url("missing.ics"))
        #expect(missing.status == 1)
        #expect(missing.output.contains("\(server.url("missing.ics")): error: there is no calendar at this address (HTTP 404)"))
        #expect(missing.output.contains("\(server.url("missing.ics")): unusable"))
        let untrusted = try Self.marquee(server, "check", "https://127.0.0.1:\(server.untrustedPort)/family.ics")
        #expect(untrusted.status == 1 && untrusted.output.contains("certificate"), "\(untrusted.output)")
        let failing = try Self.marquee(server, "messages", "--feeds", server.url("missing.ics"), "--at", "2026-11-25 12:00")
        #expect(failing.status == 1)
        #expect(failing.errors.contains("HTTP 404"))
        // Nothing fetched is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("marquee-fetch-") }
        #expect(left.isEmpty, "\(left)")
    }

    /// A server with a private certificate authority: refused without it, in words a carer can
    /// act on (libcurl said only "unable to get local issuer certificate"); trusted through
    /// `subscription_ca_file` in the configuration (before, only through SSL_CERT_FILE).
    @Test func aPrivateAuthorityIsNamedInTheConfiguration() throws {
        let server = try LoopbackWebServer()
        try server.serve("family.ics", Self.daily)
        try withTemporaryFolder { folder in
            let config = folder.url.appendingPathComponent("marquee.toml").path
            try FileManager.default.createDirectory(atPath: folder.path + "/feeds", withIntermediateDirectories: false)
            try folder.write("feeds/walk.ics", Self.daily)
            let feeds = "feeds = \"\(folder.path)/feeds\"\n"
            try Data("\(feeds)subscriptions = [\"\(server.url("family.ics"))\"]\n".utf8).write(to: URL(fileURLWithPath: config))
            let refused = try CommandLineTests.run(CommandLineTests.binary, ["check", "--config", config])
            #expect(refused.status == 1)
            #expect(refused.output.contains("not signed by an authority this box trusts") && refused.output.contains("subscription_ca_file"),
                    "\(refused.output)")
            try Data("\(feeds)subscriptions = [\"\(server.url("family.ics"))\"]\nsubscription_ca_file = \"\(server.certificateAuthorities)\"\n".utf8)
                .write(to: URL(fileURLWithPath: config))
            let trusted = try CommandLineTests.run(CommandLineTests.binary, ["check", "--config", config])
            #expect(trusted.status == 0, "\(trusted.output)")
            #expect(trusted.output.contains("ok, 1 event(s)"), "\(trusted.output)")
        }
    }

    /// A one-shot command stopped with Ctrl-C while it fetches leaves no calendar on disk: what
    /// it fetches is held in memory only.
    @Test func ctrlCLeavesNothingBehind() throws {
        let trickling = try TricklingServer()
        try withTemporaryFolder { folder in
            let temporary = folder.url
            let process = try Spawned(CommandLineTests.binary, ["check", "http://127.0.0.1:\(trickling.port)/calendar.ics"],
                                      environment: ["TMPDIR": temporary.path, "PATH": "/usr/bin:/bin"])
            // The fetch has begun once the server holds the connection.
            while trickling.mostAtOnce == 0, process.isRunning { usleep(20_000) }
            process.send(SIGINT)
            #expect(process.wait() == 128 + SIGINT)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
        }
    }
}
