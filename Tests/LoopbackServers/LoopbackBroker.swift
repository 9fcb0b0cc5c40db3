import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real MQTT broker on loopback for the tests: Debian's mosquitto, anonymous clients refused,
/// one user with a password, listening in the clear (`port`), over TLS with a certificate from
/// the test's own authority (`tlsPort`, trusted through `certificateAuthorities`), and over TLS
/// with a certificate nobody trusts (`untrustedPort`). It can be stopped and started again on
/// the same ports (a broker that goes away and comes back). Test clients are mosquitto_sub and
/// mosquitto_pub. Stopped and removed with the value.
package final class LoopbackBroker {
    package let user = "carer"
    package let password = "kitchen-window-42"
    package let port: Int
    package let tlsPort: Int
    package let untrustedPort: Int
    package let certificateAuthorities: String
    /// A file holding `password`, as the unit's credential would.
    package let passwordFile: String
    private let folder: String
    private var process: Spawned?

    package init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-broker-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try makeTestCertificates(in: folder)
        certificateAuthorities = folder + "/ca.crt"
        passwordFile = folder + "/password"
        try (password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try Self.run("/usr/bin/mosquitto_passwd", ["-b", "-c", folder + "/passwords", user, password])
        let ports = try freePorts(3)
        (port, tlsPort, untrustedPort) = (ports[0], ports[1], ports[2])
        let configuration = """
            user root
            per_listener_settings false
            allow_anonymous false
            password_file \(folder)/passwords
            persistence false
            log_dest file \(folder)/broker.log
            log_type all
            listener \(port) 127.0.0.1
            listener \(tlsPort) 127.0.0.1
            cafile \(folder)/ca.crt
            certfile \(folder)/server.crt
            keyfile \(folder)/server.key
            listener \(untrustedPort) 127.0.0.1
            cafile \(folder)/other.crt
            certfile \(folder)/untrusted.crt
            keyfile \(folder)/server.key

            """
        try configuration.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts the broker (again): ready when it accepts connections on every port.
    package func start() throws {
        let process = try Spawned("/usr/sbin/mosquitto", ["-c", folder + "/mosquitto.conf"])
        self.process = process
        for _ in 0..<500 where !(accepts(port) && accepts(tlsPort) && accepts(untrustedPort)) {
            guard process.isRunning else { break }
            usleep(10_000)
        }
        guard process.isRunning else { throw ServerError(description: "mosquitto did not start: \(log)") }
    }

    /// Stops the broker at once (SIGKILL: no goodbye to its clients, as a broker that lost power).
    package func stop() {
        guard let process else { return }
        process.send(SIGKILL)
        process.wait()
        self.process = nil
    }

    /// The broker's log.
    package var log: String { (try? String(contentsOfFile: folder + "/broker.log", encoding: .utf8)) ?? "" }

    /// The message retained on `topic` now (nil: none).
    package func retained(_ topic: String) throws -> String? {
        try retainedBytes(topic).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes retained on `topic` now, as published (nil: none). A retained message comes
    /// right after the broker acknowledges the subscription; none within `afterSubscribing` of
    /// it means there is none. However long the client takes to connect (a loaded machine),
    /// the answer is the broker's, not a guess.
    package func retainedBytes(_ topic: String) throws -> [UInt8]? {
        let subscriber = try Subscriber(credentials + ["-t", topic, "-C", "1", "-N", "--retained-only"])
        let subscribed = try subscriber.waitForAcknowledgement()
        while subscriber.isRunning, ContinuousClock.now - subscribed < Self.afterSubscribing {
            subscriber.read()
            usleep(5_000)
        }
        subscriber.read()
        return Self.payload(inDebugOutput: subscriber.printed)
    }

    /// How long a retained message may take after the subscription's acknowledgement.
    static let afterSubscribing: Duration = .seconds(1)
    /// How long a client may take to connect and do its work (a loaded machine is slow) before
    /// the broker is taken to be broken.
    static let clientLimit: Duration = .seconds(60)

    /// The payload of the message in mosquitto_sub's `-d -N` output: the line
    /// `… received PUBLISH (d0, q0, r1, m0, 'topic', ... (N bytes))`, then the N bytes.
    static func payload(inDebugOutput printed: [UInt8]) -> [UInt8]? {
        guard let publish = printed.firstRange(of: Array("received PUBLISH (".utf8)),
              let lineEnd = printed[publish.upperBound...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: printed[publish.upperBound..<lineEnd], as: UTF8.self)
        guard line.hasSuffix(" bytes))"), let open = line.lastIndex(of: "("),
              let count = Int(line[line.index(after: open)...].dropLast(" bytes))".count)),
              lineEnd + 1 + count <= printed.count else { return nil }
        return Array(printed[(lineEnd + 1)..<(lineEnd + 1 + count)])
    }

    /// Publishes `payload` on `topic`.
    package func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
        try Self.run("/usr/bin/mosquitto_pub", credentials + ["-t", topic, "-m", payload] + (retain ? ["-r"] : []))
    }

    /// Publishes each of `payloads` on `topic` from one client, one right after another (a
    /// flood that a client per message, on a busy machine, would spread over seconds).
    package func publish(_ topic: String, each payloads: [String]) throws {
        let file = folder + "/payloads-\(UUID().uuidString)"
        try Data(payloads.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Self.run("/usr/bin/mosquitto_pub", credentials + ["-t", topic, "-l"], input: file)
    }

    /// Publishes `payload`'s bytes as they are (invalid UTF-8, megabytes) on `topic`.
    package func publish(_ topic: String, bytes payload: [UInt8]) throws {
        let file = folder + "/payload-\(UUID().uuidString)"
        try Data(payload).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Self.run("/usr/bin/mosquitto_pub", credentials + ["-t", topic, "-f", file])
    }

    /// Listens to `pattern` from the broker's acknowledgement on (nothing published after
    /// this returns is missed), as `topic payload` lines, until the value goes away.
    package func listen(_ pattern: String) throws -> Listener {
        let subscriber = try Subscriber(credentials + ["-t", pattern, "-v"])
        _ = try subscriber.waitForAcknowledgement()
        return Listener(subscriber: subscriber)
    }

    /// A mosquitto_sub that runs while the value lives.
    package final class Listener {
        private let subscriber: Subscriber

        init(subscriber: Subscriber) {
            self.subscriber = subscriber
        }

        /// Every message received so far, as `topic payload`.
        package var lines: [String] {
            subscriber.read()
            return String(decoding: subscriber.printed, as: UTF8.self).split(separator: "\n")
                .filter { !$0.hasPrefix("Client ") && !$0.hasPrefix("Subscribed (mid") }.map(String.init)
        }
    }

    /// A mosquitto_sub of the tests, unbuffered and with its debug lines (`-d`): the broker's
    /// acknowledgement of the subscription is seen while the client still runs. Killed with
    /// the value.
    final class Subscriber {
        private let process: Spawned
        private let arguments: [String]
        /// The read end of its standard output.
        private let descriptor: Int32
        /// All it printed so far (after `read`).
        private(set) var printed: [UInt8] = []

        init(_ arguments: [String]) throws {
            let output = try Spawned.pipe()
            defer { close(output.write) }
            _ = fcntl(output.read, F_SETFL, fcntl(output.read, F_GETFL) | O_NONBLOCK)
            descriptor = output.read
            self.arguments = arguments
            do {
                process = try Spawned("/usr/bin/stdbuf", ["-o0", "/usr/bin/mosquitto_sub", "-d"] + arguments, output: output.write)
            } catch {
                close(output.read)
                throw error
            }
        }

        deinit {
            process.send(SIGKILL)
            process.wait()
            close(descriptor)
        }

        var isRunning: Bool { process.isRunning }

        /// Takes in what the client printed since the last read.
        func read() {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let count = Glibc.read(descriptor, &chunk, chunk.count), count > 0 { printed += chunk[0..<count] }
        }

        /// When the broker acknowledged the subscription; a broker that does not within
        /// `clientLimit` is taken to be broken.
        func waitForAcknowledgement() throws -> ContinuousClock.Instant {
            let giveUp = ContinuousClock.now + LoopbackBroker.clientLimit
            while true {
                read()
                if printed.firstRange(of: Array("received SUBACK".utf8)) != nil { return .now }
                guard process.isRunning, ContinuousClock.now < giveUp else {
                    throw ServerError(description: "mosquitto_sub \(arguments): no acknowledgement from the broker")
                }
                usleep(5_000)
            }
        }
    }

    private var credentials: [String] { ["-h", "127.0.0.1", "-p", String(port), "-u", user, "-P", password] }

    /// Runs a client that must end within `clientLimit`; one still running then is killed and
    /// is a failure.
    private static func run(_ program: String, _ arguments: [String], input: String? = nil) throws {
        let given = input.map { open($0, O_RDONLY | O_CLOEXEC) }
        defer { if let given { close(given) } }
        let process = try Spawned(program, arguments, input: given)
        let end = ContinuousClock.now + clientLimit
        while process.isRunning, ContinuousClock.now < end { usleep(5_000) }
        let ended = !process.isRunning
        process.send(SIGKILL)
        guard process.wait() == 0, ended else {
            throw ServerError(description: "\(program) \(arguments.joined(separator: " ")) failed")
        }
    }
}
