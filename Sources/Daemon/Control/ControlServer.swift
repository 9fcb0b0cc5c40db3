import CLinux
import Ledger
@preconcurrency import Dispatch
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The socket cannot be set up.
struct ControlSocketError: Error, CustomStringConvertible {
    let description: String
}

/// The status and control socket: a Unix stream socket taking one JSON request per line and
/// answering with one JSON line. Runs on its own queue, never on the render thread, and never
/// blocks: a reply a client does not read stays in that client's buffer, so slow, half-open or
/// hostile clients delay nobody else. Requests are at most 4 KiB, a client has 2 s to send one
/// and to take its reply, at most 64 are served at once (others are told to try again), and every refusal is a clear error
/// reply. `pause`, `resume` and `reload` need root, the daemon's user or group, or the socket's
/// group (checked with SO_PEERCRED); `status` is open to whoever may connect (the socket is 0660).
final class ControlServer: Sendable {
    static let maximumRequestBytes = 4096
    static let maximumClients = 64
    static let clientTimeout: DispatchTimeInterval = .seconds(2)

    let path: String
    private let listener: any DispatchSourceRead

    /// - Parameters:
    ///   - group: the group the socket file is given to; its members may read and control.
    ///   - state: what status requests are answered from.
    ///   - mailbox: where pause, resume and reload go.
    ///   - checkConfiguration: why the configuration file cannot be used (nil: it can); a reload
    ///     asked for while it is broken is answered with that error and not done.
    ///   - said: where a message sent now is kept (nil: no state folder), on the display's `clock`.
    ///   - ledger: the reminder ledger's file (nil: no state folder), read for `reminders`.
    init(path: String, group: String? = nil, state: DisplayState, mailbox: EventMailbox,
         checkConfiguration: (@Sendable () -> ReloadCheck)? = nil, said: SaidNow? = nil, ledger: String? = nil,
         clock: any BoxClock = SystemClock()) throws(ControlSocketError) {
        self.path = path
        let (descriptor, groupID) = try Self.bind(path, group: group)
        Self.allowManyConnections()
        let queue = DispatchQueue(label: "marquee.control", qos: .utility)
        let clients = Clients(
            queue: queue, policy: ControlPolicy(socketGroup: groupID), state: state, mailbox: mailbox,
            checkConfiguration: checkConfiguration, said: said, ledger: ledger, clock: clock)
        listener = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        listener.setEventHandler {
            while true {
                let client = mq_accept(descriptor)
                guard client >= 0 else { break }
                clients.serve(client)
            }
        }
        listener.setCancelHandler { close(descriptor) }
        listener.resume()
    }

    deinit {
        listener.cancel()
        unlink(path)
    }

    /// Raises the soft limit of open files to the hard one: every waiting client is a
    /// descriptor, and a full table would leave connections unanswered.
    private static func allowManyConnections() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Binds the socket and returns it with the socket group's id. A stale socket file (no
    /// daemon answers on it) is replaced; a live socket, or anything that is not a socket, is
    /// an error naming the path.
    private static func bind(_ path: String, group: String?) throws(ControlSocketError) -> (Int32, gid_t?) {
        guard !path.hasPrefix("@"), withUnixSocketAddress(path, { _, _ in true }) != nil else {
            throw ControlSocketError(description: "socket path too long or not a path: \(path)")
        }
        var groupID: gid_t?
        if let group {
            guard let entry = getgrnam(group) else {
                throw ControlSocketError(description: "socket_group \(group) does not exist")
            }
            groupID = entry.pointee.gr_gid
        }
        func call(_ operation: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            withUnixSocketAddress(path, operation) ?? -1
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ControlSocketError(description: "\(path) exists and is not a socket; not replacing it")
            }
            let probe = socket(AF_UNIX, type, 0)
            defer { close(probe) }
            if call({ connect(probe, $0, $1) }) == 0 {
                throw ControlSocketError(description: "another marquee is already answering on \(path)")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, type | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ControlSocketError(description: "socket: \(String(cString: strerror(errno)))") }
        guard call({ Glibc.bind(descriptor, $0, $1) }) == 0, chmod(path, 0o660) == 0, listen(descriptor, 512) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ControlSocketError(description: "cannot listen on \(path): \(reason)")
        }
        if let groupID, chown(path, uid_t.max, groupID) != 0 {
            close(descriptor)
            throw ControlSocketError(description: "cannot give \(path) to the group \(group ?? "")")
        }
        return (descriptor, groupID)
    }
}

/// Who may change what the display does: root, the daemon's user, members of the daemon's
/// group, and members of the socket's group — membership as the kernel knows it for the
/// connected process (its group and supplementary groups, as systemd's
/// `SupplementaryGroups=` gives them), not as /etc/group says.
struct ControlPolicy: Sendable {
    let groups: Set<gid_t>
    /// Who may, in words, and how to become one of them: for a refusal.
    let whoMay: String

    init(socketGroup: gid_t?) {
        let ordered = [getegid()] + (socketGroup.map { [$0] } ?? [])
        groups = Set(ordered)
        let names = ordered.reduce(into: [String]()) { names, group in
            let name = groupName(group)
            if !names.contains(name) { names.append(name) }
        }
        let user = userName(geteuid())
        whoMay = "root, the user \(user) and the members of the group " + names.joined(separator: " or ")
            + " (sudo adduser $USER \(names.last ?? user), then log in again)"
    }

    func mayControl(uid: uid_t, groups peerGroups: [gid_t]) -> Bool {
        uid == 0 || uid == geteuid() || peerGroups.contains { groups.contains($0) }
    }

    /// The connected process's user, and its group with its supplementary groups (nil: the
    /// kernel would not say).
    static func peer(of client: Int32) -> (uid: uid_t, groups: [gid_t])? {
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        var supplementary = [UInt32](repeating: 0, count: 256)
        guard mq_peer_credentials(client, &uid, &gid) == 0 else { return nil }
        let count = mq_peer_groups(client, &supplementary, Int32(supplementary.count))
        guard count >= 0 else { return nil }
        return (uid, [gid] + supplementary.prefix(Int(count)))
    }
}

/// The clients being served; touched only on the server's queue.
private final class Clients: @unchecked Sendable {
    private struct Client {
        let source: any DispatchSourceRead
        let timer: any DispatchSourceTimer
        var request: [UInt8] = []
        /// The reply's bytes not yet taken by the client, once there is a reply.
        var reply: [UInt8]?
        var writer: (any DispatchSourceWrite)?
        /// Over the limit: its request gets "too many clients".
        let refused: Bool
        /// The client closed its end while its reply was still being sent (its reading is
        /// suspended until the connection ends).
        var closedEarly = false
    }

    private let queue: DispatchQueue
    private let policy: ControlPolicy
    private let state: DisplayState
    private let desk: ControlDesk
    private var clients: [Int32: Client] = [:]

    init(queue: DispatchQueue, policy: ControlPolicy, state: DisplayState, mailbox: EventMailbox,
         checkConfiguration: (@Sendable () -> ReloadCheck)?, said: SaidNow?, ledger: String?, clock: any BoxClock) {
        self.queue = queue
        self.policy = policy
        self.state = state
        desk = ControlDesk(state: state, mailbox: mailbox, checkConfiguration: checkConfiguration, said: said,
                           ledger: ledger, clock: clock)
    }

    func serve(_ client: Int32) {
        let source = DispatchSource.makeReadSource(fileDescriptor: client, queue: queue)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        clients[client] = Client(source: source, timer: timer, refused: clients.count >= ControlServer.maximumClients)
        // The handlers keep the clients while their connection lasts: the server may be gone
        // (shutting down) while a client is still connected, and each ends within 2 s.
        source.setEventHandler { [self] in read(client) }
        source.setCancelHandler { close(client) }
        timer.setEventHandler { [self] in
            if clients[client]?.reply == nil {
                respond(client, ControlReply(ok: false, error: "no request within 2 seconds"))
            } else {
                end(client)
            }
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
            // The client is done: the connection ends, once its reply is sent.
            if let pending = clients[client]?.reply, !pending.isEmpty, clients[client]?.closedEarly == false {
                clients[client]?.closedEarly = true
                clients[client]?.source.suspend()
            } else {
                end(client)
            }
            return
        }
        // Bytes after the request (or after a refusal; a client that sends several requests
        // at once) are read and dropped until the client closes, so the connection is never
        // reset before the reply is read.
        guard clients[client]?.reply == nil else { return }
        clients[client]?.request += chunk[0..<count]
        let request = clients[client]?.request ?? []
        if let newline = request.firstIndex(of: 0x0A) {
            handle(Array(request[..<newline]), from: client)
        } else if request.count > ControlServer.maximumRequestBytes {
            respond(client, ControlReply(ok: false, error: "request too large (at most 4096 bytes on one line)"))
        }
    }

    private func handle(_ line: [UInt8], from client: Int32) {
        if clients[client]?.refused == true {
            return respond(client, ControlReply(ok: false, error: "too many clients; try again"))
        }
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line)) else {
            return respond(client, ControlReply(
                ok: false, error: #"malformed request; send one line such as {"type":"status"} (status, reminders, pause, resume, reload, ack, mute, unmute, show, clear, wake)"#))
        }
        if request.isControl {
            guard let peer = ControlPolicy.peer(of: client), policy.mayControl(uid: peer.uid, groups: peer.groups) else {
                return respond(client, ControlReply(
                    ok: false, error: "not allowed: \(request.type.rawValue) is for \(policy.whoMay)"))
            }
        }
        if request.type == .status {
            send(state.statusReply, to: client)
        } else {
            respond(client, desk.answer(request))
        }
    }

    private func respond(_ client: Int32, _ reply: ControlReply) {
        guard let encoded = try? JSONEncoder().encode(reply) else { return end(client) }
        send(Array(encoded) + [0x0A], to: client)
    }

    /// Starts sending the reply; what the socket does not take now is sent as the client reads.
    private func send(_ bytes: [UInt8], to client: Int32) {
        guard clients[client] != nil else { return }
        clients[client]?.reply = bytes
        flush(client)
        guard let pending = clients[client]?.reply, !pending.isEmpty, clients[client]?.writer == nil else { return }
        let writer = DispatchSource.makeWriteSource(fileDescriptor: client, queue: queue)
        writer.setEventHandler { [self] in flush(client) }
        clients[client]?.writer = writer
        writer.resume()
    }

    /// Writes what the socket takes without blocking; ends the connection once all is sent.
    private func flush(_ client: Int32) {
        guard var pending = clients[client]?.reply else { return }
        while !pending.isEmpty {
            let sent = pending.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return end(client)
            }
            pending.removeFirst(sent)
        }
        clients[client]?.reply = pending
        if pending.isEmpty {
            shutdown(client, Int32(SHUT_WR))
            clients[client]?.writer?.cancel()
            clients[client]?.writer = nil
            if clients[client]?.closedEarly == true { end(client) }
        }
    }

    private func end(_ client: Int32) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        entry.timer.cancel()
        entry.writer?.cancel()
        // A suspended source delivers its cancellation (which closes the socket) only when resumed.
        if entry.closedEarly { entry.source.resume() }
        entry.source.cancel()
    }
}
