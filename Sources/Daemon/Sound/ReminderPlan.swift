import Schedule
import Sound
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which reminders are heard, when, and what became of them — decided without a clock of its
/// own (the loop gives it the messages and the instant), so every rule is tested on a manual
/// clock. A reminder sounds at its trigger (never before, at most `lateLimit` after: one
/// missed while the box was off is said, not played hours later), once per trigger whatever
/// happens to the feed, the clock or the process (what was decided is kept across restarts,
/// `heard`), then again as its calendar's REPEAT says, or `repeatUntilAcknowledged` times,
/// until someone acknowledges it. By night only urgent reminders sound (the others when the
/// night ends, if they still show: an all-day birthday asked to be heard at midnight is heard
/// in the morning); a mute silences all. What it waits for (repeats, the morning) is kept
/// across restarts too.
struct ReminderPlan {
    /// One trigger of one reminder, whichever file holds it (a calendar saved under a new name
    /// is not heard anew).
    struct Key: Hashable, Codable, Sendable {
        /// The event's UID, or its text where it has none.
        var event: String
        var trigger: Int64
        var origin: String
    }

    /// What became of a reminder, as the status says it.
    enum Outcome: String, Codable, Sendable {
        /// Sounded; repeats may follow until it is acknowledged.
        case sounding
        case acknowledged
        /// Sounded every time without being acknowledged.
        case notAcknowledged = "not acknowledged"
        /// Its time passed while the box was off or the clock elsewhere: not played late.
        case missed
        /// Not urgent, at night: heard when the night ends if it still shows.
        case quietAtNight = "quiet at night"
        case muted
    }

    /// A reminder to play now.
    struct Due: Sendable, Equatable {
        var key: Key
        var text: String
        /// The carer's recording to play instead of the words, if it has one.
        var recording: Recording.Source?
        /// Which sounding it is (1: the first) of how many at most.
        var number: Int
        var of: Int
        var atNight: Bool
    }

    /// A reminder's story, for the status and the broker.
    struct Record: Sendable, Equatable, Codable {
        var key: Key
        var text: String
        var trigger: ZonedTime
        var outcome: Outcome
        /// When the outcome last changed.
        var at: Instant
        var soundings: Int
    }

    /// What one look decided: what to play and what to say in the journal.
    struct Decisions: Sendable, Equatable {
        var play: [Due] = []
        var journal: [String] = []
        /// Whether what is kept across a restart changed (`kept`, to be written).
        var keptChanged = false
    }

    /// The latest a reminder is played after its trigger.
    static let lateLimit: Int64 = 60
    /// How far apart repeats sound when the calendar gave no DURATION.
    static let repeatSeconds: Int64 = 300
    /// How long a decided trigger is remembered: longer than any reminder stays on screen.
    static let rememberedSeconds: Int64 = 8 * 86_400
    /// How many reminders the status lists.
    static let listed = 10

    var settings: SoundSettings
    /// Where the recordings at addresses are fetched to ahead of their time (nil: nowhere).
    let fetchedRecordings: String?
    var muted = false
    /// Every trigger decided, with when: never decided again.
    private(set) var heard: [Key: Int64]
    private(set) var recent: [Record] = []
    /// The last reminder that was missed or that nobody acknowledged, and the last one
    /// acknowledged: what a carer's phone is told.
    private(set) var lastMissed: Record?
    private(set) var lastAcknowledged: Record?

    /// A reminder that sounded and may sound again.
    fileprivate struct Waiting: Codable {
        var key: Key
        var text: String
        var urgent: Bool
        var next: Int64
        var remaining: Int
        var interval: Int64
        var soundings: Int
        var total: Int
        /// Not kept across a restart (a recording may be megabytes): found again from its
        /// message at the first look after it.
        var recording: Recording.Source?
        var recordingFound = false

        private enum CodingKeys: String, CodingKey {
            case key, text, urgent, next, remaining, interval, soundings, total
        }
    }

    private var waiting: [Waiting] = []
    /// Triggers the night kept quiet (not urgent), heard when the night ends if their message
    /// still shows.
    private var quietAtNight: Set<Key> = []

    init(settings: SoundSettings, kept: Kept = Kept(), fetchedRecordings: String? = nil) {
        self.settings = settings
        heard = kept.heard
        waiting = kept.waiting
        quietAtNight = kept.quietAtNight
        recent = kept.recent
        lastMissed = kept.lastMissed
        lastAcknowledged = kept.lastAcknowledged
        self.fetchedRecordings = fetchedRecordings
    }

    /// Looks at the messages active now and at the repeats due: what is to be played now.
    mutating func look(at messages: [Message], now: Instant, isNight: Bool) -> Decisions {
        var decisions = Decisions()
        let seconds = now.secondsSinceEpoch
        for message in messages {
            guard let sounding = message.sounding, settings.hears(sounding), sounding.trigger.instant <= now else { continue }
            let key = Key(event: message.uid.isEmpty ? message.text : message.uid,
                          trigger: sounding.trigger.instant.secondsSinceEpoch, origin: sounding.origin.rawValue)
            if let index = waiting.firstIndex(where: { $0.key == key && !$0.recordingFound }) {
                waiting[index].recording = AttachedRecording.resolve(sounding, calendar: message.source,
                                                                     fetched: fetchedRecordings).source
                waiting[index].recordingFound = true
            }
            guard heard[key] == nil else { continue }
            // Kept quiet by the night: heard in the morning if it still shows then.
            let fromTheNight = quietAtNight.contains(key)
            if isNight, !message.isUrgent, !muted, fromTheNight || seconds - key.trigger <= Self.lateLimit {
                if quietAtNight.insert(key).inserted {
                    decisions.keptChanged = true
                    note(Record(key: key, text: message.text, trigger: sounding.trigger, outcome: .quietAtNight, at: now,
                                soundings: 0))
                }
                continue
            }
            quietAtNight.remove(key)
            heard[key] = seconds
            decisions.keptChanged = true
            let outcome: Outcome
            if !fromTheNight, seconds - key.trigger > Self.lateLimit {
                outcome = .missed
                decisions.journal.append("reminder \"\(message.text)\" of \(sounding.trigger.rfc3339) was missed: "
                    + "the box was off or its clock elsewhere at that time; it is not played late")
            } else if muted {
                outcome = .muted
            } else {
                let (repeats, interval) = sounding.repeats > 0
                    ? (sounding.repeats, sounding.repeatSeconds)
                    : (settings.repeatUntilAcknowledged, Self.repeatSeconds)
                let (recording, unplayable) = AttachedRecording.resolve(sounding, calendar: message.source,
                                                                        fetched: fetchedRecordings)
                if let unplayable { decisions.journal.append("reminder \"\(message.text)\": \(unplayable); it is spoken") }
                decisions.play.append(Due(key: key, text: message.text, recording: recording, number: 1, of: repeats + 1,
                                          atNight: isNight))
                // Repeats count from the trigger; from the morning for one the night kept quiet.
                waiting.append(Waiting(key: key, text: message.text, urgent: message.isUrgent,
                                       next: (fromTheNight ? seconds : key.trigger) + interval, remaining: repeats,
                                       interval: interval, soundings: 1, total: repeats + 1, recording: recording,
                                       recordingFound: true))
                outcome = .sounding
            }
            if fromTheNight, recent.contains(where: { $0.key == key }) {
                update(key, outcome: outcome, at: seconds, soundings: outcome == .sounding ? 1 : 0)
            } else {
                note(Record(key: key, text: message.text, trigger: sounding.trigger, outcome: outcome, at: now,
                            soundings: outcome == .sounding ? 1 : 0))
            }
        }
        repeatsDue(now: seconds, isNight: isNight, into: &decisions)
        forget(before: seconds - Self.rememberedSeconds, decisions: &decisions)
        return decisions
    }

    /// Repeats whose time came; reminders that sounded all theirs without an acknowledgement
    /// (one interval after the last) become not acknowledged.
    private mutating func repeatsDue(now: Int64, isNight: Bool, into decisions: inout Decisions) {
        var kept: [Waiting] = []
        for var reminder in waiting {
            guard now >= reminder.next else {
                kept.append(reminder)
                continue
            }
            decisions.keptChanged = true
            if reminder.remaining == 0 || muted || (isNight && !reminder.urgent) {
                let outcome: Outcome = reminder.remaining == 0 ? .notAcknowledged : muted ? .muted : .quietAtNight
                update(reminder.key, outcome: outcome, at: now, soundings: reminder.soundings)
                if outcome == .notAcknowledged {
                    decisions.journal.append("reminder \"\(reminder.text)\" sounded \(times(reminder.soundings)) "
                        + "and nobody acknowledged it")
                }
                continue
            }
            // Several repeats passed at once (the clock set forward): one sounding, the rest skipped.
            while reminder.next + reminder.interval <= now, reminder.remaining > 1 {
                reminder.next += reminder.interval
                reminder.remaining -= 1
            }
            reminder.remaining -= 1
            reminder.soundings += 1
            reminder.next += reminder.interval
            decisions.play.append(Due(key: reminder.key, text: reminder.text, recording: reminder.recording,
                                      number: reminder.soundings, of: reminder.total, atNight: isNight))
            update(reminder.key, outcome: .sounding, at: now, soundings: reminder.soundings)
            kept.append(reminder)
        }
        waiting = kept
    }

    /// The next instant a repeat sounds or a reminder's time to be acknowledged ends.
    var nextDue: Instant? {
        waiting.map(\.next).min().map(Instant.init(secondsSinceEpoch:))
    }

    /// The reminders sounding now, acknowledged: their repeats stop. Their texts.
    mutating func acknowledge(at now: Instant) -> [String] {
        let acknowledged = waiting
        waiting = []
        for reminder in acknowledged {
            update(reminder.key, outcome: .acknowledged, at: now.secondsSinceEpoch, soundings: reminder.soundings)
        }
        return acknowledged.map(\.text)
    }

    /// Whether some reminder waits for an acknowledgement.
    var isWaiting: Bool { !waiting.isEmpty }

    private mutating func note(_ record: Record) {
        if record.outcome == .missed { lastMissed = record }
        recent.insert(record, at: 0)
        if recent.count > Self.listed { recent.removeLast(recent.count - Self.listed) }
    }

    private mutating func update(_ key: Key, outcome: Outcome, at now: Int64, soundings: Int) {
        guard let index = recent.firstIndex(where: { $0.key == key }) else { return }
        recent[index].outcome = outcome
        recent[index].at = Instant(secondsSinceEpoch: now)
        recent[index].soundings = soundings
        if outcome == .notAcknowledged { lastMissed = recent[index] }
        if outcome == .acknowledged { lastAcknowledged = recent[index] }
    }

    private mutating func forget(before limit: Int64, decisions: inout Decisions) {
        let old = heard.filter { $0.value < limit }
        guard !old.isEmpty else { return }
        for key in old.keys { heard[key] = nil }
        decisions.keptChanged = true
    }

    private func times(_ count: Int) -> String {
        count == 1 ? "once" : count == 2 ? "twice" : "\(count) times"
    }
}

extension ReminderPlan {
    /// What outlives a restart: every trigger decided (with when), the reminders whose repeats
    /// are still to come, and those the night keeps for the morning.
    struct Kept: Codable {
        var heard: [Key: Int64] = [:]
        fileprivate var waiting: [Waiting] = []
        var quietAtNight: Set<Key> = []
        /// What the status lists, and what a carer's phone was last told.
        var recent: [Record] = []
        var lastMissed: Record?
        var lastAcknowledged: Record?

        private enum CodingKeys: String, CodingKey {
            case heard, waiting, quietAtNight, recent, lastMissed, lastAcknowledged
        }

        init() {}

        init(from decoder: any Decoder) throws {
            // A list of decided triggers is what the first version kept.
            if let entries = try? [HeardEntry](from: decoder) {
                heard = Dictionary(entries.map { ($0.key, $0.decidedAt) }, uniquingKeysWith: max)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let entries = try container.decode([HeardEntry].self, forKey: .heard)
            heard = Dictionary(entries.map { ($0.key, $0.decidedAt) }, uniquingKeysWith: max)
            waiting = try container.decode([Waiting].self, forKey: .waiting)
            quietAtNight = try container.decode(Set<Key>.self, forKey: .quietAtNight)
            recent = try container.decode([Record].self, forKey: .recent)
            lastMissed = try container.decodeIfPresent(Record.self, forKey: .lastMissed)
            lastAcknowledged = try container.decodeIfPresent(Record.self, forKey: .lastAcknowledged)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let entries = heard.map { HeardEntry(key: $0.key, decidedAt: $0.value) }.sorted { $0.decidedAt < $1.decidedAt }
            try container.encode(entries, forKey: .heard)
            try container.encode(waiting, forKey: .waiting)
            try container.encode(quietAtNight.sorted { ($0.trigger, $0.event) < ($1.trigger, $1.event) }, forKey: .quietAtNight)
            try container.encode(recent, forKey: .recent)
            try container.encodeIfPresent(lastMissed, forKey: .lastMissed)
            try container.encodeIfPresent(lastAcknowledged, forKey: .lastAcknowledged)
        }

        /// What `encoded` wrote; nil when it cannot be read (then nothing is known as heard).
        static func decode(_ bytes: [UInt8]) -> Kept? { try? JSONDecoder().decode(Kept.self, from: Data(bytes)) }

        /// One JSON document, for the state folder.
        var encoded: [UInt8] { Array((try? JSONEncoder().encode(self)) ?? Data()) }
    }

    /// What is to be kept across a restart now.
    var kept: Kept {
        var kept = Kept()
        kept.heard = heard
        kept.waiting = waiting
        kept.quietAtNight = quietAtNight
        kept.recent = recent
        kept.lastMissed = lastMissed
        kept.lastAcknowledged = lastAcknowledged
        return kept
    }

    private struct HeardEntry: Codable {
        var key: Key
        var decidedAt: Int64
    }
}

/// Where the recording an audio alarm attaches is: what the box plays and `check` tries.
package enum AttachedRecording {
    /// The recording an alarm attaches: written into the calendar (`ENCODING=BASE64`); at an
    /// `https` (or `http`) address, as fetched ahead of its time into `fetched`; or a file in
    /// the calendar's own folder, named (`dentist.ogg`, `voices/dentist.ogg`), or by a
    /// `file://` address or an absolute path of which only the file's name counts (Thunderbird
    /// writes the path on the carer's computer; the file is copied next to the calendar).
    /// Apple's named sounds (`Chord`) are the chime: no recording, nothing to say. Anything
    /// else is not played, and why.
    package static func resolve(
        _ sounding: Sounding, calendar: String, fetched: String?
    ) -> (source: Recording.Source?, unplayable: String?) {
        if let embedded = sounding.embedded {
            return (.bytes(embedded.bytes, describedAs: "written into \(calendar)"), nil)
        }
        guard let attachment = sounding.attachment else { return (nil, nil) }
        if isAddress(attachment) {
            guard let fetched else { return (nil, "the sound at an address (ATTACH \(attachment)) is not fetched") }
            return (.file(fetchedPath(attachment, in: fetched)), nil)
        }
        let folder = splitPath(calendar).folder
        var name = attachment
        if attachment.lowercased().hasPrefix("file://") {
            name = splitPath(URL(string: attachment)?.path(percentEncoded: false) ?? "").name
        } else if attachment.contains(":") {
            return (nil, "ATTACH \(attachment) is neither a file nor an https address")
        } else if attachment.hasPrefix("/") {
            name = splitPath(attachment).name
        } else if !attachment.contains(".") {
            return (nil, nil)
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            return (nil, "ATTACH \(attachment) is not a file in the calendar's folder \(folder)")
        }
        return (.file(folder + "/" + name), nil)
    }

    /// Whether an ATTACH is a recording to fetch from a web server.
    package static func isAddress(_ attachment: String) -> Bool {
        let lowered = attachment.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Where the recording at `address` is kept once fetched: named by the address.
    static func fetchedPath(_ address: String, in folder: String) -> String {
        folder + "/" + String(stableHash(address), radix: 16) + ".sound"
    }
}
