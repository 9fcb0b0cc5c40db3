import Schedule
import Support

/// What the display tells systemd: READY=1 after its first turn, STATUS= what is shown, and
/// WATCHDOG=1 from the loop itself (a stuck display gets restarted), then STOPPING=1.
struct SystemdHeartbeat {
    private let systemd: SystemdNotifier
    /// systemd's watchdog interval (nil: no watchdog).
    let watchdogInterval: Nanoseconds?
    private var lastPing: SteadyInstant
    private var ready = false

    init(environment: [String: String], at steady: SteadyInstant) {
        systemd = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        lastPing = steady
    }

    /// Whether marquee runs under systemd (SIGHUP then reloads instead of stopping).
    var isActive: Bool { systemd.isActive }

    /// After a turn: READY=1 the first time (with what is shown), and the watchdog when due.
    mutating func turned(at steady: SteadyInstant, showing snapshot: ScheduleSnapshot) {
        if !ready {
            ready = systemd.send("READY=1")
            tell(snapshot)
        }
        if let watchdogInterval, steady - lastPing >= watchdogInterval { ping(at: steady) }
    }

    /// Tells systemd's watchdog the display is alive.
    mutating func ping(at steady: SteadyInstant) {
        guard watchdogInterval != nil else { return }
        systemd.send("WATCHDOG=1")
        lastPing = steady
    }

    /// When the watchdog is next to hear from the display (nil: no watchdog).
    var nextPing: SteadyInstant? { watchdogInterval.map { lastPing + $0 } }

    /// "showing 3 messages; next change 21:00" for systemctl status.
    func tell(_ snapshot: ScheduleSnapshot) {
        systemd.send("STATUS=" + Self.summary(snapshot))
    }

    func stopping() { systemd.send("STOPPING=1") }

    static func summary(_ snapshot: ScheduleSnapshot) -> String {
        let count = snapshot.messages.count
        let showing = count == 0 ? "showing the date" : "showing \(count) message\(count == 1 ? "" : "s")"
        return "\(showing); next change \(snapshot.validUntil.wallClock.clock())"
    }
}
