import Ledger
import Schedule
import Support
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The box on the carers' broker: its availability (with a last will), what it shows as one
/// retained JSON document published when it changes, the commands it obeys (pause, resume,
/// refresh the calendars) answered on a result topic, and Home Assistant's discovery of it as
/// one device. Runs on the MQTT connection's thread; it reads the display's state and posts
/// commands to the loop's mailbox, so the display never waits on it.
final class MQTTBridge: Sendable {
    /// The box's topics under its base topic.
    struct Topics: Sendable, Hashable {
        let base: String
        var availability: String { base + "/availability" }
        var state: String { base + "/state" }
        var pausedCommand: String { base + "/paused/set" }
        var refreshCommand: String { base + "/refresh/press" }
        /// A message sent now, and taking it off.
        var sayCommand: String { base + "/say/set" }
        var clearCommand: String { base + "/say/clear" }
        /// The reminders' mute, and an acknowledgement of the one sounding.
        var mutedCommand: String { base + "/muted/set" }
        var acknowledgeCommand: String { base + "/acknowledge/press" }
        var wakeCommand: String { base + "/wake/press" }
        var result: String { base + "/result" }
        /// When the calendar subscription at `index` was last fetched, retained, once it was.
        func calendarUpdated(_ index: Int) -> String { base + "/calendar/\(index + 1)/updated" }
        /// The screen as a PNG picture, retained.
        var screen: String { base + "/screen" }
        /// Each change of a reminder's fate as it happens (not retained): Home Assistant's event.
        var reminder: String { base + "/reminder" }
    }

    let topics: Topics
    private let settings: MQTTSettings
    private let version: String
    private let state: DisplayState
    private let mailbox: EventMailbox
    private let log: EventLog
    /// Where messages sent now are kept (nil: no state folder, so none is taken).
    private let said: SaidNow?
    private let clock: any BoxClock
    /// The state document last published, and the state's change count it was made at.
    private let published = Mutex<(changes: Int, document: [UInt8])?>(nil)
    /// How many calendars' sensors Home Assistant was told of (nil: not connected yet).
    private let announcedSubscriptions = Mutex<Int?>(nil)
    /// The connection's status last told, so the journal says only what changed.
    private let lastStatus = Mutex<MQTTStatus?>(nil)
    /// The calendars' last successes published, by index.
    private let publishedUpdates = Mutex<[Int: String]>([:])
    /// How many of this run's changes of reminders' fates were published.
    private let publishedReminderChanges = Mutex(0)
    /// The latest picture of the screen, and whether it still has to be published.
    private let picture = Mutex<(bytes: [UInt8], isNew: Bool)?>(nil)
    private let commands = Mutex(CommandBudget())
    /// Why the configuration file cannot be used for a reload (nil: it can, or none is read).
    private let checkConfiguration: (@Sendable () -> ReloadCheck)?
    /// Problems of the commands themselves (a message that could not be taken off), said with
    /// the box's problems until a command succeeds.
    private let commandProblem = Mutex<String?>(nil)

    init(settings: MQTTSettings, version: String, state: DisplayState, mailbox: EventMailbox, log: EventLog,
         said: SaidNow? = nil, clock: any BoxClock = SystemClock(),
         checkConfiguration: (@Sendable () -> ReloadCheck)? = nil) {
        self.said = said
        self.checkConfiguration = checkConfiguration
        self.clock = clock
        self.settings = settings
        topics = Topics(base: settings.topic)
        self.version = version
        self.state = state
        self.mailbox = mailbox
        self.log = log
    }

    /// What the connection does with this bridge.
    var session: MQTTConnection.Session {
        MQTTConnection.Session(
            connected: { [self] in connected($0) },
            received: { [self] in received($0, topic: $1, payload: $2, retained: $3) },
            tick: { [self] in publishChanges($0) },
            statusChanged: { [self] status in
                state.update { $0.mqtt = status }
                // Said when it changes: trying again ("connecting") does not say the last error again.
                let before = lastStatus.withLock { last in
                    defer { last = status }
                    return last
                }
                if status.connected, before?.connected != true {
                    log.log(.notice, "MQTT: connected to \(status.broker) as \(topics.base)")
                } else if !status.connected, let error = status.lastError,
                          error != before?.lastError || before?.connected == true {
                    log.log(.warning, "MQTT: \(error)")
                }
            })
    }

    /// `offline`, left with the broker as the last will and said on a clean stop.
    static let offline = "offline"

    // MARK: - On the connection's thread

    private func connected(_ connection: MQTTConnection) {
        // Commands first: once `online` is seen, a command sent is heard (the broker takes a
        // connection's packets in order).
        if settings.commands {
            for topic in [topics.pausedCommand, topics.refreshCommand, topics.sayCommand, topics.clearCommand,
                          topics.mutedCommand, topics.acknowledgeCommand, topics.wakeCommand] {
                connection.subscribe(topic)
            }
        }
        connection.publish(topics.availability, "online", retain: true)
        let subscriptions = state.subscriptions.count
        for (topic, config) in boxEntities() + (0..<subscriptions).map(calendarEntity) {
            connection.publish(topic, settings.discovery ? config : [], retain: true)
            // What an earlier version announced under the id without the hash goes.
            connection.publish(topic.replacing("/\(settings.nodeID)/", with: "/\(settings.formerNodeID)/"), [], retain: true)
        }
        announcedSubscriptions.withLock { $0 = subscriptions }
        published.withLock { $0 = nil }
        publishedUpdates.withLock { $0 = [:] }
        picture.withLock { $0?.isNew = true }
        publishChanges(connection)
    }

    /// A new picture of the screen, published at the connection's next turn.
    func offer(picture bytes: [UInt8]) {
        picture.withLock { $0 = (bytes, true) }
    }

    private func publishChanges(_ connection: MQTTConnection) {
        let changes = state.changes
        let subscriptions = state.subscriptions.count
        if settings.discovery, let announced = announcedSubscriptions.withLock({ $0 }), announced != subscriptions {
            // Calendars became known (or went): their "last updated" sensors come and go.
            for index in min(announced, subscriptions)..<max(announced, subscriptions) {
                let (topic, config) = calendarEntity(index)
                connection.publish(topic, index < subscriptions ? config : [], retain: true)
            }
            announcedSubscriptions.withLock { $0 = subscriptions }
        }
        // Before the first frame what is shown is not known: an empty state would be a lie.
        if state.hasDrawn, published.withLock({ $0?.changes != changes }) {
            let document = stateDocument()
            if published.withLock({ $0?.document == document }) || connection.publish(topics.state, document, retain: true) {
                published.withLock { $0 = (changes, document) }
            }
            // A calendar's last success on a topic of its own, once there is one: its timestamp
            // sensor is never sent a value that is not a time.
            for (index, subscription) in state.subscriptions.enumerated() {
                guard let success = subscription.lastSuccess, publishedUpdates.withLock({ $0[index] }) != success else { continue }
                if connection.publish(topics.calendarUpdated(index), Array(success.utf8), retain: true) {
                    publishedUpdates.withLock { $0[index] = success }
                }
            }
        }
        publishReminderChanges(connection)
        if let new = picture.withLock({ $0?.isNew == true ? $0?.bytes : nil }),
           connection.publish(topics.screen, new, retain: true) {
            picture.withLock { if $0?.bytes == new { $0?.isNew = false } }
        }
    }

    /// Each change of a reminder's fate since the last one published, in order, as an event
    /// (`{"event_type": "missed", "text": …}`); one the broker did not take is tried again at the
    /// next turn, and those that happened while the broker was away follow when it is back.
    private func publishReminderChanges(_ connection: MQTTConnection) {
        let (changes, count) = state.reminderChanges(after: publishedReminderChanges.withLock { $0 })
        var published = count - changes.count
        defer { publishedReminderChanges.withLock { $0 = published } }
        for change in changes {
            guard connection.publish(topics.reminder, Self.encode(ReminderEvent(change)), retain: false) else { return }
            published += 1
        }
    }

    /// A reminder's change of fate as Home Assistant's event entity takes it: the status's
    /// fields and `event_type`, the fate in Home Assistant's spelling (`not_acknowledged`).
    struct ReminderEvent: Encodable, Sendable {
        let reminder: SoundStatus.Reminder

        init(_ reminder: SoundStatus.Reminder) {
            self.reminder = reminder
        }

        private enum Key: String, CodingKey { case event_type }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(Self.eventType(reminder.outcome), forKey: .event_type)
            try reminder.encode(to: encoder)
        }

        static func eventType(_ fate: String) -> String { fate.replacing(" ", with: "_") }
        static let eventTypes = LedgerEntry.Fate.allCases.map { eventType($0.rawValue) }
    }

    private func received(_ connection: MQTTConnection, topic: String, payload: [UInt8], retained: Bool) {
        // An empty message is no command: it is how a retained one is taken off the broker.
        guard !payload.isEmpty else { return }
        if retained {
            // Kept by the broker, it would be obeyed again at every connection (a cleared
            // message back with a fresh hour, a pause a carer lifted here): never obeyed, and
            // taken off the broker.
            connection.publish(topic, [], retain: true)
            let error = "a retained command is not obeyed (it would be again at every connection); taken off the broker"
            log.log(.warning, "MQTT: \(topic): \(error)")
            connection.publish(topics.result, Self.encode(CommandResult(topic: topic, ok: false, command: nil, error: error)),
                               retain: true)
            return
        }
        let outcome = obey(topic: topic, payload: payload)
        if outcome.error == nil { noteCommandProblem(nil) }
        if let error = outcome.error, outcome.sayInJournal { log.log(.warning, "MQTT: \(topic): \(error)") }
        let result = CommandResult(topic: topic, ok: outcome.error == nil, command: outcome.command, error: outcome.error)
        // Retained, so Home Assistant's "Last command" sensor has it after its own restart.
        connection.publish(topics.result, Self.encode(result), retain: true)
    }

    /// The answer to a command, on the result topic.
    struct CommandResult: Codable, Sendable, Hashable {
        var topic: String
        var ok: Bool
        var command: String?
        var error: String?
    }

    /// Carries out one command, or says why not.
    private func obey(topic: String, payload: [UInt8]) -> (command: String?, error: String?, sayInJournal: Bool) {
        switch commands.withLock({ $0.spend(at: ContinuousClock.now) }) {
        case .refused(let firstTime): return (nil, "too many commands (more than \(CommandBudget.size) in \(CommandBudget.window)); ignored", firstTime)
        case .allowed: break
        }
        switch topic {
        case topics.sayCommand:
            switch SaidNow.request(from: payload) {
            case .failure(let refusal): return (nil, refusal.description, true)
            case .success(let request):
                guard let said else { return (nil, "a message sent now needs a state folder (state_dir) to be kept in", true) }
                if let problem = said.say(request, at: clock.wallTime().instant) { return (nil, problem, true) }
                log.log(.notice, "MQTT: showing a message sent now for \(request.minutes ?? SaidNow.defaultMinutes) minutes")
                mailbox.post(.feedsChanged)
                return ("say", nil, false)
            }
        case topics.clearCommand:
            let problem = said?.clear()
            noteCommandProblem(problem)
            mailbox.post(.feedsChanged)
            return problem.map { (nil, $0, true) } ?? ("clear", nil, false)
        default:
            break
        }
        guard payload.count <= 64 else { return (nil, "a command is a word (ON, OFF, PRESS), not \(payload.count) bytes", true) }
        guard let word = String(validating: payload, as: UTF8.self) else { return (nil, "the command is not UTF-8 text", true) }
        let command = word.trimmingCharacters(in: " \t\r\n").uppercased()
        /// A switch's command: ON (or the word of `on`) and OFF (or the word of `off`).
        func switched(_ on: ControlRequest.Kind, _ off: ControlRequest.Kind) -> (String?, String?, Bool) {
            let kind: ControlRequest.Kind? = switch command {
            case "ON", on.rawValue.uppercased(): on
            case "OFF", off.rawValue.uppercased(): off
            default: nil
            }
            guard let kind else { return (nil, "\(topic) takes ON or OFF", true) }
            mailbox.post(.control(kind))
            return (kind.rawValue, nil, false)
        }
        switch topic {
        case topics.pausedCommand:
            return switched(.pause, .resume)
        case topics.mutedCommand:
            return switched(.mute, .unmute)
        case topics.acknowledgeCommand:
            mailbox.post(.control(.acknowledge))
            return (ControlRequest.Kind.acknowledge.rawValue, nil, false)
        case topics.wakeCommand:
            mailbox.post(.control(.wake))
            return (ControlRequest.Kind.wake.rawValue, nil, false)
        case topics.refreshCommand:
            // As the socket's reload: a configuration that cannot be used is the answer, and
            // nothing is reloaded (it answered ok and the journal said "keeping the previous").
            if case .unusable(let problem)? = checkConfiguration?() {
                noteCommandProblem("refresh: \(problem); nothing was reloaded")
                // The check said it in the journal already.
                return (nil, "\(problem); nothing was reloaded", false)
            }
            mailbox.post(.control(.reload))
            return ("refresh", nil, false)
        default:
            return (nil, "not a command topic", true)
        }
    }

    /// A command's failure stays among the published problems until a command succeeds.
    private func noteCommandProblem(_ problem: String?) {
        let changed = commandProblem.withLock { current in
            defer { current = problem }
            return current != problem
        }
        if changed { state.update { _ in } }
    }

    // MARK: - What is published

    /// What the box shows and how it is, the same facts as `marquee status`: the texts on
    /// screen, the orientation line, paused, the part of the day, the output, the problems,
    /// each subscription's last success, the version. Keys sorted, so a change of nothing
    /// publishes nothing.
    func stateDocument() -> [UInt8] {
        let report = state.report
        let document = StateDocument(
            showing: report.showing, showingText: Self.truncated(report.showing.joined(separator: " • "), to: 255),
            sayingNow: report.messages.first { SaidNow.isSaidNow($0.source) }?.text ?? "",
            orientation: report.orientation, paused: report.paused, partOfDay: state.partOfDay, output: report.output,
            problems: (commandProblem.withLock { $0 }.map { ["MQTT: \($0)"] } ?? []) + state.errors(atMost: Self.listedProblems),
            warnings: state.warnings(atMost: Self.listedProblems),
            subscriptions: report.subscriptions.map { .init(address: $0.address, lastSuccess: $0.lastSuccess, error: $0.error) },
            muted: report.sound?.muted, lastMissedReminder: report.sound?.lastMissed,
            lastAcknowledgedReminder: report.sound?.lastAcknowledged,
            remindersToday: report.sound?.today, remindersYesterday: report.sound?.yesterday,
            television: report.television.map { StateDocument.Television(state: $0.summary, status: $0) },
            screen: report.screen.map { StateDocument.Screen(state: $0.summary, status: $0) }, version: version)
        return Self.encode(document)
    }

    /// How many errors and how many warnings the state lists (then how many more): the
    /// document stays small whatever a folder holds.
    static let listedProblems = 20

    struct StateDocument: Codable, Sendable, Hashable {
        struct Subscription: Codable, Sendable, Hashable {
            var address: String
            var lastSuccess: String?
            var error: String?
        }

        var showing: [String]
        /// The texts joined, at most 255 characters (a Home Assistant state's limit).
        var showingText: String
        /// The message sent now while it shows ("" when none does): the box's own word on it.
        var sayingNow: String
        var orientation: String?
        var paused: Bool
        var partOfDay: String?
        var output: String
        /// The feeds' and subscriptions' errors, one line each: what keeps a file or a
        /// calendar from being used, what the screen shows when it shows problems.
        var problems: [String]
        /// The feeds' warnings: something ignored or repaired, the rest used.
        var warnings: [String]
        var subscriptions: [Subscription]
        /// Whether the reminders are muted (nil: no sound), the last one missed or sounded
        /// without an acknowledgement, the last one acknowledged.
        var muted: Bool?
        var lastMissedReminder: SoundStatus.Reminder?
        var lastAcknowledgedReminder: SoundStatus.Reminder?
        /// How the reminders due today and yesterday fared (nil: no sound).
        var remindersToday: SoundStatus.Day?
        var remindersYesterday: SoundStatus.Day?
        /// The television over HDMI-CEC (nil: `cec = "off"`): its status line and its fields.
        var television: Television?
        /// The screen itself: on, dark for `screen_off`, or lit within it; its line and fields.
        var screen: Screen?
        var version: String

        struct Television: Codable, Sendable, Hashable {
            var state: String
            var status: TelevisionStatus
        }

        struct Screen: Codable, Sendable, Hashable {
            var state: String
            var status: ScreenStatus
        }
    }

    /// One entity's discovery configuration and its topic
    /// (`homeassistant/<component>/<node>/<object>/config`), all of them one device.
    private func entity(_ component: String, _ object: String, _ name: String, configure: (inout DiscoveryConfig) -> Void)
        -> (topic: String, config: [UInt8]) {
        let node = settings.nodeID
        let device = DiscoveryConfig.Device(identifiers: [node], name: settings.name, manufacturer: "marquee",
                                            model: "marquee calendar ticker", sw_version: version)
        // object_id for the Home Assistant of today, default_entity_id for those from 2025.10 on.
        var config = DiscoveryConfig(
            name: name, unique_id: "\(node)_\(object)", object_id: "\(node)_\(object)",
            default_entity_id: "\(component).\(node)_\(object)", availability_topic: topics.availability, device: device)
        configure(&config)
        return ("homeassistant/\(component)/\(node)/\(object)/config", Self.encode(config))
    }

    /// Home Assistant's discovery configurations of the box's own entities; an entity the box
    /// does not offer (those that command it, when it obeys no commands) has an empty one,
    /// which removes what an earlier run announced.
    func boxEntities() -> [(topic: String, config: [UInt8])] {
        /// The pause as the state says it: a switch's state, or a binary sensor's.
        let pausedState: (inout DiscoveryConfig) -> Void = { [topics] in
            $0.state_topic = topics.state
            $0.value_template = "{{ 'ON' if value_json.paused else 'OFF' }}"
            $0.icon = "mdi:pause-circle-outline"
        }
        let commanding: [(topic: String, config: [UInt8])] = [
            entity("switch", "paused", "Paused") {
                pausedState(&$0)
                $0.command_topic = topics.pausedCommand
            },
            entity("text", "say", "Say now") {
                $0.command_topic = topics.sayCommand
                // What the box says it shows, not what was typed last (refused, cleared, ended).
                $0.state_topic = topics.state
                $0.value_template = "{{ value_json.sayingNow }}"
                $0.max = SaidNow.longestText
                $0.icon = "mdi:message-alert-outline"
            },
            entity("sensor", "last_command", "Last command") {
                $0.state_topic = topics.result
                $0.value_template = "{{ ('ok: ' ~ value_json.command) if value_json.ok else (value_json.error or 'refused')[:250] }}"
                $0.json_attributes_topic = topics.result
                $0.icon = "mdi:console-line"
                $0.entity_category = "diagnostic"
            },
            entity("button", "clear", "Clear message") {
                $0.command_topic = topics.clearCommand
                $0.payload_press = "PRESS"
                $0.icon = "mdi:message-off-outline"
                $0.entity_category = "config"
            },
            entity("switch", "muted", "Reminders muted") {
                $0.state_topic = topics.state
                $0.value_template = "{{ 'ON' if value_json.muted else 'OFF' }}"
                $0.command_topic = topics.mutedCommand
                $0.icon = "mdi:volume-off"
            },
            entity("button", "acknowledge", "Acknowledge reminder") {
                $0.command_topic = topics.acknowledgeCommand
                $0.payload_press = "PRESS"
                $0.icon = "mdi:bell-check-outline"
            },
            entity("button", "refresh", "Refresh calendars") {
                $0.command_topic = topics.refreshCommand
                $0.payload_press = "PRESS"
                $0.icon = "mdi:calendar-refresh"
                $0.entity_category = "config"
            },
        ]
        let pausedShown = entity("binary_sensor", "paused", "Paused", configure: pausedState)
        let offered = settings.commands ? commanding + [(pausedShown.topic, [])]
                                        : commanding.map { ($0.topic, []) } + [pausedShown]
        return offered + [
            entity("sensor", "showing", "Showing") {
                $0.state_topic = topics.state
                $0.value_template = "{{ value_json.showingText }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ {'messages': value_json.showing} | tojson }}"
                $0.icon = "mdi:message-text-outline"
            },
            entity("sensor", "orientation", "Orientation") {
                $0.state_topic = topics.state
                $0.value_template = "{{ value_json.orientation or '' }}"
                $0.icon = "mdi:calendar-today"
            },
            entity("sensor", "part_of_day", "Part of day") {
                $0.state_topic = topics.state
                $0.value_template = "{{ value_json.partOfDay or '' }}"
                $0.icon = "mdi:weather-sunset"
            },
            entity("binary_sensor", "problem", "Problem") {
                $0.state_topic = topics.state
                $0.value_template = "{{ 'ON' if value_json.problems else 'OFF' }}"
                $0.device_class = "problem"
                $0.entity_category = "diagnostic"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ {'problems': value_json.problems, 'warnings': value_json.warnings} | tojson }}"
            },
            entity("sensor", "last_missed_reminder", "Last missed reminder") {
                $0.state_topic = topics.state
                $0.value_template = "{{ (value_json.lastMissedReminder.text if value_json.lastMissedReminder else '')[:255] }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ (value_json.lastMissedReminder or {}) | tojson }}"
                $0.icon = "mdi:bell-alert-outline"
            },
            entity("sensor", "last_acknowledged_reminder", "Last acknowledged reminder") {
                $0.state_topic = topics.state
                $0.value_template = "{{ (value_json.lastAcknowledgedReminder.text if value_json.lastAcknowledgedReminder else '')[:255] }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ (value_json.lastAcknowledgedReminder or {}) | tojson }}"
                $0.icon = "mdi:bell-check-outline"
            },
            entity("event", "reminder", "Reminder") {
                $0.state_topic = topics.reminder
                $0.event_types = ReminderEvent.eventTypes
                $0.icon = "mdi:bell-ring-outline"
            },
            entity("sensor", "reminders_today", "Reminders today") {
                $0.state_topic = topics.state
                $0.value_template = "{{ value_json.remindersToday.summary if value_json.remindersToday else '' }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template =
                    "{{ {'today': value_json.remindersToday, 'yesterday': value_json.remindersYesterday} | tojson }}"
                $0.icon = "mdi:bell-badge-outline"
            },
            entity("sensor", "screen_state", "Screen state") {
                $0.state_topic = topics.state
                $0.value_template = "{{ (value_json.screen.state if value_json.screen else 'not known yet')[:255] }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ (value_json.screen.status if value_json.screen else {}) | tojson }}"
                $0.icon = "mdi:monitor"
            },
            entity("button", "wake", "Wake the screen") {
                $0.command_topic = topics.wakeCommand
                $0.icon = "mdi:television-play"
            },
            entity("sensor", "television", "Television") {
                $0.state_topic = topics.state
                $0.value_template = "{{ (value_json.television.state if value_json.television else 'not reached')[:255] }}"
                $0.json_attributes_topic = topics.state
                $0.json_attributes_template = "{{ (value_json.television.status if value_json.television else {}) | tojson }}"
                $0.icon = "mdi:television"
            },
            entity("image", "screen", "Screen") {
                $0.image_topic = topics.screen
                $0.content_type = "image/png"
            },
        ]
    }

    /// The "last updated" sensor of the calendar subscription at `index`.
    func calendarEntity(_ index: Int) -> (topic: String, config: [UInt8]) {
        entity("sensor", "calendar_\(index + 1)_updated", "Calendar \(index + 1) updated") {
            $0.state_topic = topics.calendarUpdated(index)
            $0.device_class = "timestamp"
            $0.entity_category = "diagnostic"
            $0.json_attributes_topic = topics.state
            $0.json_attributes_template = "{{ value_json.subscriptions[\(index)] | tojson "
                + "if value_json.subscriptions | length > \(index) else '{}' }}"
            $0.icon = "mdi:calendar-sync"
        }
    }

    /// One entity's discovery payload: Home Assistant's documented keys, spelled as it spells them.
    struct DiscoveryConfig: Codable, Sendable, Hashable {
        struct Device: Codable, Sendable, Hashable {
            var identifiers: [String]
            var name: String
            var manufacturer: String
            var model: String
            var sw_version: String
        }

        var name: String
        var unique_id: String
        var object_id: String
        var default_entity_id: String
        var availability_topic: String
        var device: Device
        var state_topic: String?
        var value_template: String?
        var command_topic: String?
        var payload_press: String?
        var json_attributes_topic: String?
        var json_attributes_template: String?
        var device_class: String?
        var image_topic: String?
        /// A text entity's longest text (Home Assistant's limit is 255).
        var max: Int?
        var content_type: String?
        /// An event entity's kinds of event.
        var event_types: [String]?
        var icon: String?
        /// `config` for what changes how the box works, `diagnostic` for what tells of its health.
        var entity_category: String?
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data())
    }

    /// At most `limit` characters as Home Assistant counts them (code points), the last of them
    /// `…` when cut; never inside a character as a person sees it (a family emoji is 7).
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var kept = ""
        var count = 0
        for character in text {
            let size = character.unicodeScalars.count
            guard count + size <= limit - 1 else { break }
            kept.append(character)
            count += size
        }
        return kept + "…"
    }
}

/// At most `size` commands in any `window`: a flood is refused, and said once while it lasts.
struct CommandBudget {
    static let size = 20
    static let window = Duration.seconds(10)
    private var recent: [ContinuousClock.Instant] = []
    private var refusing = false

    enum Outcome: Equatable { case allowed, refused(firstTime: Bool) }

    mutating func spend(at now: ContinuousClock.Instant) -> Outcome {
        recent.removeAll { now - $0 >= Self.window }
        guard recent.count < Self.size else {
            defer { refusing = true }
            return .refused(firstTime: !refusing)
        }
        refusing = false
        recent.append(now)
        return .allowed
    }
}
