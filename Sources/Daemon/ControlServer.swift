import CLinux
@preconcurrency import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The socket cannot be set up.
public struct ControlSocketError: Error, CustomStringConvertible {
    public let description: String
}

/// The status and control socket: a Unix stream socket taking one JSON request per line and
/// answering with one JSON line. Runs on its own queue, never on the render thread, so many,
/// slow, half-open or hostile clients cannot delay a frame: requests are at most 4 KiB, a
/// client has 2 s to send one, at most 64 are served at once, and every refusal is a clear
/// error reply. `pause`, `resume` and `reload` need root, the daemon's user or its group
/// (checked with SO_PEERCRED); `status` is open to whoever may connect (the socket is 0660).
public final class ControlServer: Sendable {
    public static let maximumRequestBytes = 4096
    public static let maximumClients = 64
    public static let clientTimeout: DispatchTimeInterval = .seconds(2)

    public let path: String
    private let listener: any DispatchSourceRead
    private let state: ServerState

    /// - Parameter group: the group the socket file belongs to (its members may read and control).
    public init(path: String, group: String? = nil, control: DisplayControl) throws(ControlSocketError) {
        self.path = path
        let descriptor = try Self.bind(path, group: group)
        let queue = DispatchQueue(label: "marquee.control")
        let state = ServerState(control: control, queue: queue)
        self.state = state
        listener = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        listener.setEventHandler {
            while true {
                let client = mq_accept(descriptor)
                guard client >= 0 else { break }
                state.serve(client)
            }
        }
        listener.setCancelHandler { close(descriptor) }
        listener.resume()
    }

    deinit {
        listener.cancel()
        unlink(path)
    }

    /// Binds the socket; a stale socket file (no daemon answers on it) is replaced, a live
    /// one is an error.
    private static func bind(_ path: String, group: String?) throws(ControlSocketError) -> Int32 {
        guard !path.hasPrefix("@"), withUnixSocketAddress(path, { _, _ in true }) != nil else {
            throw ControlSocketError(description: "socket path too long or not a path: \(path)")
        }
        func call(_ operation: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            withUnixSocketAddress(path, operation) ?? -1
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let probe = socket(AF_UNIX, type, 0)
        defer { close(probe) }
        if call({ connect(probe, $0, $1) }) == 0 {
            throw ControlSocketError(description: "another marquee is already answering on \(path)")
        }
        unlink(path)
        let descriptor = socket(AF_UNIX, type | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ControlSocketError(description: "socket: \(String(cString: strerror(errno)))") }
        guard call({ Glibc.bind(descriptor, $0, $1) }) == 0, chmod(path, 0o660) == 0, listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ControlSocketError(description: "cannot listen on \(path): \(reason)")
        }
        if let group {
            guard let entry = getgrnam(group), chown(path, uid_t.max, entry.pointee.gr_gid) == 0 else {
                close(descriptor)
                throw ControlSocketError(description: "cannot give \(path) to the group \(group)")
            }
        }
        return descriptor
    }
}

/// The clients being served; touched only on the server's queue.
private final class ServerState: @unchecked Sendable {
    let control: DisplayControl
    let queue: DispatchQueue
    private var clients: [Int32: (source: any DispatchSourceRead, timer: any DispatchSourceTimer)] = [:]
    private var buffers: [Int32: [UInt8]] = [:]

    init(control: DisplayControl, queue: DispatchQueue) {
        self.control = control
        self.queue = queue
    }

    func serve(_ client: Int32) {
        guard clients.count < ControlServer.maximumClients else {
            send(client, .reply(ControlReply(ok: false, error: "too many clients; try again")))
            close(client)
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: client, queue: queue)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        clients[client] = (source, timer)
        buffers[client] = []
        source.setEventHandler { [unowned self] in self.read(client) }
        source.setCancelHandler { close(client) }
        timer.setEventHandler { [unowned self] in
            self.finish(client, .reply(ControlReply(ok: false, error: "no request within 2 seconds")))
        }
        timer.schedule(deadline: .now() + ControlServer.clientTimeout)
        source.resume()
        timer.resume()
    }

    private func read(_ client: Int32) {
        var chunk = [UInt8](repeating: 0, count: ControlServer.maximumRequestBytes + 1)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(client, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            finish(client, nil)
            return
        }
        buffers[client, default: []] += chunk[0..<count]
        let buffer = buffers[client] ?? []
        if let newline = buffer.firstIndex(of: 0x0A) {
            finish(client, handle(Array(buffer[..<newline]), from: client))
        } else if buffer.count > ControlServer.maximumRequestBytes {
            finish(client, .reply(ControlReply(ok: false, error: "request too large (at most 4096 bytes on one line)")))
        }
    }

    private func handle(_ line: [UInt8], from client: Int32) -> Reply {
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line)) else {
            return .reply(ControlReply(
                ok: false, error: #"malformed request; send one line such as {"type":"status"} (status, pause, resume, reload)"#))
        }
        if request.isControl {
            var uid: UInt32 = 0
            var gid: UInt32 = 0
            guard mq_peer_credentials(client, &uid, &gid) == 0, mq_peer_may_control(uid, gid) == 1 else {
                return .reply(ControlReply(
                    ok: false, error: "not allowed: \(request.type.rawValue) needs root, marquee's user or its group"))
            }
        }
        switch request.type {
        case .status:
            return .encoded(control.statusReply)
        case .pause, .resume, .reload:
            control.post(request.type)
        }
        return .reply(ControlReply(ok: true))
    }

    /// A reply to encode, or one already encoded.
    enum Reply {
        case reply(ControlReply)
        case encoded([UInt8])
    }

    /// Sends the reply (if any) and closes the connection.
    private func finish(_ client: Int32, _ reply: Reply?) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        buffers[client] = nil
        entry.timer.cancel()
        if let reply { send(client, reply) }
        entry.source.cancel()
    }

    private func send(_ client: Int32, _ reply: Reply) {
        var bytes: [UInt8]
        switch reply {
        case .encoded(let encoded):
            bytes = encoded
        case .reply(let reply):
            guard let encoded = try? JSONEncoder().encode(reply) else { return }
            bytes = Array(encoded) + [0x0A]
        }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) & ~O_NONBLOCK)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
