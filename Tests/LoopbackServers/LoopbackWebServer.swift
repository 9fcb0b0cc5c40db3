import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real web server on loopback for the subscription tests: Debian's nginx, with a
/// certificate authority made for the test by openssl, serving the files the test writes over
/// TLS (static files get ETag and Last-Modified, and answer conditional requests with 304 as
/// nginx does for real calendars). Also serves, on a second port, the same files with a
/// certificate from an authority nobody trusts, and on a third, plain HTTP that redirects to
/// TLS. Stopped and removed with the value.
package final class LoopbackWebServer {
    /// The server's own folder: certificates, configuration, logs and the files served.
    private let folder: String
    /// The files served: `www/NAME` is `https://127.0.0.1:PORT/NAME`.
    package let root: String
    /// The authority `https` and `http` trust.
    package let certificateAuthorities: String
    package let port: Int
    package let untrustedPort: Int
    package let plainPort: Int
    private let process: Spawned

    /// The requests served so far, one line each: `method path status if-none-match`.
    package var requests: [String] {
        ((try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    package init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-web-\(UUID().uuidString.prefix(8))").path
        let base = folder
        root = base + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try makeTestCertificates(in: base)
        certificateAuthorities = base + "/ca.crt"
        let ports = try freePorts(3)
        (port, untrustedPort, plainPort) = (ports[0], ports[1], ports[2])
        let configuration = """
            daemon off;
            master_process off;
            pid \(base)/nginx.pid;
            error_log \(base)/error.log;
            events { worker_connections 64; }
            http {
                types { text/calendar ics; text/html html; }
                default_type application/octet-stream;
                log_format requests '$request_method $uri $status "$http_if_none_match" $gzip_ratio';
                access_log \(base)/access.log requests;
                client_body_temp_path \(base)/body;
                proxy_temp_path \(base)/proxy;
                fastcgi_temp_path \(base)/fastcgi;
                uwsgi_temp_path \(base)/uwsgi;
                scgi_temp_path \(base)/scgi;
                gzip on;
                gzip_types text/calendar;
                gzip_min_length 0;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(base)/server.crt;
                    ssl_certificate_key \(base)/server.key;
                    root \(root);
                    location = /moved.ics { return 301 /calendar.ics; }
                    location = /loop.ics { return 302 /loop.ics; }
                    location = /downgrade.ics { return 302 http://127.0.0.1:\(plainPort)/in-clear.ics; }
                    location = /busy.ics { add_header Retry-After 7200 always; return 429; }
                    # No validators and no conditional answers, as some servers do.
                    location = /plain.ics { etag off; if_modified_since off; add_header Last-Modified ""; }
                    location = /labelled.ics { types { } default_type text/html; }
                }
                server {
                    listen 127.0.0.1:\(untrustedPort) ssl;
                    ssl_certificate \(base)/untrusted.crt;
                    ssl_certificate_key \(base)/server.key;
                    root \(root);
                }
                server {
                    listen 127.0.0.1:\(plainPort);
                    root \(root);
                    location = /in-clear.ics { try_files /downgrade.ics =404; }
                    location / { return 302 https://127.0.0.1:\(port)$request_uri; }
                }
            }
            """
        try configuration.write(toFile: base + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try Spawned("/usr/sbin/nginx", ["-p", base, "-c", base + "/nginx.conf"])
        // Ready when it accepts connections (it starts within milliseconds).
        for _ in 0..<500 where !(accepts(port) && accepts(plainPort) && accepts(untrustedPort)) {
            guard process.isRunning else { break }
            usleep(10_000)
        }
        guard process.isRunning else {
            let log = (try? String(contentsOfFile: base + "/error.log", encoding: .utf8)) ?? ""
            throw ServerError(description: "nginx did not start: \(log)")
        }
    }

    deinit {
        // SIGKILL: gone at once, its connections with it.
        process.send(SIGKILL)
        process.wait()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The address of a file served over TLS with the test's authority.
    package func url(_ name: String, scheme: String = "https") -> String { "\(scheme)://127.0.0.1:\(port)/\(name)" }

    package func serve(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name))
    }
}

/// Why a test server could not be set up.
package struct ServerError: Error, CustomStringConvertible {
    package var description: String
}

/// Makes, in `folder`, a certificate authority of the test's (`ca.crt`), one nobody trusts
/// (`other.crt`), and a key (`server.key`) with a certificate for 127.0.0.1 and localhost from
/// each (`server.crt`, `untrusted.crt`).
func makeTestCertificates(in folder: String) throws {
    try openssl(folder, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=marquee test CA",
                         "-keyout", "ca.key", "-out", "ca.crt"])
    try openssl(folder, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=nobody's CA",
                         "-keyout", "other.key", "-out", "other.crt"])
    try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: folder + "/san.ext", atomically: true, encoding: .utf8)
    try openssl(folder, ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                         "-keyout", "server.key", "-out", "server.csr"])
    try openssl(folder, ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                         "-days", "2", "-extfile", "san.ext", "-out", "server.crt"])
    try openssl(folder, ["x509", "-req", "-in", "server.csr", "-CA", "other.crt", "-CAkey", "other.key",
                         "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "untrusted.crt"])
}

private func openssl(_ folder: String, _ arguments: [String]) throws {
    guard try Spawned("/usr/bin/openssl", arguments, directory: folder).wait() == 0 else {
        throw ServerError(description: "openssl \(arguments.joined(separator: " ")) failed")
    }
}

/// A listening socket on loopback that never answers: a server that hangs.
package final class SilentServer {
    package let port: Int
    private let socket: Int32

    package init() throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        port = try bindLoopback(socket, port: 0)
        guard listen(socket, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(socket) }
}

/// Ports on loopback nobody listens on now.
package func freePorts(_ count: Int) throws -> [Int] {
    let sockets = (0..<count).map { _ in socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
    defer { sockets.forEach { close($0) } }
    return try sockets.map { try bindLoopback($0, port: 0) }
}

/// Binds a socket to 127.0.0.1 and returns its port.
private func bindLoopback(_ socket: Int32, port: Int) throws -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on a loopback port.
func accepts(_ port: Int) -> Bool {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

/// A plain HTTP server on loopback that answers every request with a calendar's headers (or
/// the ones it is given) and then five bytes a second, for as long as the client stays: a server that trickles. It
/// notes how many clients it held at once. Stops with the value.
package final class TricklingServer {
    package let port: Int
    private let shared = Shared()

    /// What the serving thread and the value share.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        var stopped = false
        var mostAtOnce = 0
    }

    /// The most clients held at the same time so far.
    package var mostAtOnce: Int { shared.lock.withLock { shared.mostAtOnce } }

    /// - Parameter headers: the status line and headers it answers with (a calendar's, by default).
    package init(headers: String = "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: 100000\r\n\r\n") throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        port = try bindLoopback(listener, port: 0)
        guard listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        let answer = Array(headers.utf8)
        Thread { [shared] in Self.serve(listener, answer, shared) }.start()
    }

    deinit {
        shared.lock.withLock { shared.stopped = true }
    }

    private static func serve(_ listener: Int32, _ headers: [UInt8], _ shared: Shared) {
        var clients: [Int32] = []
        while !shared.lock.withLock({ shared.stopped }) {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { break }
                _ = send(client, headers, headers.count, Int32(MSG_NOSIGNAL))
                clients.append(client)
            }
            var byte = UInt8(ascii: "X")
            clients.removeAll { client in
                var request = [UInt8](repeating: 0, count: 4096)
                let closed = recv(client, &request, request.count, Int32(MSG_DONTWAIT)) == 0
                    || send(client, &byte, 1, Int32(MSG_NOSIGNAL)) < 0
                if closed { close(client) }
                return closed
            }
            let held = clients.count
            shared.lock.withLock { shared.mostAtOnce = max(shared.mostAtOnce, held) }
            usleep(200_000)
        }
        clients.forEach { close($0) }
        close(listener)
    }
}
