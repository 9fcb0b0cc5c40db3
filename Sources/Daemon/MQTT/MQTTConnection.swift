import CMosquitto
import Dispatch
import Schedule
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What `marquee status` says of the connection to the carers' broker.
package struct MQTTStatus: Codable, Sendable, Hashable {
    package var broker: String
    package var connected: Bool
    /// When the connection now up was made (RFC 3339, UTC).
    package var connectedSince: String?
    /// What went wrong last (kept while connected again, until the next problem).
    package var lastError: String?
    /// Trying to connect now: looking the broker's name up, connecting, waiting for its answer.
    package var connecting = false
}

/// One box's connection to its broker through libmosquitto, kept up on a thread of its own so
/// the display never waits on the network: it connects (TLS checked, the password sent, a last
/// will of `offline` left with the broker), runs the session while it lasts, and after a lost
/// or refused connection tries again after a wait that doubles up to a minute, with jitter so
/// fifty boxes do not knock at once. What it is doing is in `status`.
final class MQTTConnection: @unchecked Sendable {
    /// What the session does once connected, on the connection's thread: announce itself
    /// (`connected`), answer a message on a subscribed topic, and publish what changed (`tick`,
    /// a few times a second).
    struct Session: Sendable {
        var connected: @Sendable (MQTTConnection) -> Void
        /// A message on a subscribed topic; `retained`: kept by the broker and sent again at
        /// every connection (MQTT's retain flag), not sent just now.
        var received: @Sendable (MQTTConnection, _ topic: String, _ payload: [UInt8], _ retained: Bool) -> Void
        var tick: @Sendable (MQTTConnection) -> Void
        var statusChanged: @Sendable (MQTTStatus) -> Void
    }

    let settings: MQTTSettings
    private let password: String?
    private let clientID: String
    private let will: (topic: String, payload: String)
    private let session: Session
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop`: ends the wait before the next attempt at once.
    private let stopped = DispatchSemaphore(value: 0)
    private let shared: Mutex<MQTTStatus>
    /// Used on the connection's thread only.
    private var client: OpaquePointer?
    private var answered = false
    private var refusal: String?

    /// How long a broker may take to answer a connection before it is given up on.
    static let answerTimeout: Int64 = 10
    static let keepAliveSeconds: Int32 = 30
    static let longestWait = 60.0
    /// A connection closed this soon after it was accepted was closed by the broker's choice.
    static let soonLost: Int64 = 5

    init(settings: MQTTSettings, password: String?, clientID: String, will: (topic: String, payload: String), session: Session) {
        self.settings = settings
        self.password = password
        self.clientID = clientID
        self.will = will
        self.session = session
        shared = Mutex(MQTTStatus(broker: settings.broker, connected: false, connecting: true))
    }

    var status: MQTTStatus { shared.withLock { $0 } }

    /// Connects and stays connected until `stop`; returns then, after saying `offline` (a box
    /// stopped on purpose is not left to its will) — or at once when libmosquitto cannot be
    /// used, having said why in the status.
    func run(finally goodbye: (MQTTConnection) -> Void) {
        if let problem = mq_mosquitto_load() {
            record(error: String(cString: problem), connected: false)
            return
        }
        guard let client = mq_mosquitto_new(clientID, true, Unmanaged.passUnretained(self).toOpaque()) else {
            record(error: "libmosquitto cannot make a client", connected: false)
            return
        }
        self.client = client
        defer {
            mq_mosquitto_destroy(client)
            self.client = nil
        }
        do throws(MQTTSettingsError) {
            try configure(client)
        } catch {
            record(error: error.description, connected: false)
            return
        }
        var reconnection = Reconnection()
        while !stopping.load(ordering: .relaxed) {
            let lasted = runSession(client)
            if stopping.load(ordering: .relaxed) {
                if status.connected {
                    goodbye(self)
                    for _ in 0..<10 where mq_mosquitto_loop(client, 50, 1) == MOSQ_ERR_SUCCESS.rawValue {}
                    _ = mq_mosquitto_disconnect(client)
                }
                break
            }
            let wait = reconnection.sessionEnded(lastedSeconds: lasted, unit: Double.random(in: 0...1))
            _ = stopped.wait(timeout: .now() + wait)
        }
        record(error: nil, connected: false)
    }

    /// Ends `run`: within a tenth of a second while it waits to try again, when the call in
    /// hand returns while a connection is being made (a name looked up, a connect to an address
    /// that does not answer: libmosquitto's calls block), after the goodbye while connected.
    /// `MQTTService.stop` waits no longer than `goodbyeWait` for it.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        stopped.signal()
    }

    /// Publishes on the connection's thread (from the session's callbacks).
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool) -> Bool {
        guard let client else { return false }
        let code = payload.withUnsafeBytes { bytes in
            mq_mosquitto_publish(client, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
        }
        return code == MOSQ_ERR_SUCCESS.rawValue
    }

    func publish(_ topic: String, _ text: String, retain: Bool) {
        publish(topic, Array(text.utf8), retain: retain)
    }

    func subscribe(_ pattern: String) {
        guard let client else { return }
        _ = mq_mosquitto_subscribe(client, pattern, 1)
    }

    /// When to try again after a connection ends: the failures in a row, and from them the
    /// wait — 1 s doubling up to `longestWait`, each shortened by up to half at random. A
    /// connection that lasted a minute was no failure of the broker: the count starts again.
    struct Reconnection {
        private(set) var failures = 0

        /// The seconds to wait after a connection that lasted `lastedSeconds` (0: never made);
        /// `unit` (0...1) is the random share.
        mutating func sessionEnded(lastedSeconds: Int64, unit: Double) -> Double {
            failures = lastedSeconds >= 60 ? 1 : failures + 1
            let full = min(MQTTConnection.longestWait, Double(1 << min(failures - 1, 10)))
            return full * (0.5 + unit / 2)
        }
    }

    // MARK: - On the connection's thread

    private func configure(_ client: OpaquePointer) throws(MQTTSettingsError) {
        _ = mq_mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        let payload = Array(will.payload.utf8)
        _ = payload.withUnsafeBytes { mq_mosquitto_will_set(client, will.topic, Int32($0.count), $0.baseAddress, 1, true) }
        if settings.user != nil || password != nil {
            _ = mq_mosquitto_username_pw_set(client, settings.user, password)
        }
        if settings.usesTLS {
            let code = mq_mosquitto_tls_set(
                client, settings.certificateAuthorities, settings.certificateAuthorities == nil ? "/etc/ssl/certs" : nil)
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTSettingsError("cannot use the certificate authorities \(settings.certificateAuthorities ?? "/etc/ssl/certs"): \(Self.describe(code))")
            }
        }
        mq_mosquitto_connect_callback_set(client) { _, context, code in
            Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue().answered(code)
        }
        mq_mosquitto_message_callback_set(client) { _, context, message in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            let connection = Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue()
            connection.session.received(connection, String(cString: topic), payload, message.retain)
        }
    }

    /// One connection, from connecting to its loss: how many seconds it was up.
    private func runSession(_ client: OpaquePointer) -> Int64 {
        answered = false
        refusal = nil
        update { $0.connecting = true }
        let code = mq_mosquitto_connect(client, settings.host, Int32(settings.port), Self.keepAliveSeconds)
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            record(error: "cannot connect to \(settings.broker): \(Self.describe(code))", connected: false)
            return 0
        }
        let started = monotonicSeconds()
        var since: Int64?
        var lost: Int32 = MOSQ_ERR_SUCCESS.rawValue
        while !stopping.load(ordering: .relaxed) {
            lost = mq_mosquitto_loop(client, 100, 1)
            if let refusal {
                record(error: "\(settings.broker) refused the connection: \(refusal)", connected: false)
                _ = mq_mosquitto_disconnect(client)
                return 0
            }
            if lost != MOSQ_ERR_SUCCESS.rawValue { break }
            if answered {
                if since == nil {
                    since = monotonicSeconds()
                    record(error: nil, connected: true)
                    session.connected(self)
                }
                session.tick(self)
            } else if monotonicSeconds() - started >= Self.answerTimeout {
                record(error: "\(settings.broker) accepted the connection but did not answer within \(Self.answerTimeout) s",
                       connected: false)
                _ = mq_mosquitto_disconnect(client)
                return 0
            }
        }
        guard !stopping.load(ordering: .relaxed) else { return since.map { monotonicSeconds() - $0 } ?? 0 }
        if since == nil {
            // Closed before the broker's answer: something else listens on that port.
            record(error: "\(settings.broker) closed the connection without answering as an MQTT broker "
                + "(\(Self.describe(lost))): is it one, on that port\(settings.usesTLS ? ", speaking TLS" : "")?",
                connected: false)
        } else if let since, monotonicSeconds() - since < Self.soonLost {
            // A broker closes a connection at once when another client connects with its id.
            record(error: "\(settings.broker) closed the connection \(monotonicSeconds() - since) s after accepting it: "
                + "another client may be connected as \(clientID) (two boxes with one mqtt_topic?), or the broker's "
                + "access list refuses this box its topics", connected: false)
        } else {
            record(error: "lost the connection to \(settings.broker): \(Self.describe(lost))", connected: false)
        }
        _ = mq_mosquitto_disconnect(client)
        return since.map { monotonicSeconds() - $0 } ?? 0
    }

    private func answered(_ code: Int32) {
        if code == 0 {
            answered = true
        } else {
            refusal = String(cString: mq_mosquitto_connack_string(code))
        }
    }

    private func record(error: String?, connected: Bool) {
        update { next in
            let status = next
            next.connected = connected
            next.connecting = false
            if connected, !status.connected {
                next.connectedSince = ZonedTime(instant: Instant(secondsSinceEpoch: machineWallSeconds()), utcOffset: 0).rfc3339
            } else if !connected {
                next.connectedSince = nil
            }
            if error != nil || connected { next.lastError = error ?? status.lastError }
        }
    }

    /// Changes the status and tells the session when it changed.
    private func update(_ change: (inout MQTTStatus) -> Void) {
        let changed = shared.withLock { status -> MQTTStatus? in
            var next = status
            change(&next)
            guard next != status else { return nil }
            status = next
            return next
        }
        if let changed { session.statusChanged(changed) }
    }

    private func monotonicSeconds() -> Int64 { readClock(CLOCK_MONOTONIC) / 1_000_000_000 }

    /// libmosquitto's error in words; a failed TLS handshake says what usually causes it.
    static func describe(_ code: Int32) -> String {
        switch code {
        case MOSQ_ERR_ERRNO.rawValue: errno == 0 ? "the other end closed it" : String(cString: strerror(errno))
        case MOSQ_ERR_TLS.rawValue:
            "the TLS handshake failed (the broker's certificate is not trusted or not for this name, or the broker does "
                + "not speak TLS on this port: mqtt:// rather than mqtts://?)"
        case MOSQ_ERR_KEEPALIVE.rawValue: "the broker stopped answering"
        case MOSQ_ERR_CONN_LOST.rawValue: "the connection was lost"
        default: String(cString: mq_mosquitto_strerror(code))
        }
    }
}
