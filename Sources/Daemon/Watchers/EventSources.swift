/// The event sources a display runs with (watchers of the feeds, the clock, the system's zone,
/// the display devices), held together: each started by what it does, one that cannot start
/// said in the journal with what is then slower to show, and all stopped, the last started
/// first, when the display ends (a watcher stops when it is let go).
final class EventSources {
    private var running: [(name: String, source: AnyObject)] = []
    private let log: EventLog

    init(log: EventLog) {
        self.log = log
    }

    /// What the running sources do, in the order they started.
    var names: [String] { running.map(\.name) }

    /// Starts the source `make` makes, to `name` ("watch /etc/marquee/feeds.d for changes");
    /// if it cannot start, says so with `consequence` ("they show after a reload").
    func start(_ name: String, otherwise consequence: String, _ make: () throws -> AnyObject) {
        do {
            running.append((name, try make()))
        } catch {
            log.log(.warning, "cannot \(name) (\(error)); \(consequence)")
        }
    }

    /// Stops every source, the last started first.
    func stopAll() {
        while !running.isEmpty { running.removeLast() }
    }

    deinit {
        stopAll()
    }
}
