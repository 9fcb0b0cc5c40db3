import DaemonTestKit
import Foundation
import Ledger
import Synchronization
import Schedule
import TestSupport
import Testing

@testable import Daemon

/// The control socket: its file, its answers, and clients that misbehave.
@Suite(.tier(.live)) struct ControlServerTests {
    /// The reference's table of the socket's status names every field a status has, and no other.
    @Test func theDocumentedStatusIsTheStatus() throws {
        let reference = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let row = try #require(reference.split(separator: "\n").first { $0.hasPrefix("| `{\"type\":\"status\"}`") })
        var fields = String(try #require(row.split(separator: "— ", maxSplits: 1).last))
        // What is in parentheses describes a field: the fields are the names outside them.
        while let open = fields.firstIndex(of: "("), let close = fields[open...].firstIndex(of: ")") {
            fields.removeSubrange(open...close)
        }
        let quoted = fields.split(separator: "`", omittingEmptySubsequences: false).enumerated()
        let documented = Set(quoted.filter { $0.offset % 2 == 1 }.map { String($0.element) })
        let actual = Set(Mirror(reflecting: StatusReport(updatedAt: "", output: "")).children.compactMap(\.label))
        #expect(documented == actual)
    }

    let folder: TemporaryFolder
    let socketPath: String
    let mailbox = EventMailbox()
    let state = DisplayState(clock: ManualClock(wall: Instant(secondsSinceEpoch: 1_795_000_000)))

    init() throws {
        folder = try TemporaryFolder()
        socketPath = folder.path + "/ctl.sock"
    }

    func server() throws -> ControlServer {
        try ControlServer(path: socketPath, state: state, mailbox: mailbox)
    }

    /// A connected client; closed with the value.
    func client() throws -> ControlConnection {
        try ControlConnection(path: socketPath)
    }

    func ask(_ line: String) throws -> String {
        let client = try client()
        client.send(line)
        return client.reply()
    }

    @Test func staleSocketIsReplacedLiveOneIsNot() throws {
        // A socket file left behind by a killed daemon: bound once, then closed, never unlinked.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = withUnixSocketAddress(socketPath) { bind(stale, $0, $1) }
        close(stale)
        #expect(FileManager.default.fileExists(atPath: socketPath))
        let running = try server()
        #expect(throws: ControlSocketError.self) { try server() }
        var info = stat()
        stat(socketPath, &info)
        #expect(info.st_mode & 0o777 == 0o660)
        withExtendedLifetime(running) {}
    }

    /// Anything at the path that is not a socket is left alone, and the error names it.
    @Test func aFileAtTheSocketPathIsNotReplaced() throws {
        try folder.write("ctl.sock", "precious notes")
        #expect {
            try server()
        } throws: { error in
            "\(error)" == "\(socketPath) exists and is not a socket; not replacing it"
        }
        #expect(try String(contentsOfFile: socketPath, encoding: .utf8) == "precious notes")
    }

    @Test func requestsAreAnsweredAndControlIsPosted() throws {
        let running = try server()
        #expect(try ask("{\"type\":\"status\"}\n").contains("\"ok\":true"))
        #expect(try ask("{\"type\":\"pause\"}\n").contains("\"ok\":true"))
        #expect(try ask("{\"type\":\"reload\"}\n").contains("\"ok\":true"))
        let posted = mailbox.take().compactMap { event -> ControlRequest.Kind? in
            if case .control(let kind) = event { return kind }
            return nil
        }
        #expect(posted == [.pause, .reload])
        #expect(try ask("{\"type\":\"explode\"}\n").contains("malformed request"))
        withExtendedLifetime(running) {}
    }

    /// A message sent now over the socket is kept where the feeds read it (asked to be heard,
    /// it is), refused with the reason when it cannot be shown, and taken off by `clear`;
    /// without a state folder it is refused.
    @Test func aMessageSentNowIsKeptRefusedAndTakenOff() throws {
        let said = SaidNow(folder: folder.path + "/said")
        try FileManager.default.createDirectory(atPath: said.folder, withIntermediateDirectories: true)
        let running = try ControlServer(path: socketPath, state: state, mailbox: mailbox, said: said,
                                        clock: ManualClock(wall: Instant(secondsSinceEpoch: 1_795_000_000)))
        let kept = said.folder + "/" + SaidNow.fileName
        #expect(try ask(#"{"type":"show","text":"The taxi is late, Dad","minutes":30,"speak":true}"# + "\n")
            == #"{"ok":true}"#)
        let calendar = try String(contentsOfFile: kept, encoding: .utf8)
        #expect(calendar.contains("SUMMARY:The taxi is late\\, Dad\r\n"))
        #expect(calendar.contains("X-MARQUEE-SPEAK:YES\r\n"))
        #expect(calendar.contains("DTEND:20261118T113640Z\r\n"))
        #expect(try ask(#"{"type":"show","text":"Run\u001b[2J"}"# + "\n").contains("control characters"))
        #expect(try ask(#"{"type":"show","text":"Soon","colour":"sparkly"}"# + "\n").contains("sparkly is not a colour"))
        #expect(try ask(#"{"type":"show"}"# + "\n").contains("the message is empty"))
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == calendar)
        #expect(try ask(#"{"type":"clear"}"# + "\n") == #"{"ok":true}"#)
        #expect(!FileManager.default.fileExists(atPath: kept))
        let posted = mailbox.take().compactMap { event -> ControlRequest.Kind? in
            if case .control(let kind) = event { return kind }
            return nil
        }
        #expect(posted == [.show, .clear])
        withExtendedLifetime(running) {}
    }

    /// The ledger as the running display's socket tells it, to whoever may read the status
    /// (the file itself is for marquee's user alone): the reminders of the span asked for,
    /// nothing posted to the loop; without a state folder, a clear refusal.
    @Test func theLedgerIsReadThroughTheSocket() throws {
        let ledgerPath = folder.path + "/" + ReminderLedger.fileName
        let now: Int64 = 1_795_000_000
        try ReminderLedger(path: ledgerPath).record([
            LedgerEntry(key: .init(event: "pills", trigger: now - 3_600, origin: "audio"), text: "Pills now, Anna",
                        triggerOffset: 3_600, fate: .acknowledged, soundings: 1, total: 3, decidedAt: now - 3_600,
                        changedAt: now - 3_500, acknowledgedBy: "a key"),
            LedgerEntry(key: .init(event: "bins", trigger: now - 3 * 86_400, origin: "event"), text: "Bins out",
                        triggerOffset: 3_600, fate: .missed, why: "the box was off at its time", decidedAt: now - 3 * 86_400),
        ])
        let running = try ControlServer(path: socketPath, state: state, mailbox: mailbox, ledger: ledgerPath,
                                        clock: ManualClock(wall: Instant(secondsSinceEpoch: now)))
        func reminders(_ line: String) throws -> [SoundStatus.Reminder] {
            try #require(try JSONDecoder().decode(ControlReply.self, from: Data(ask(line).utf8)).reminders)
        }
        let day = try reminders(#"{"type":"reminders","since":86400}"# + "\n")
        #expect(day.map(\.text) == ["Pills now, Anna"] && day.first?.acknowledgedBy == "a key")
        #expect(day.first?.trigger == "2026-11-18T11:06:40+01:00")
        #expect(try reminders(#"{"type":"reminders","since":604800}"# + "\n").map(\.outcome) == ["missed", "acknowledged"])
        #expect(mailbox.take().isEmpty)
        withExtendedLifetime(running) {}
        let without = try ControlServer(path: folder.path + "/other.sock", state: state, mailbox: mailbox)
        let client = try ControlConnection(path: folder.path + "/other.sock")
        client.send(#"{"type":"reminders"}"# + "\n")
        #expect(client.reply().contains("no reminder ledger: the display keeps nothing (no state_dir)"))
        withExtendedLifetime(without) {}
    }

    @Test func withoutAStateFolderAMessageSentNowIsRefused() throws {
        let running = try server()
        #expect(try ask(#"{"type":"show","text":"Hello"}"# + "\n").contains("needs a state folder (state_dir)"))
        withExtendedLifetime(running) {}
    }

    /// A client that sends a second request after the first's reply has come (a pipelining
    /// client, a script that writes twice) can still send, and reads the whole first reply:
    /// the connection is not closed under it.
    @Test func aSecondRequestDoesNotResetTheConnection() throws {
        let running = try server()
        let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(connection) }
        #expect(withUnixSocketAddress(socketPath, { connect(connection, $0, $1) }) == 0)
        func send(_ line: String) -> Int {
            Array(line.utf8).withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        #expect(send("{\"type\":\"status\"}\n") > 0)
        var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        #expect(send("{\"type\":\"status\"}\n") > 0, "the second request: \(String(cString: strerror(errno)))")
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                #expect(count == 0, "\(String(cString: strerror(errno)))")
                break
            }
            reply += chunk[0..<count]
        }
        #expect(reply.filter { $0 == 0x0A }.count == 1)
        #expect(try JSONDecoder().decode(ControlReply.self, from: Data(reply.dropLast())).ok)
        withExtendedLifetime(running) {}
    }

    /// Twenty clients that send a request and never read, and twenty that never send, do not
    /// delay anyone: a status and a pause are answered within 100 ms.
    @Test func slowClientsDelayNobody() throws {
        let running = try server()
        let idle = try (0..<20).map { _ in try client() }
        let deaf = try (0..<20).map { _ in try client() }
        for client in deaf { client.send("{\"type\":\"status\"}\n") }
        for request in ["status", "pause"] {
            let start = DispatchTime.now()
            #expect(try ask("{\"type\":\"\(request)\"}\n").contains("\"ok\":true"))
            #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds < 100_000_000)
        }
        withExtendedLifetime((running, idle, deaf)) {}
    }

    /// A reload asked for while the configuration is broken is answered with the error (and not
    /// done); with a usable one it is done, and keys that take a restart are said to the asker
    /// (`marquee reload` said nothing of them).
    @Test func aReloadOfABrokenConfigurationIsAnsweredWithTheError() throws {
        let check = Mutex(ReloadCheck.unusable("/etc/marquee/marquee.toml:3: speed: must be between 1 and 12 characters per second"))
        let running = try ControlServer(path: socketPath, state: state, mailbox: mailbox) { check.withLock { $0 } }
        let refused = try ask("{\"type\":\"reload\"}\n")
        #expect(refused.contains("\"ok\":false") && refused.contains("marquee.toml:3: speed") && refused.contains("nothing was reloaded"))
        #expect(mailbox.take().isEmpty)
        check.withLock { $0 = .usable(needingRestart: []) }
        let done = try ask("{\"type\":\"reload\"}\n")
        #expect(done.contains("\"ok\":true") && !done.contains("note"))
        check.withLock { $0 = .usable(needingRestart: ["state_dir", "socket"]) }
        let noted = try ask("{\"type\":\"reload\"}\n")
        #expect(noted.contains("state_dir, socket changed; they take effect when marquee restarts"), "\(noted)")
        withExtendedLifetime(running) {}
    }

    /// A client still connected when the server goes (the display shutting down) is answered:
    /// its handlers keep what serves it. (They held it unowned: reading freed memory.)
    @Test func aClientConnectedWhenTheServerGoesIsAnswered() throws {
        let waiting: ControlConnection
        do {
            let running = try server()
            waiting = try client()
            waiting.send("{\"type\":\"sta")
            // Answered after the first: the first was taken in before.
            #expect(try ask("{\"type\":\"status\"}\n").contains("\"ok\":true"))
            withExtendedLifetime(running) {}
        }
        // The listener's cancellation runs on the server's queue: give it the time it takes.
        usleep(100_000)
        waiting.send("tus\"}\n")
        #expect(waiting.reply().contains("\"ok\":true"))
    }

    /// Over the limit of clients served at once, each gets the documented reply, not a reset.
    @Test func tooManyClientsAreToldSo() throws {
        let running = try server()
        let waiting = try (0..<ControlServer.maximumClients).map { _ in try client() }
        let extra = try (0..<50).map { _ in try client() }
        for client in extra { client.send("{\"type\":\"status\"}\n") }
        for client in extra { #expect(client.reply().contains("too many clients; try again")) }
        withExtendedLifetime((running, waiting)) {}
    }

    /// Members of the socket's group may control the display, as the configuration promises,
    /// whether it is their own group or a supplementary one.
    @Test func theSocketGroupMayControl() {
        let stranger = uid_t(4242)
        let group = gid_t(4343)
        #expect(ControlPolicy(socketGroup: group).mayControl(uid: stranger, groups: [group]))
        #expect(ControlPolicy(socketGroup: group).mayControl(uid: stranger, groups: [65534, 27, group]))
        #expect(!ControlPolicy(socketGroup: group).mayControl(uid: stranger, groups: [65534, 27]))
        #expect(!ControlPolicy(socketGroup: nil).mayControl(uid: stranger, groups: [group]))
        #expect(ControlPolicy(socketGroup: nil).mayControl(uid: 0, groups: [group]))
    }

    /// The kernel's word on the connected process: this process's own groups, supplementary
    /// ones included.
    @Test func thePeersGroupsComeFromTheKernel() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { close($0) } }
        let peer = try #require(ControlPolicy.peer(of: pair[0]))
        #expect(peer.uid == getuid())
        var own = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(own.count), &own)
        #expect(Set(peer.groups) == Set([getgid()] + own.prefix(Int(count))))
    }
}

extension ControlConnection {
    func send(_ line: String) {
        send(Array(line.utf8))
    }

    func reply() -> String {
        String(decoding: readLine(timeout: 5), as: UTF8.self)
    }
}

/// A state folder that is missing is made (only for marquee's user); one that cannot be is
/// refused with the reason, never silently left without last good copies.
@Suite struct StateFolderTests {
    @Test func aMissingStateFolderIsMadeForMarqueeAlone() throws {
        let root = try TemporaryFolder()
        let path = root.path + "/var/lib/marquee"
        try prepareStateFolder(path)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700)
        try prepareStateFolder(path)
    }

    @Test func aFileWhereTheFolderShouldBeIsRefused() throws {
        let root = try TemporaryFolder()
        try root.write("state", "not a folder")
        #expect(throws: StateFolderError.self) { try prepareStateFolder(root.path + "/state") }
        #expect(throws: StateFolderError.self) { try prepareStateFolder(root.path + "/state/below") }
    }
}
