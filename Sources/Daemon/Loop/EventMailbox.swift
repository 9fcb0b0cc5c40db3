import CLinux
import Display
import Marquee
import Schedule
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the display loop reacts to. Deadlines (the next frame, the next change of
/// messages) are not events: the loop computes them and sleeps until the first.
enum DisplayEvent: Sendable {
    /// A feed file changed in the folder (or the folder itself came or went).
    case feedsChanged
    /// A reload of the feeds finished: the messages may differ.
    case feedsReloaded
    /// Some of the files a reload reads are in effect, others are still being read.
    case feedsPartlyRead
    /// The configuration file was read again for a reload (nil: it cannot be used; the
    /// settings in use stay).
    case settingsRead(ReloadedSettings?)
    /// A subscription's error came or went (the status holds them).
    case subscriptionsChanged
    /// The carer's page began to be served or stopped (the status holds where, or why not).
    case pageChanged
    /// The schedule answered a request for the messages at an instant.
    case schedule(ScheduleSnapshot, request: Int)
    /// The wall clock was set (NTP at boot, `date -s`, a resume from suspend).
    case clockStepped
    /// The system's time zone changed (`/etc/localtime`).
    case systemZoneChanged
    /// The terminal was resized (SIGWINCH).
    case resized
    /// The kernel asks to switch the virtual console away or back (VT_PROCESS, SIGUSR2).
    case consoleSwitchRequested
    /// The display device changed: a framebuffer node replaced (a driver took over from the
    /// firmware framebuffer), a DRM card appeared, a screen was plugged in or out.
    case screenDeviceChanged
    /// A request on the control socket that changes what the display does.
    case control(ControlRequest.Kind)
    /// The sound device played a reminder, or could not (the problems shown may change).
    case soundReported
    /// A key was pressed on a keyboard or button of the box (`KeyWatcher`).
    case keyPressed
    /// SIGHUP: under systemd a reload, else the terminal went away.
    case hangUp
    /// The carers' broker wants a picture of what the glass shows now.
    case pictureWanted(PictureRequest)
    /// SIGINT or SIGTERM.
    case stop(signal: Int32)
}

/// The one way into the display loop. Watchers, the control socket, the schedule and the
/// signal handlers post here from any thread; the loop takes everything posted at once and
/// sleeps on the mailbox until its next deadline, so an event wakes it at once.
final class EventMailbox: Sendable {
    private let queue = Mutex<[DisplayEvent]>([])
    /// Whoever awaits the next post (the test kit), resumed by it.
    private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
    /// A non-blocking pipe: a 0 byte says "look at the queue"; signal handlers write their
    /// signal's number.
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 {
            fatalError("cannot create the display loop's pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func post(_ event: DisplayEvent) {
        queue.withLock { $0.append(event) }
        var byte: UInt8 = 0
        _ = write(writeEnd, &byte, 1)
        waiter.withLock { waiting in
            waiting?.resume()
            waiting = nil
        }
    }

    /// From now on the signals the display handles arrive here as events.
    func receiveSignals() {
        let signals = Self.signalEvents.map(\.signal)
        mq_route_signals(writeEnd, signals, Int32(signals.count))
    }

    /// Everything posted since the last call, signals first.
    func take() -> [DisplayEvent] {
        var events: [DisplayEvent] = []
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { bytes in
            while true {
                let count = read(readEnd, bytes.baseAddress, bytes.count)
                guard count > 0 else { break }
                for byte in bytes[..<count] where byte != 0 {
                    if let event = Self.event(forSignal: Int32(byte)) { events.append(event) }
                }
            }
        }
        events += queue.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
        return events
    }

    /// Sleeps until something is posted or `nanoseconds` have passed (nil: no limit).
    func wait(nanoseconds: Nanoseconds?) {
        _ = mq_wait_readable(readEnd, nanoseconds.map { max(0, $0) } ?? -1)
    }

    /// Returns once something is waiting to be taken (for tests, which must not block a thread).
    func nextPost() async {
        await withCheckedContinuation { continuation in
            waiter.withLock { waiting in
                if queue.withLock({ !$0.isEmpty }) {
                    continuation.resume()
                } else {
                    waiting = continuation
                }
            }
        }
    }

    /// The signals the display takes, and what each means: the one list of them.
    private static let signalEvents: [(signal: Int32, event: DisplayEvent)] = [
        (SIGWINCH, .resized), (SIGUSR2, .consoleSwitchRequested), (SIGHUP, .hangUp),
        (SIGINT, .stop(signal: SIGINT)), (SIGTERM, .stop(signal: SIGTERM)),
    ]

    private static func event(forSignal signal: Int32) -> DisplayEvent? {
        signalEvents.first { $0.signal == signal }?.event
    }
}

/// A picture of the screen asked of the display loop, answered on the loop's turn: a copy of
/// the screen's own pixels as last shown (or none, for a screen without pixels of its own).
final class PictureRequest: Sendable {
    private let answer = Mutex<ScreenCopy??>(nil)
    private let given = Completion()

    func answer(_ copy: ScreenCopy?) {
        answer.withLock { $0 = .some(copy) }
        given.finish()
    }

    /// The answer once given: `.some(nil)` when the screen has no picture.
    var answered: ScreenCopy?? { answer.withLock { $0 } }

    /// The answer, waiting at most `limit` for it (nil: none came by then).
    func answer(within limit: Duration) async -> ScreenCopy?? {
        await given.ended(within: limit) ? answered : nil
    }
}
