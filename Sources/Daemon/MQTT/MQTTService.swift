import Schedule
import Support
import Synchronization

/// Keeps the box on the carers' broker from the display's start to its end: reads the password
/// (a file it cannot read is said in the journal and the status; the display runs on without
/// MQTT), then runs the connection on a thread of its own; `drawPictures` keeps the screen's
/// picture up to date while its caller's part runs. `stop` says `offline` and waits for the
/// connection to end.
final class MQTTService: Sendable {
    private let connection: MQTTConnection?
    private let running: Completion?
    /// One look at whether there is a new picture, and its offer (nil: no picture).
    private let offerPicture: (@Sendable () -> Void)?
    /// Paces the looks at the picture.
    private let clock: any BoxClock

    /// - Parameter pictures: the screen's pictures, offered to the broker (nil: no picture).
    init(settings: MQTTSettings, version: String, state: DisplayState, mailbox: EventMailbox, log: EventLog,
         said: SaidNow? = nil, pictures: ScreenPictures? = nil, clock: any BoxClock = SystemClock(),
         checkConfiguration: (@Sendable () -> ReloadCheck)? = nil) {
        self.clock = clock
        let bridge = MQTTBridge(settings: settings, version: version, state: state, mailbox: mailbox, log: log,
                                said: said, clock: clock, checkConfiguration: checkConfiguration)
        var password: String?
        if let path = settings.passwordFile {
            switch readFile(path, limit: 4096) {
            case .success(let bytes):
                password = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\r\n")
            case .failure(let problem):
                let error = "the MQTT password file \(path): \(problem.message); not connecting to \(settings.broker)"
                log.tell(.error, error)
                state.update { $0.mqtt = MQTTStatus(broker: settings.broker, connected: false, lastError: error) }
                connection = nil
                running = nil
                offerPicture = nil
                return
            }
        }
        let connection = MQTTConnection(
            settings: settings, password: password, clientID: "marquee-" + settings.nodeID,
            will: (bridge.topics.availability, MQTTBridge.offline), session: bridge.session)
        self.connection = connection
        // In the status from the start: "connecting" while the first name lookup may hang.
        state.update { $0.mqtt = connection.status }
        running = runningThread(named: "marquee-mqtt") {
            connection.run { $0.publish(bridge.topics.availability, MQTTBridge.offline, retain: true) }
        }
        if let pictures {
            let offered = Mutex(0)
            offerPicture = { @Sendable in
                guard let latest = pictures.current, offered.withLock({ $0 }) != latest.number else { return }
                offered.withLock { $0 = latest.number }
                bridge.offer(picture: latest.bytes)
            }
        } else {
            offerPicture = nil
        }
    }

    /// Looks each second whether there is a new picture of the screen and offers it to the
    /// broker, until the task is cancelled (at once without pictures).
    func offerPictures() async {
        guard let offerPicture else { return }
        while !Task.isCancelled {
            offerPicture()
            await clock.sleep(for: .seconds(1))
        }
    }

    /// Says `offline` and lets go of the broker, waiting at most `goodbyeWait`: a connection
    /// still being made (an address that does not answer, a name being looked up) does not
    /// hold up the display's end.
    func stop() async {
        connection?.stop()
        _ = await running?.ended(within: Self.goodbyeWait)
    }

    static let goodbyeWait: Duration = .seconds(2)
}
