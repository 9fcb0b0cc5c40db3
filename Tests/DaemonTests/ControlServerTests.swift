import Foundation
import Testing

@testable import Daemon

/// The control socket: its file, its answers, and clients that misbehave.
@Suite struct ControlServerTests {
    let folder: TemporaryFolder
    let socketPath: String
    let mailbox = EventMailbox()
    let state = DisplayState(clock: ManualClock(wall: 1_795_000_000_000_000_000))

    init() throws {
        folder = try TemporaryFolder()
        socketPath = folder.path + "/ctl.sock"
    }

    func server() throws -> ControlServer {
        try ControlServer(path: socketPath, state: state, mailbox: mailbox)
    }

    /// A connected client; closed with the value.
    final class Client {
        let descriptor: Int32

        init(_ path: String) {
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            _ = withUnixSocketAddress(path) { connect(descriptor, $0, $1) }
        }

        deinit { close(descriptor) }

        func send(_ line: String) {
            _ = Array(line.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        }

        /// The reply up to the newline (or what came before the connection ended).
        func reply() -> String {
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !bytes.contains(0x0A) {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    func ask(_ line: String) -> String {
        let client = Client(socketPath)
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
        #expect(ask("{\"type\":\"status\"}\n").contains("\"ok\":true"))
        #expect(ask("{\"type\":\"pause\"}\n").contains("\"ok\":true"))
        #expect(ask("{\"type\":\"reload\"}\n").contains("\"ok\":true"))
        let posted = mailbox.take().compactMap { event -> ControlRequest.Kind? in
            if case .control(let kind) = event { return kind }
            return nil
        }
        #expect(posted == [.pause, .reload])
        #expect(ask("{\"type\":\"explode\"}\n").contains("malformed request"))
        withExtendedLifetime(running) {}
    }

    /// Twenty clients that send a request and never read, and twenty that never send, do not
    /// delay anyone: a status and a pause are answered within 100 ms.
    @Test func slowClientsDelayNobody() throws {
        let running = try server()
        let idle = (0..<20).map { _ in Client(socketPath) }
        let deaf = (0..<20).map { _ in Client(socketPath) }
        for client in deaf { client.send("{\"type\":\"status\"}\n") }
        for request in ["status", "pause"] {
            let start = DispatchTime.now()
            #expect(ask("{\"type\":\"\(request)\"}\n").contains("\"ok\":true"))
            #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds < 100_000_000)
        }
        withExtendedLifetime((running, idle, deaf)) {}
    }

    /// Over the limit of clients served at once, each gets the documented reply, not a reset.
    @Test func tooManyClientsAreToldSo() throws {
        let running = try server()
        let waiting = (0..<ControlServer.maximumClients).map { _ in Client(socketPath) }
        let extra = (0..<50).map { _ in Client(socketPath) }
        for client in extra { client.send("{\"type\":\"status\"}\n") }
        for client in extra { #expect(client.reply().contains("too many clients; try again")) }
        withExtendedLifetime((running, waiting)) {}
    }

    /// Members of the socket's group may control the display, as the configuration promises.
    @Test func theSocketGroupMayControl() {
        let stranger = uid_t(4242)
        let group = gid_t(4343)
        #expect(ControlPolicy(socketGroup: group).mayControl(uid: stranger, gid: group))
        #expect(!ControlPolicy(socketGroup: nil).mayControl(uid: stranger, gid: group))
        #expect(ControlPolicy(socketGroup: nil).mayControl(uid: 0, gid: group))
    }
}
