import Display
import Marquee
import Ledger
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
        /// What the reminder ledger says became of the reminders of the last `since` seconds
        /// (read-only, as `status`, which lists the last ten).
        case reminders
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
    /// How far back `reminders` looks, in seconds.
    package var since: Int64?

    package init(type: Kind, text: String? = nil, minutes: Int? = nil, colour: String? = nil, speak: Bool? = nil,
                 since: Int64? = nil) {
        self.type = type
        self.since = since
        self.text = text
        self.minutes = minutes
        self.colour = colour
        self.speak = speak
    }

    /// Whether the request changes what the display does (and so needs permission).
    package var isControl: Bool { type != .status && type != .reminders }
}

/// The reply: one JSON object on one line.
package struct ControlReply: Codable, Sendable {
    package var ok: Bool
    package var error: String?
    package var status: StatusReport?
    /// What the asker should know of what was done (a reload: the settings that take a restart).
    package var note: String?
    /// The ledger's reminders, oldest first, each time at its trigger's UTC offset.
    package var reminders: [SoundStatus.Reminder]?

    package init(ok: Bool, error: String? = nil, status: StatusReport? = nil, note: String? = nil,
                 reminders: [SoundStatus.Reminder]? = nil) {
        self.ok = ok
        self.reminders = reminders
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
    /// The carer's page: where it is served, or why it is not (nil: `web_listen = "off"`).
    package var page: PageStatus?
    /// The box's running parts besides the display: the socket, the watchers, the fetching,
    /// MQTT, the television; each running, failed (with why) or stopped.
    package var parts: [PartStatus]
    package var uptimeSeconds: Int

    package struct PageStatus: Codable, Sendable, Hashable {
        /// Where it is served (`0.0.0.0:8080`); nil while it is not.
        package var address: String?
        /// `home` (the home network only) or `any`.
        package var peers: String
        /// Why it is not served: no password set, an address that cannot be bound, a
        /// certificate that cannot be used.
        package var problem: String?
        /// `https` or `http` (nil: not served).
        package var scheme: String?
        /// The SHA-256 fingerprint of its certificate (`AB:CD:…`), for a carer to compare with
        /// what the browser shows (nil: plain HTTP).
        package var certificate: String?

        package init(address: String?, peers: String, problem: String? = nil, scheme: String? = nil, certificate: String? = nil) {
            (self.address, self.peers, self.problem, self.scheme, self.certificate) = (address, peers, problem, scheme, certificate)
        }
    }

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
        /// `sounding`, `acknowledged`, `not acknowledged`, `missed`, `quiet at night`, `muted`,
        /// `shown only` (`LedgerEntry.Fate`).
        package var outcome: String
        /// When the outcome last changed.
        package var at: String
        package var soundings: Int
        /// How many times it sounds at most.
        package var of: Int?
        /// Why (how late it was heard, why it was missed or only shown).
        package var why: String?
        /// Who acknowledged it: "a key", "request", "MQTT".
        package var acknowledgedBy: String?

        package init(text: String, trigger: String, outcome: String, at: String, soundings: Int, of: Int? = nil,
                     why: String? = nil, acknowledgedBy: String? = nil) {
            self.text = text
            self.trigger = trigger
            self.outcome = outcome
            self.at = at
            self.soundings = soundings
            self.of = of
            self.why = why
            self.acknowledgedBy = acknowledgedBy
        }

        /// A ledger's row, its times at the UTC offset of `utcOffset` (the trigger at its own).
        package init(_ entry: LedgerEntry, utcOffset: Int) {
            text = entry.text
            trigger = ZonedTime(instant: Instant(secondsSinceEpoch: entry.key.trigger), utcOffset: entry.triggerOffset).rfc3339
            outcome = entry.fate.rawValue
            at = ZonedTime(instant: Instant(secondsSinceEpoch: entry.changedAt), utcOffset: utcOffset).rfc3339
            soundings = entry.soundings
            of = entry.total > 0 ? entry.total : nil
            why = entry.why
            acknowledgedBy = entry.acknowledgedBy
        }

        /// What the ledger at `path` keeps of the reminders whose trigger or last change is at or
        /// after `since`, read on a read-only connection of its own, each at its trigger's offset.
        package static func inLedger(at path: String, since: Int64) throws(LedgerError) -> [Reminder] {
            try ReminderLedger(path: path, readOnly: true).entries(since: since).map { Reminder($0, utcOffset: $0.triggerOffset) }
        }
    }

    /// The reminders due on one local day: how many, and how many ended in each fate.
    package struct Day: Codable, Sendable, Hashable {
        /// `2026-11-29`.
        package var date: String
        package var due: Int
        /// By fate (`acknowledged`, `missed`…); fates none had are left out.
        package var fates: [String: Int]
        /// "4 due: 3 acknowledged, 1 missed", or "none due".
        package var summary: String

        package init(_ tally: ReminderTally) {
            date = CivilDate(daysSinceEpoch: tally.day).rfc3339
            due = tally.due
            fates = tally.fates
            summary = tally.summary
        }
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
    /// How the reminders due today and yesterday (the box's local days) fared.
    package var today: Day?
    package var yesterday: Day?
    /// Of the last reminder played: milliseconds to its first sample, and to make its words.
    package var firstSampleMilliseconds: Double?
    package var synthesisMilliseconds: Double?
    /// Which voice spoke the last reminder, and why not the chosen one.
    package var voice: VoiceStatus?
}

/// The voice of the last reminder spoken: what `marquee status` says as `sound.voice`.
package struct VoiceStatus: Codable, Sendable, Hashable {
    /// The `voice` setting (`espeak`, `piper:/…/voice.onnx`, `wyoming://host:10200`).
    package var chosen: String
    /// Who spoke: `espeak`, `piper`, `wyoming`, or `recording` (the carer's own).
    package var spoke: String
    /// Why the chosen voice did not (nil: it did, or eSpeak NG is the chosen one).
    package var whyNotChosen: String?
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
