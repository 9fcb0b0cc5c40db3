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
public final class LoopbackBroker {
    public let user = "carer"
    public let password = "kitchen-window-42"
    public let port: Int
    public let tlsPort: Int
    public let untrustedPort: Int
    public let certificateAuthorities: String
    /// A file holding `password`, as the unit's credential would.
    public let passwordFile: String
    private let folder: String
    private var process: Process?

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-broker-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try makeTestCertificates(in: folder)
        certificateAuthorities = folder + "/ca.crt"
        passwordFile = folder + "/password"
        try (password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try Self.run("/usr/bin/mosquitto_passwd", ["-b", "-c", folder + "/passwords", user, password], for: .seconds(10), mustEnd: true)
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
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", folder + "/mosquitto.conf"]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        self.process = process
        for _ in 0..<500 where !(accepts(port) && accepts(tlsPort) && accepts(untrustedPort)) {
            guard process.isRunning else { break }
            usleep(10_000)
        }
        guard process.isRunning else { throw ServerError(description: "mosquitto did not start: \(log)") }
    }

    /// Stops the broker at once (SIGKILL: no goodbye to its clients, as a broker that lost power).
    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// The broker's log.
    public var log: String { (try? String(contentsOfFile: folder + "/broker.log", encoding: .utf8)) ?? "" }

    /// The message retained on `topic` now (nil: none came within half a second).
    public func retained(_ topic: String) throws -> String? {
        let output = try Self.run("/usr/bin/mosquitto_sub", credentials + ["-t", topic, "-C", "1", "--retained-only"],
                                  for: .milliseconds(500))
        return output.isEmpty ? nil : String(output.dropLast(output.hasSuffix("\n") ? 1 : 0))
    }

    /// The bytes retained on `topic` now, as published (nil: none came within half a second).
    public func retainedBytes(_ topic: String) throws -> [UInt8]? {
        let output = try Self.runForBytes("/usr/bin/mosquitto_sub", credentials + ["-t", topic, "-C", "1", "-N", "--retained-only"],
                                          for: .milliseconds(500))
        return output.isEmpty ? nil : output
    }

    /// Publishes `payload` on `topic`.
    public func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
        try Self.run("/usr/bin/mosquitto_pub", credentials + ["-t", topic, "-m", payload] + (retain ? ["-r"] : []),
                     for: .seconds(10), mustEnd: true)
    }

    /// Publishes `payload`'s bytes as they are (invalid UTF-8, megabytes) on `topic`.
    public func publish(_ topic: String, bytes payload: [UInt8]) throws {
        let file = folder + "/payload-\(UUID().uuidString)"
        try Data(payload).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Self.run("/usr/bin/mosquitto_pub", credentials + ["-t", topic, "-f", file], for: .seconds(30), mustEnd: true)
    }

    /// Listens to `pattern` from now on, as `topic payload` lines, until the value goes away.
    public func listen(_ pattern: String) throws -> Listener {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = credentials + ["-t", pattern, "-v"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return Listener(process: process, output: output)
    }

    /// A mosquitto_sub that runs while the value lives.
    public final class Listener {
        private let process: Process
        private let output: Pipe
        private var received = Data()

        init(process: Process, output: Pipe) {
            self.process = process
            self.output = output
            let flags = fcntl(output.fileHandleForReading.fileDescriptor, F_GETFL)
            _ = fcntl(output.fileHandleForReading.fileDescriptor, F_SETFL, flags | O_NONBLOCK)
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Every line received so far.
        public var lines: [String] {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(output.fileHandleForReading.fileDescriptor, &chunk, chunk.count)
                guard count > 0 else { break }
                received.append(contentsOf: chunk[0..<count])
            }
            return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    private var credentials: [String] { ["-h", "127.0.0.1", "-p", String(port), "-u", user, "-P", password] }

    /// Runs a client for at most `limit` and returns what it printed. The clients' own timeouts
    /// (`-W`) need SIGALRM, which a process started from a test's thread has blocked: a client
    /// still running at the limit is killed (for `mustEnd`, that is a failure).
    @discardableResult
    private static func run(_ program: String, _ arguments: [String], for limit: Duration, mustEnd: Bool = false) throws -> String {
        String(decoding: try runForBytes(program, arguments, for: limit, mustEnd: mustEnd), as: UTF8.self)
    }

    private static func runForBytes(_ program: String, _ arguments: [String], for limit: Duration, mustEnd: Bool = false) throws
        -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let end = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < end { usleep(5_000) }
        let ended = !process.isRunning
        if !ended { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        guard !mustEnd || (ended && process.terminationStatus == 0) else {
            throw ServerError(description: "\(program) \(arguments.joined(separator: " ")) failed")
        }
        return Array(data)
    }
}
