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
#if canImport(Glibc)
    import Glibc
#endif

/// A request on the control socket: one JSON object on one line, `{"type": "status"}`.
package struct ControlRequest: Codable, Sendable, Hashable {
    package enum Kind: String, Codable, Sendable, Hashable {
        /// Read-only, open to everyone who may connect.
        case status
        /// Stop and restart all motion (WCAG 2.2.2); only root, the daemon's user or its group.
        case pause, resume
        /// Read the feed folder again.
        case reload
        /// The reminder sounding now was heard: its repeats stop.
        case acknowledge = "ack"
        /// No reminder is heard until `unmute` (the screen is unchanged).
        case mute, unmute
        /// A message sent now (`text`, for `minutes`, in `colour`, heard when `speak`), as
        /// from Home Assistant; `clear` takes it off.
        case show, clear
        /// The television on and to marquee's input now (HDMI-CEC).
        case wake
    }

    package var type: Kind
    package var text: String?
    package var minutes: Int?
    package var colour: String?
    package var speak: Bool?

    package init(type: Kind, text: String? = nil, minutes: Int? = nil, colour: String? = nil, speak: Bool? = nil) {
        self.type = type
        self.text = text
        self.minutes = minutes
        self.colour = colour
        self.speak = speak
    }

    /// Whether the request changes what the display does (and so needs permission).
    package var isControl: Bool { type != .status }
}

/// The reply: one JSON object on one line.
package struct ControlReply: Codable, Sendable {
    package var ok: Bool
    package var error: String?
    package var status: StatusReport?
    /// What the asker should know of what was done (a reload: the settings that take a restart).
    package var note: String?

    package init(ok: Bool, error: String? = nil, status: StatusReport? = nil, note: String? = nil) {
        self.ok = ok
        self.error = error
        self.status = status
        self.note = note
    }
}

/// What a reload asked for over the socket would make of the configuration file.
package enum ReloadCheck: Sendable {
    /// It cannot be used: why (the reload is not done).
    case unusable(String)
    /// It can; these changed keys take a restart.
    case usable(needingRestart: [String])
}

/// What `marquee status` shows.
package struct StatusReport: Codable, Sendable, Hashable {
    package struct ActiveMessage: Codable, Sendable, Hashable {
        package var text: String
        package var kind: String
        package var start: String
        package var end: String
        package var source: String
        package var priority: Int
    }

    package struct Feed: Codable, Sendable, Hashable {
        package var path: String
        /// `loaded`, or `error` (then `lastGoodKept` says whether an earlier version shows).
        package var state: String
        package var lastGoodKept: Bool
        package var events: Int
        package var problems: [String]
    }

    /// The display's clock when this report was made (RFC 3339, in the display's zone).
    var updatedAt: String
    /// The texts on the tape, in display order (the date when nothing is scheduled).
    package var showing: [String]
    /// Those of them with a letter on the screen now; the others are next on the band.
    package var onScreen: [String]
    /// The orientation line below the band ("Monday morning · 23 November 2026"), if shown.
    package var orientation: String?
    /// The first `listedMessages` active messages in display order; `messagesNotListed` says
    /// how many more there are (the reply stays small however many are active).
    package var messages: [ActiveMessage]
    package var messagesNotListed: Int?
    package var nextChange: String?
    /// At most `listedFeeds` feed files (those with problems first, when there are more);
    /// `feedsNotListed` says how many more there are.
    package var feeds: [Feed]
    package var feedsNotListed: Int?
    /// The calendars fetched from their addresses.
    package var subscriptions: [SubscriptionStatus]
    package var output: String
    package var paused: Bool
    package var moving: Bool
    package var framesPerSecond: Double
    /// The framebuffer's glyph pictures (nil on a terminal).
    package var glyphCache: GlyphCacheFigures?
    /// Frames a KMS screen's page flips showed, and vertical blanks missed (nil: no page flips).
    package var pageFlips: PageFlipFigures?
    /// How late frames were drawn after their deadline, over the last frames (milliseconds).
    var frameLateness: Lateness?
    /// The connection to the carers' MQTT broker (nil: none configured).
    package var mqtt: MQTTStatus?
    /// What is wrong with the box itself: a state folder that cannot be written.
    package var boxProblems: [String]
    /// The reminders heard and their fate (nil: no sound in this run).
    package var sound: SoundStatus?
    /// The television over HDMI-CEC (nil: `cec = "off"`).
    package var television: TelevisionStatus?
    /// The screen itself: on, dark for `screen_off`, or lit within it (nil: not known yet).
    package var screen: ScreenStatus?
    /// The box's running parts besides the display: the socket, the watchers, the fetching,
    /// MQTT, the television; each running, failed (with why) or stopped.
    package var parts: [PartStatus]
    package var uptimeSeconds: Int

    package struct Lateness: Codable, Sendable, Hashable {
        package var frames: Int
        var p50: Double
        package var p99: Double
        package var max: Double
    }

    package init(updatedAt: String, output: String) {
        self.updatedAt = updatedAt
        showing = []
        onScreen = []
        messages = []
        nextChange = nil
        feeds = []
        subscriptions = []
        self.output = output
        paused = false
        moving = false
        framesPerSecond = 0
        frameLateness = nil
        boxProblems = []
        parts = []
        uptimeSeconds = 0
    }

    /// How many active messages a status lists.
    static let listedMessages = 200
    /// How many feed files a status lists (a folder may hold 20,000).
    static let listedFeeds = 200

    /// Fills in what the schedule says.
    mutating func update(from snapshot: ScheduleSnapshot) {
        let count = snapshot.messages.count
        messagesNotListed = count > Self.listedMessages ? count - Self.listedMessages : nil
        messages = snapshot.messages.prefix(Self.listedMessages).map {
            ActiveMessage(text: $0.text, kind: $0.kind.rawValue, start: $0.start.rfc3339, end: $0.end.rfc3339,
                          source: $0.source, priority: $0.priority)
        }
        nextChange = snapshot.validUntil.rfc3339
        orientation = snapshot.orientation
        var listed = snapshot.feeds
        if listed.count > Self.listedFeeds {
            let troubled = listed.filter { $0.state != .loaded || !$0.problems.isEmpty }
            let fine = listed.filter { $0.state == .loaded && $0.problems.isEmpty }
            listed = Array((troubled + fine).prefix(Self.listedFeeds))
        }
        feedsNotListed = snapshot.feeds.count > listed.count ? snapshot.feeds.count - listed.count : nil
        feeds = listed.map { feed in
            var state = "loaded"
            var kept = false
            if case .failed(let keptLastGood) = feed.state {
                state = "error"
                kept = keptLastGood
            }
            return Feed(path: feed.path, state: state, lastGoodKept: kept, events: feed.eventCount,
                        problems: feed.problems.map(\.description))
        }
    }
}

/// How reminders are heard, and the last ones: what `marquee status` says of sound.
package struct SoundStatus: Codable, Sendable, Hashable {
    package struct Reminder: Codable, Sendable, Hashable {
        package var text: String
        package var trigger: String
        /// `sounding`, `acknowledged`, `not acknowledged`, `missed`, `quiet at night`, `muted`.
        package var outcome: String
        /// When the outcome last changed.
        package var at: String
        package var soundings: Int
    }

    /// `alarms`, `audio-only` or `off`.
    package var speak: String
    package var device: String
    package var muted: Bool
    /// Why reminders are not heard: the device did not play the last one, or its card's mixer
    /// is turned down (nil: it played, or none was due yet).
    package var problem: String?
    /// The last reminders, newest first.
    package var reminders: [Reminder]
    /// The last one missed (or sounded without an acknowledgement), the last one acknowledged.
    package var lastMissed: Reminder?
    package var lastAcknowledged: Reminder?
    /// Of the last reminder played: milliseconds to its first sample, and to make its words.
    package var firstSampleMilliseconds: Double?
    package var synthesisMilliseconds: Double?
}

/// What marquee knows of the television over HDMI-CEC: what `marquee status` says of it.
package struct TelevisionStatus: Codable, Sendable, Hashable {
    /// The CEC adapter in use (nil: none).
    package var adapter: String?
    /// As it reported it; `unknown` when it did not answer or there is no adapter (never
    /// called off).
    package var power: TelevisionPower
    /// Whether it shows marquee's input, as the bus last said (nil: not known).
    package var showingMarquee: Bool?
    /// The input it shows instead (a physical address, `2.0.0.0`).
    package var otherInput: String?
    /// Why it was last woken (`morning`, `a reminder`…), and last put to standby (`screen_off`).
    package var lastWake: String?
    package var lastStandby: String?
    /// Why it cannot be reached (no adapter, nothing connected, no answer).
    package var problem: String?

    package init(adapter: String? = nil, power: TelevisionPower, showingMarquee: Bool? = nil, otherInput: String? = nil,
                lastWake: String? = nil, problem: String? = nil) {
        self.adapter = adapter
        self.power = power
        self.showingMarquee = showingMarquee
        self.otherInput = otherInput
        self.lastWake = lastWake
        self.problem = problem
    }

    /// One line: "on, showing marquee", "in standby", "on another input (2.0.0.0)", "not known
    /// (…)".
    package var summary: String {
        if adapter == nil { return "not reached over HDMI-CEC" + (problem.map { " (\($0))" } ?? "") }
        switch power {
        case .on, .goingOn:
            let state = power == .on ? "on" : "turning on"
            switch showingMarquee {
            case true?: return state + ", showing marquee"
            case false?: return state + ", on another input" + (otherInput.map { " (\($0))" } ?? "")
            case nil: return state
            }
        case .standby: return "in standby"
        case .goingToStandby: return "going to standby"
        case .unknown:
            guard let problem else { return "not known yet" }
            return "not known: it does not answer over HDMI-CEC (\(problem))"
        }
    }
}

/// What the display loop is doing, kept up to date by the loop and read by the control
/// socket, which computes the status when it is asked — never waiting for a frame, and never
/// older than the request.
final class DisplayState: Sendable {
    struct Shared {
        var snapshot: ScheduleSnapshot?
        var showing: [String] = []
        /// What is wrong with the box itself (`DaemonConfiguration.boxProblems`).
        var boxProblems: [String] = []
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
    }

    /// Frames per second are counted over this window.
    static let frameRateWindow: Nanoseconds = 2_000_000_000

    private let shared = Mutex(Shared())
    private let clock: any DisplayClock
    private let started: SteadyInstant

    init(clock: any DisplayClock) {
        self.clock = clock
        started = clock.steadyTime()
    }

    func update(_ change: (inout Shared) -> Void) {
        shared.withLock {
            change(&$0)
            $0.changes += 1
        }
    }

    /// A number that changes whenever anything but the frames does: a reader that saw it
    /// before knows whether to look again.
    var changes: Int {
        shared.withLock { $0.changes }
    }

    /// The part of the day the schedule last said (`night`), in English: a word for machines.
    var partOfDay: String? {
        shared.withLock { $0.snapshot?.partOfDay?.part.rawValue }
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
        return Self.atMost(count, box + feeds.flatMap(\.problems).filter { $0.severity == .error }.map(\.description)
            + subscriptions.compactMap(\.errorLine) + (sound.map { ["reminders are not heard: \($0)"] } ?? []))
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
        report.parts = state.parts
        let recent = state.frameTimes.filter { $0 > steady - Self.frameRateWindow && $0 <= steady }.count
        report.framesPerSecond = (Double(recent) / (Double(Self.frameRateWindow) / 1e9) * 10).rounded() / 10
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

/// Where the control socket is unless told otherwise: in the service's runtime folder
/// (`/run/marquee`, made by systemd for the service's user) when it may be created there,
/// else in the user's own runtime folder (`$XDG_RUNTIME_DIR`), else in a folder of the user's
/// own under `/tmp` (`marquee-UID`, mode 0700, made when missing; one that someone else made
/// is not used), so a display started by hand — over ssh, from a cron job — answers `marquee
/// status` too. `run` and the commands that ask it look in the same order.
package enum ControlSocket {
    package static let systemPath = "/run/marquee/marquee.sock"

    /// The candidates, in order.
    static func candidates(environment: [String: String], system: String, temporary: String) -> [String] {
        let runtime = environment["XDG_RUNTIME_DIR"] ?? ""
        return [system] + (runtime.hasPrefix("/") ? [runtime + "/marquee.sock"] : [])
            + [userFolder(in: temporary) + "/marquee.sock"]
    }

    /// `/tmp/marquee-UID`.
    package static func userFolder(in temporary: String) -> String {
        temporary + "/marquee-\(getuid())"
    }

    /// For `run`: the first candidate whose folder is writable — the folder under `/tmp` made
    /// if missing, and only if it is the user's own and nobody else's (nil: none is).
    package static func pathForListening(
        environment: [String: String], system: String = systemPath, temporary: String = "/tmp"
    ) -> String? {
        let own = userFolder(in: temporary)
        return candidates(environment: environment, system: system, temporary: temporary).first { path in
            let folder = splitPath(path).folder
            guard folder == own else { return access(folder, W_OK) == 0 }
            _ = mkdir(own, 0o700)
            return isPrivate(folder)
        }
    }

    /// For `status`, `pause` and `resume`: the first candidate that exists, else the first. The
    /// folder under `/tmp` is asked only if it passes the same checks as for listening: a socket
    /// another user planted there would show a false status and take the user's pause.
    package static func pathForAsking(
        environment: [String: String], system: String = systemPath, temporary: String = "/tmp"
    ) -> String {
        let own = userFolder(in: temporary)
        let candidates = candidates(environment: environment, system: system, temporary: temporary)
        var info = stat()
        return candidates.first { path in
            lstat(path, &info) == 0 && (splitPath(path).folder != own || isPrivate(own))
        } ?? candidates[0]
    }

    /// A folder (not a link to one) of this user's alone: nobody else may put a socket in it.
    private static func isPrivate(_ folder: String) -> Bool {
        var info = stat()
        return lstat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == getuid()
            && info.st_mode & 0o077 == 0
    }
}
