import Display
import Marquee
import Schedule
import Support
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the display loop is doing, kept up to date by the loop and read by the control
/// socket, which computes the status when it is asked — never waiting for a frame, and never
/// older than the request.
final class DisplayState: Sendable {
    struct Shared {
        var snapshot: ScheduleSnapshot?
        var showing: [String] = []
        /// What is wrong with the box itself (`DaemonConfiguration.boxProblems`).
        var boxProblems: [String] = []
        /// What the carer's setup file could not use (`DaemonConfiguration.setupProblems`).
        var setupProblems: [String] = []
        /// The texts with a letter in the band's window at the last frame.
        var inView: [String] = []
        var output = ""
        var paused = false
        var moving = false
        var glyphCache: GlyphCacheFigures?
        var pageFlips: PageFlipFigures?
        var subscriptions: [SubscriptionStatus] = []
        var mqtt: MQTTStatus?
        var sound: SoundStatus?
        var television: TelevisionStatus?
        var screen: ScreenStatus?
        var page: StatusReport.PageStatus?
        var parts: [PartStatus] = []
        /// Whether a sound device that does not play is among the errors (the carer asked for sound).
        var soundProblemIsError = false
        /// Steady times of the last frames drawn, oldest first overwritten.
        var frameTimes = [SteadyInstant](repeating: SteadyInstant(sinceOrigin: .min), count: 256)
        var framesDrawn = 0
        /// Lateness of the last frames drawn at a frame deadline (not woken early by an event).
        var lateness = [Nanoseconds](repeating: 0, count: 512)
        var latenessCount = 0
        /// Counts changes of what is shown or whether it moves (not frames).
        var version = 0
        /// Counts every change of the state but frames (what is shown, subscriptions, MQTT…).
        var changes = 0
        /// The reminders' latest changes of fate, oldest first, for the carer's phone; how many
        /// there were in this run (the last of them is the newest here).
        var reminderChanges: [SoundStatus.Reminder] = []
        var reminderChangeCount = 0
        /// Counts the configuration readings the display has taken in (each reload's).
        var settingsTaken = 0

        /// The box's problems hold `new` in place of `old` (either nil: only added, or only
        /// taken away), and what is shown is said to have changed.
        mutating func replaceBoxProblem(_ old: String?, with new: String?) {
            boxProblems.removeAll { $0 == old }
            if let new { boxProblems.append(new) }
            version += 1
        }

        /// Keeps `changes` for the broker, the oldest going past `keptReminderChanges`.
        mutating func noteReminderChanges(_ changes: [SoundStatus.Reminder]) {
            reminderChanges.append(contentsOf: changes)
            reminderChanges.removeFirst(max(0, reminderChanges.count - DisplayState.keptReminderChanges))
            reminderChangeCount += changes.count
        }
    }

    /// How many changes of reminders' fates wait for a broker that is away; older ones are
    /// in the ledger (`marquee reminders`) only.
    static let keptReminderChanges = 100

    /// Frames per second are counted over this window.
    static let frameRateWindow: Nanoseconds = 2_000_000_000

    /// The frame rate at `now`, to a tenth, from the times frames were drawn: while frames
    /// come steadily (the last one no older than a tenth of a second), the frames between the
    /// window's first and last over the time between them — a count over the whole window would
    /// miss the frame that falls on its edge (59.5 for 60); else (the band stopped, a still
    /// screen drawn now and then) the frames in the window over its length, falling to 0.
    static func framesPerSecond(_ times: [SteadyInstant], at now: SteadyInstant) -> Double {
        let recent = times.filter { $0 > now - frameRateWindow && $0 <= now }
        guard let first = recent.min(), let last = recent.max() else { return 0 }
        let rate = recent.count > 2 && now - last <= 100_000_000
            ? Double(recent.count - 1) / (Double(last - first) / 1e9)
            : Double(recent.count) / (Double(frameRateWindow) / 1e9)
        return (rate * 10).rounded() / 10
    }

    private let shared = Mutex(Shared())
    private let clock: any BoxClock
    private let started: SteadyInstant

    init(clock: any BoxClock) {
        self.clock = clock
        started = clock.steadyTime()
    }

    func update(_ change: (inout Shared) -> Void) {
        shared.withLock {
            change(&$0)
            $0.changes += 1
        }
    }

    /// The display zone's UTC offset now, as the schedule last said (0 before it did).
    var utcOffset: Int {
        shared.withLock { $0.snapshot?.utcOffset ?? 0 }
    }

    /// A number that changes whenever anything but the frames does: a reader that saw it
    /// before knows whether to look again.
    var changes: Int {
        shared.withLock { $0.changes }
    }

    /// How many configuration readings the display has taken in: a carer's page that asked
    /// for a reload waits for the next before it shows what changed.
    var settingsTaken: Int {
        shared.withLock { $0.settingsTaken }
    }

    /// Waits, for at most `limit`, until the display has taken in a reading after the first
    /// `count`; whether it did.
    func settingsTaken(after count: Int, within limit: Duration) async -> Bool {
        let end = ContinuousClock.now + limit
        while settingsTaken <= count {
            guard ContinuousClock.now < end, (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
        }
        return true
    }

    /// What the carer's setup file could not use, each "key: why".
    var setupProblems: [String] { shared.withLock { $0.setupProblems } }

    /// The carer's page: where it is served, or why not (nil: not started, or off).
    var page: StatusReport.PageStatus? {
        shared.withLock { $0.page }
    }

    /// The part of the day the schedule last said (`night`), in English: a word for machines.
    var partOfDay: String? {
        shared.withLock { $0.snapshot?.partOfDay?.part.rawValue }
    }

    /// The changes of reminders' fates after the first `count` of this run, oldest first (those
    /// no longer kept left out), and how many there were in all.
    func reminderChanges(after count: Int) -> (changes: [SoundStatus.Reminder], count: Int) {
        shared.withLock { state in
            let new = min(state.reminderChangeCount - count, state.reminderChanges.count)
            return (Array(state.reminderChanges.suffix(max(0, new))), state.reminderChangeCount)
        }
    }

    /// The subscriptions as last told.
    var subscriptions: [SubscriptionStatus] {
        shared.withLock { $0.subscriptions }
    }

    /// The errors of the feeds and the subscriptions, one line each in `marquee check`'s form
    /// (`feeds/family.ics:12: error: …`), at most `count` and then how many more: what the
    /// screen shows when it shows problems, and the broker's *Problem*.
    func errors(atMost count: Int) -> [String] {
        let (box, feeds, subscriptions, sound) = shared.withLock {
            ($0.boxProblems, $0.snapshot?.feeds ?? [], $0.subscriptions, $0.soundProblemIsError ? $0.sound?.problem : nil)
        }
        let feedErrors: [String] = feeds.flatMap(\.problems).filter { $0.severity == .error }.map(\.description)
        let soundError: [String] = sound.map { ["reminders are not heard: \($0)"] } ?? []
        return Self.atMost(count, box + feedErrors + subscriptions.compactMap(\.errorLine) + soundError)
    }

    /// The feeds' warnings (something ignored or repaired, the rest of the file used), in the
    /// same form and as many.
    func warnings(atMost count: Int) -> [String] {
        let feeds = shared.withLock { $0.snapshot?.feeds ?? [] }
        return Self.atMost(count, feeds.flatMap(\.problems).filter { $0.severity == .warning }.map(\.description))
    }

    private static func atMost(_ count: Int, _ lines: [String]) -> [String] {
        guard lines.count > count else { return lines }
        let more = lines.count - count
        return lines.prefix(count) + ["\(more) more \(more == 1 ? "problem" : "problems"); `marquee check` lists them all"]
    }

    /// A frame's figures. What is in view changes every few seconds on a moving band: the
    /// status follows it at once, the broker only with the next change of what is shown.
    func frameDrawn(at steady: SteadyInstant, lateness: Nanoseconds?, moving: Bool, inView: [String],
                    glyphCache: GlyphCacheFigures?, pageFlips: PageFlipFigures? = nil) {
        shared.withLock { state in
            state.glyphCache = glyphCache
            state.pageFlips = pageFlips
            if state.inView != inView {
                state.inView = inView
                state.version += 1
            }
            if state.moving != moving {
                state.moving = moving
                state.version += 1
                state.changes += 1
            }
            state.frameTimes[state.framesDrawn % state.frameTimes.count] = steady
            if state.framesDrawn == 0 { state.changes += 1 }
            state.framesDrawn += 1
            if let lateness {
                state.lateness[state.latenessCount % state.lateness.count] = lateness
                state.latenessCount += 1
            }
        }
    }

    /// Whether what is shown is known: a frame was drawn, or the screen is dark.
    var hasDrawn: Bool { shared.withLock { $0.framesDrawn > 0 || $0.screen?.state == .dark } }

    /// The screen went dark: nothing is in view, and nothing moves.
    func darkened() {
        shared.withLock { state in
            state.inView = []
            state.moving = false
            state.version += 1
            state.changes += 1
        }
    }

    /// The status now.
    var report: StatusReport {
        let steady = clock.steadyTime()
        let wall = clock.wallTime()
        let state = shared.withLock { $0 }
        var report = StatusReport(updatedAt: "", output: state.output)
        if let snapshot = state.snapshot {
            report.update(from: snapshot)
            report.updatedAt = ZonedTime(instant: wall.instant, utcOffset: snapshot.utcOffset).rfc3339
        }
        report.showing = Array(state.showing.prefix(StatusReport.listedMessages))
        report.onScreen = state.inView.filter(state.showing.contains)
        report.boxProblems = state.boxProblems
        report.paused = state.paused
        report.moving = state.moving
        report.glyphCache = state.glyphCache
        report.pageFlips = state.pageFlips
        report.subscriptions = state.subscriptions
        report.mqtt = state.mqtt
        report.sound = state.sound
        report.television = state.television
        report.screen = state.screen
        report.page = state.page
        report.parts = state.parts
        report.framesPerSecond = Self.framesPerSecond(state.frameTimes, at: steady)
        let recorded = state.lateness.prefix(min(state.latenessCount, state.lateness.count)).sorted()
        if let worst = recorded.last {
            func milliseconds(_ value: Nanoseconds) -> Double { (Double(value) / 1e4).rounded() / 100 }
            report.frameLateness = StatusReport.Lateness(
                frames: recorded.count, p50: milliseconds(recorded[recorded.count / 2]),
                p99: milliseconds(recorded[recorded.count * 99 / 100]), max: milliseconds(worst))
        }
        report.uptimeSeconds = Int((steady - started) / 1_000_000_000)
        return report
    }

    /// `{"ok":true,"status":{…}}` and a newline. A storm of requests shares one encoding for
    /// up to `replyReuse` (what the display shows is never older: any change starts a new one),
    /// so clients cannot take the processor from the frames.
    var statusReply: [UInt8] {
        let steady = clock.steadyTime()
        let version = shared.withLock { $0.version }
        if let cached = encoded.withLock({ $0 }), cached.version == version, steady - cached.at < Self.replyReuse {
            return cached.bytes
        }
        var bytes = Array((try? JSONEncoder().encode(ControlReply(ok: true, status: report))) ?? Data())
        bytes.append(0x0A)
        encoded.withLock { $0 = (version, steady, bytes) }
        return bytes
    }

    /// How long an encoded status reply is reused while nothing shown changes.
    static let replyReuse: Nanoseconds = 100_000_000
    private let encoded = Mutex<(version: Int, at: SteadyInstant, bytes: [UInt8])?>(nil)
}
