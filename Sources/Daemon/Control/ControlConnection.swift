#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a running display's control socket: how `marquee status`, `pause` and
/// `resume` talk to it, and how tests play clients, well-behaved or not (one that never
/// sends, one that never reads).
package final class ControlConnection {
    /// Why no connection was made.
    package enum Failure: Error {
        case pathTooLong
        /// `connect` failed with this `errno` (EACCES: not in the socket's group).
        case cannotConnect(errno: Int32)
    }

    private let descriptor: Int32

    package init(path: String) throws(Failure) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotConnect(errno: errno) }
        guard let connected = withUnixSocketAddress(path, { connect(descriptor, $0, $1) }) else {
            close(descriptor)
            throw .pathTooLong
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotConnect(errno: code)
        }
    }

    deinit { close(descriptor) }

    /// Sends bytes (a request is one JSON object and a newline).
    package func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The reply up to and without its newline, or what came before the connection ended or
    /// `seconds` passed without a byte.
    package func readLine(timeout seconds: Int) -> [UInt8] {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !reply.contains(0x0A) {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            reply += chunk[0..<count]
        }
        return Array(reply.prefix { $0 != 0x0A })
    }
}
