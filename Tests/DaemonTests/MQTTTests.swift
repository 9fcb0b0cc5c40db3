import DaemonTestKit
import Foundation
import LoopbackServers
import Display
import Ledger
import Marquee
import Schedule
import TestSupport
import Synchronization
import Support
import Testing

@testable import Daemon

/// The box on a real broker (Debian's mosquitto on loopback, with a password and TLS from the
/// test's own authority), looked at with mosquitto_sub as a carer's Home Assistant would.
@Suite(.tier(.live, needs: [.program("/usr/sbin/mosquitto"), .program("/usr/bin/mosquitto_sub")]))
struct MQTTTests {
    let broker: LoopbackBroker
    let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
    let mailbox = EventMailbox()
    let log = EventLog(environment: [:], descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC))
    let state: DisplayState
    /// Each test's own base topic: the broker's retained messages never leak between tests.
    let topic = "marquee/test-\(UUID().uuidString.prefix(8).lowercased())"

    init() throws {
        broker = try LoopbackBroker()
        state = DisplayState(clock: clock)
        state.update {
            $0.showing = ["Bins out tonight", "Johnny's birthday"]
            $0.output = "recording screen 40x1"
        }
        Self.drawAFrame(state)
    }

    static func drawAFrame(_ state: DisplayState) {
        state.frameDrawn(at: SteadyInstant(sinceOrigin: 1), lateness: nil, moving: false, inView: [], glyphCache: nil)
    }

    func settings(_ address: String? = nil, password: String? = nil, discovery: Bool = true, commands: Bool = true) throws
        -> MQTTSettings {
        try MQTTSettings(
            address: address ?? "mqtts://\(broker.user)@127.0.0.1:\(broker.tlsPort)", passwordFile: password ?? broker.passwordFile,
            certificateAuthorities: broker.certificateAuthorities, topic: topic, discovery: discovery, name: "Kitchen",
            commands: commands, hostname: "kitchen")
    }

    func service(_ settings: MQTTSettings) -> MQTTService {
        MQTTService(settings: settings, version: "9.9.9", state: state, mailbox: mailbox, log: log)
    }

    func json(_ text: String?) throws -> [String: Any] {
        let text = try #require(text)
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Over TLS with a password: `online` retained, the state as one retained document that
    /// follows a change, Home Assistant's discovery configs; `offline` on a
    /// clean stop; the status says the connection.
    @Test func theBoxAppearsOnTheBrokerWithItsStateAndEntities() async throws {
        let mqtt = service(try settings())
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" }, "\(String(describing: state.report.mqtt))")
        let document = try json(try broker.retained(topic + "/state"))
        #expect(document["showing"] as? [String] == ["Bins out tonight", "Johnny's birthday"])
        #expect(document["showingText"] as? String == "Bins out tonight • Johnny's birthday")
        #expect(document["paused"] as? Bool == false)
        #expect(document["version"] as? String == "9.9.9")
        #expect(document["output"] as? String == "recording screen 40x1")
        #expect(state.report.mqtt?.connected == true)
        #expect(state.report.mqtt?.broker == "mqtts://carer@127.0.0.1:\(broker.tlsPort)")

        state.update { $0.showing = ["It's night-time"]; $0.paused = true }
        #expect(try await eventually {
            let changed = try json(try broker.retained(topic + "/state"))
            return changed["showing"] as? [String] == ["It's night-time"] && changed["paused"] as? Bool == true
        })

        let node = try settings().nodeID
        let paused = try json(try broker.retained("homeassistant/switch/\(node)/paused/config"))
        #expect(paused["command_topic"] as? String == topic + "/paused/set")
        #expect(paused["state_topic"] as? String == topic + "/state")
        #expect(paused["availability_topic"] as? String == topic + "/availability")
        #expect(paused["unique_id"] as? String == node + "_paused")
        let device = try #require(paused["device"] as? [String: Any])
        #expect(device["name"] as? String == "Kitchen" && device["identifiers"] as? [String] == [node])
        #expect(paused["default_entity_id"] as? String == "switch.\(node)_paused" && paused["object_id"] as? String == node + "_paused")
        let problem = try json(try broker.retained("homeassistant/binary_sensor/\(node)/problem/config"))
        #expect(problem["device_class"] as? String == "problem" && problem["entity_category"] as? String == "diagnostic")
        #expect(try json(try broker.retained("homeassistant/button/\(node)/refresh/config"))["entity_category"] as? String == "config")
        let say = try json(try broker.retained("homeassistant/text/\(node)/say/config"))
        #expect(say["state_topic"] as? String == topic + "/state" && say["max"] as? Int == 255)
        let lastCommand = try json(try broker.retained("homeassistant/sensor/\(node)/last_command/config"))
        #expect(lastCommand["state_topic"] as? String == topic + "/result")
        #expect(try broker.retained("homeassistant/button/\(node)/refresh/config") != nil)
        #expect(try broker.retained("homeassistant/sensor/\(node)/showing/config") != nil)
        // The television as the status says it, its fields as attributes.
        let television = try json(try broker.retained("homeassistant/sensor/\(node)/television/config"))
        #expect(television["state_topic"] as? String == topic + "/state")
        state.update {
            $0.television = TelevisionStatus(adapter: "/dev/cec1", power: .standby)
            $0.version += 1
        }
        #expect(try await eventually {
            let changed = try json(try broker.retained(topic + "/state"))
            let reported = changed["television"] as? [String: Any]
            return reported?["state"] as? String == "in standby"
                && (reported?["status"] as? [String: Any])?["power"] as? String == "standby"
        })
        // The screen likewise: dark for screen_off, its line the state, its fields attributes.
        let screen = try json(try broker.retained("homeassistant/sensor/\(node)/screen_state/config"))
        #expect(screen["state_topic"] as? String == topic + "/state" && screen["json_attributes_topic"] as? String == topic + "/state")
        state.update {
            $0.screen = ScreenStatus(state: .dark, darkUntil: "2026-11-24T06:30:00+01:00", darkBy: "powered down (DPMS)")
            $0.version += 1
        }
        #expect(try await eventually {
            let changed = try json(try broker.retained(topic + "/state"))
            let reported = changed["screen"] as? [String: Any]
            return reported?["state"] as? String == "dark until 06:30 (screen_off)"
                && (reported?["status"] as? [String: Any])?["darkBy"] as? String == "powered down (DPMS)"
        })

        await mqtt.stop()
        #expect(try broker.retained(topic + "/availability") == "offline")
    }

    /// Commands from the broker reach the display's mailbox as the socket's do; one it does not
    /// know is answered on the result topic and changes nothing.
    @Test func commandsReachTheDisplay() async throws {
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        var seen: [DisplayEvent] = []
        func received(_ wanted: ControlRequest.Kind) async -> Bool {
            await eventually(within: .seconds(10)) {
                seen += mailbox.take()
                return seen.contains { if case .control(wanted) = $0 { true } else { false } }
            }
        }
        try broker.publish(topic + "/paused/set", "ON")
        #expect(await received(.pause))
        try broker.publish(topic + "/paused/set", "OFF")
        #expect(await received(.resume))
        try broker.publish(topic + "/refresh/press", "PRESS")
        #expect(await received(.reload))
        try broker.publish(topic + "/muted/set", "ON")
        #expect(await received(.mute))
        try broker.publish(topic + "/muted/set", "OFF")
        #expect(await received(.unmute))
        try broker.publish(topic + "/acknowledge/press", "PRESS")
        #expect(await received(.acknowledge))
        try broker.publish(topic + "/wake/press", "PRESS")
        #expect(await received(.wake))
        seen = []
        try broker.publish(topic + "/paused/set", "sometimes")
        try broker.publish(topic + "/refresh/press", "PRESS")
        #expect(await received(.reload))
        #expect(!seen.contains { if case .control(.pause) = $0 { true } else { false } })
    }

    /// The reminders as a carer's phone is told them: muted or not, the last one missed (with
    /// its time) and the last one acknowledged, and the switch and the button beside them.
    @Test func theRemindersFateIsPublished() async throws {
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        let missed = SoundStatus.Reminder(text: "Take the heart pills", trigger: "2026-11-23T21:00:00+01:00",
                                          outcome: "not acknowledged", at: "2026-11-23T21:15:00+01:00", soundings: 3)
        state.update {
            $0.sound = SoundStatus(speak: "alarms", device: "default", muted: true, reminders: [missed], lastMissed: missed)
        }
        #expect(try await eventually {
            let document = try json(try broker.retained(topic + "/state"))
            let last = document["lastMissedReminder"] as? [String: Any]
            return document["muted"] as? Bool == true && last?["text"] as? String == "Take the heart pills"
                && last?["at"] as? String == "2026-11-23T21:15:00+01:00" && last?["outcome"] as? String == "not acknowledged"
        })
        let node = try settings().nodeID
        let muted = try json(try broker.retained("homeassistant/switch/\(node)/muted/config"))
        #expect(muted["command_topic"] as? String == topic + "/muted/set")
        let acknowledge = try json(try broker.retained("homeassistant/button/\(node)/acknowledge/config"))
        #expect(acknowledge["command_topic"] as? String == topic + "/acknowledge/press")
        let sensor = try json(try broker.retained("homeassistant/sensor/\(node)/last_missed_reminder/config"))
        #expect(sensor["state_topic"] as? String == topic + "/state")
        #expect(try broker.retained("homeassistant/sensor/\(node)/last_acknowledged_reminder/config") != nil)
    }

    /// Each change of a reminder's fate reaches the carer's Home Assistant as an event, in
    /// order, those from while the broker was away too; today's reminders are summed on a sensor.
    @Test func eachFateIsAnEventAndTheDayIsSummed() async throws {
        func reminder(_ outcome: String, _ at: String) -> SoundStatus.Reminder {
            SoundStatus.Reminder(text: "Pills now, Anna", trigger: "2026-11-23T21:00:00+01:00", outcome: outcome, at: at,
                                 soundings: outcome == "missed" ? 0 : 1, of: 3,
                                 why: outcome == "missed" ? "the box was off at its time" : nil,
                                 acknowledgedBy: outcome == "acknowledged" ? "a key" : nil)
        }
        let events = try broker.listen(topic + "/reminder")
        // Before the box reached the broker.
        state.update { $0.noteReminderChanges([reminder("sounding", "2026-11-23T21:00:00+01:00"),
                                               reminder("acknowledged", "2026-11-23T21:00:40+01:00")]) }
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(await eventually { events.lines.count >= 2 })
        state.update {
            $0.noteReminderChanges([reminder("missed", "2026-11-23T21:30:00+01:00")])
            let due = [LedgerEntry.Fate.acknowledged, .missed].enumerated().map { index, fate in
                LedgerEntry(key: .init(event: "\(index)", trigger: 1_795_464_000, origin: "audio"), text: "Pills now, Anna",
                            triggerOffset: 3_600, fate: fate, decidedAt: 1_795_464_000)
            }
            let today = SoundStatus.Day(ReminderTally(due, day: 20_780))
            $0.sound = SoundStatus(speak: "alarms", device: "default", muted: false, reminders: [], today: today)
        }
        #expect(await eventually { events.lines.count >= 3 })
        let payloads = try events.lines.map { line in
            #expect(line.hasPrefix(topic + "/reminder {"))
            return try json(String(line.drop { $0 != "{" }))
        }
        #expect(payloads.map { $0["event_type"] as? String } == ["sounding", "acknowledged", "missed"])
        #expect(payloads[1]["acknowledgedBy"] as? String == "a key" && payloads[1]["at"] as? String == "2026-11-23T21:00:40+01:00")
        #expect(payloads[2]["why"] as? String == "the box was off at its time" && payloads[2]["text"] as? String == "Pills now, Anna")
        #expect(try broker.retained(topic + "/reminder") == nil, "an event is not retained")
        let node = try settings().nodeID
        let entity = try json(try broker.retained("homeassistant/event/\(node)/reminder/config"))
        #expect(entity["state_topic"] as? String == topic + "/reminder")
        #expect(entity["event_types"] as? [String] == ["sounding", "acknowledged", "not_acknowledged", "missed",
                                                         "quiet_at_night", "muted", "shown_only"])
        #expect(try await eventually {
            let today = try json(try broker.retained(topic + "/state"))["remindersToday"] as? [String: Any]
            return today?["summary"] as? String == "2 due: 1 acknowledged, 1 missed" && today?["date"] as? String == "2026-11-23"
        })
        let sensor = try json(try broker.retained("homeassistant/sensor/\(node)/reminders_today/config"))
        #expect(sensor["value_template"] as? String == "{{ value_json.remindersToday.summary if value_json.remindersToday else '' }}")
    }

    /// A retained command (anyone may publish one; some tools retain by default) is never
    /// obeyed: it would be again at every connection. It is answered, said in the journal and
    /// taken off the broker; a command sent while connected is obeyed as ever.
    @Test func aRetainedCommandIsNotObeyedAndIsTakenOff() async throws {
        try broker.publish(topic + "/paused/set", "ON", retain: true)
        try broker.publish(topic + "/refresh/press", "PRESS", retain: true)
        #expect(try broker.retained(topic + "/paused/set") == "ON")
        let results = try broker.listen(topic + "/result")
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        #expect(await eventually { results.lines.count >= 2 })
        #expect(results.lines.allSatisfy { $0.contains("a retained command is not obeyed") }, "\(results.lines)")
        #expect(try await eventually { try broker.retained(topic + "/paused/set") == nil && broker.retained(topic + "/refresh/press") == nil })
        try broker.publish(topic + "/paused/set", "OFF")
        var seen: [DisplayEvent] = []
        #expect(await eventually(within: .seconds(10)) {
            seen += mailbox.take()
            return seen.contains { if case .control(.resume) = $0 { true } else { false } }
        })
        #expect(!seen.contains { if case .control(.pause) = $0 { true } else { false } })
        #expect(!seen.contains { if case .control(.reload) = $0 { true } else { false } })
    }

    /// Before the display's first frame no state is published (a restart published an empty
    /// one: nothing showing, no output); with the first frame it is.
    @Test func noStateBeforeTheFirstFrame() async throws {
        let starting = DisplayState(clock: clock)
        starting.update { $0.showing = ["Tea at four"] }
        let mqtt = MQTTService(settings: try settings(), version: "9.9.9", state: starting, mailbox: mailbox, log: log)
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        // Looked at ten times a second: by the time a later message comes, the state would have.
        let results = try broker.listen(topic + "/result")
        try broker.publish(topic + "/refresh/press", "PRESS")
        #expect(await eventually { !results.lines.isEmpty })
        #expect(try broker.retained(topic + "/state") == nil)
        Self.drawAFrame(starting)
        #expect(await eventually { ((try? broker.retained(topic + "/state")) ?? nil)?.contains("\"showing\":[\"Tea at four\"]") == true })
    }

    /// Two boxes given one topic share a client id: the broker lets each in by closing the
    /// other. The status says so (it read "lost the connection: Success" seven times), and so
    /// does the journal, which the test reads: the status holds the words only until the next
    /// turn, which a test's task on a loaded machine may not look in time to see.
    @Test func aClientIDInUseIsSaid() async throws {
        let folder = try TemporaryFolder()
        let journalPath = folder.path + "/journal"
        let journal = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(journal) }
        let log = EventLog(environment: [:], descriptor: journal)
        // Both at once: the first connection is closed within a second of being accepted (one
        // waited for before the second came could have lasted `soonLost` on a loaded machine).
        let first = MQTTService(settings: try settings(), version: "9.9.9", state: state, mailbox: mailbox, log: log)
        defer { Task { await first.stop() } }
        let otherState = DisplayState(clock: clock)
        let second = MQTTService(settings: try settings(), version: "9.9.9", state: otherState, mailbox: EventMailbox(), log: log)
        defer { Task { await second.stop() } }
        #expect(await eventually(within: .seconds(90)) {
            (try? String(contentsOfFile: journalPath, encoding: .utf8))?.contains("another client may be connected as marquee-") == true
        }, "\((try? String(contentsOfFile: journalPath, encoding: .utf8)) ?? "")")
    }

    /// `mqtt_commands = false`: a box that only reports obeys nothing from the broker (it
    /// subscribes to no command) and offers Home Assistant no entity that commands it (those an
    /// earlier run announced are removed); its pause is shown as a binary sensor.
    @Test func aBoxThatOnlyReportsObeysNothing() async throws {
        let earlier = service(try settings())
        let node = try settings().nodeID
        #expect(try await eventually { try broker.retained("homeassistant/text/\(node)/say/config") != nil })
        await earlier.stop()
        let mqtt = service(try settings(commands: false))
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        #expect(try await eventually {
            try broker.retained("homeassistant/text/\(node)/say/config") == nil
                && broker.retained("homeassistant/switch/\(node)/paused/config") == nil
                && broker.retained("homeassistant/button/\(node)/refresh/config") == nil
        })
        let paused = try json(try broker.retained("homeassistant/binary_sensor/\(node)/paused/config"))
        #expect(paused["command_topic"] == nil && paused["state_topic"] as? String == topic + "/state")
        let results = try broker.listen(topic + "/result")
        try broker.publish(topic + "/paused/set", "ON")
        try broker.publish(topic + "/refresh/press", "PRESS")
        // The state is published again after a change; by then the commands had their chance.
        state.update { $0.showing = ["Tea at four"] }
        #expect(await eventually { ((try? broker.retained(topic + "/state")) ?? nil)?.contains("\"showing\":[\"Tea at four\"]") == true })
        #expect(mailbox.take().isEmpty && results.lines.isEmpty)
    }

    /// Every command is answered on the result topic; what cannot be carried out says why and
    /// changes nothing: a word it does not know, bytes that are not UTF-8, 10 MB of text, a
    /// message sent now without a state folder to keep it in, a flood.
    @Test func everyCommandIsAnswered() async throws {
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        let results = try broker.listen(topic + "/result")
        try broker.publish(topic + "/paused/set", "ON")
        try broker.publish(topic + "/paused/set", "sometimes")
        try broker.publish(topic + "/paused/set", bytes: [0x4F, 0xFF, 0x4E])
        try broker.publish(topic + "/say/set", bytes: [UInt8](repeating: 0x41, count: 10_000_000))
        try broker.publish(topic + "/say/set", "Taxi at 11")
        #expect(await eventually { results.lines.count >= 5 })
        try #require(results.lines.count >= 5, "\(results.lines)")
        let answers = try results.lines.prefix(5).map { line in try json(String(line.split(separator: " ", maxSplits: 1)[1])) }
        #expect(answers[0]["ok"] as? Bool == true && answers[0]["command"] as? String == "pause")
        #expect((answers[1]["error"] as? String)?.contains("takes ON or OFF") == true)
        #expect((answers[2]["error"] as? String)?.contains("not UTF-8") == true)
        #expect((answers[3]["error"] as? String)?.contains("at most 255 characters") == true)
        #expect((answers[4]["error"] as? String)?.contains("state folder") == true)
        #expect(answers.dropFirst().allSatisfy { $0["ok"] as? Bool == false })
        try broker.publish(topic + "/refresh/press", each: Array(repeating: "PRESS", count: CommandBudget.size + 1))
        #expect(await eventually { results.lines.contains { $0.contains("too many commands") } })
    }

    /// A wrong password and a certificate nobody trusts are said in the status, and the box
    /// keeps trying; nothing is published.
    @Test func refusalsAreSaid() async throws {
        let folder = try TemporaryFolder()
        let wrong = folder.path + "/wrong"
        try "not the password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let refused = service(try settings(password: wrong))
        #expect(await eventually(within: .seconds(10)) { state.report.mqtt?.lastError?.contains("not authorised") == true },
                "\(String(describing: state.report.mqtt))")
        await refused.stop()
        let untrusted = service(try settings("mqtts://\(broker.user)@127.0.0.1:\(broker.untrustedPort)"))
        #expect(await eventually(within: .seconds(10)) { state.report.mqtt?.lastError?.contains("TLS") == true })
        await untrusted.stop()
        #expect(try broker.retained(topic + "/availability") == nil)
        let unreadable = service(try settings(password: folder.path + "/missing"))
        #expect(state.report.mqtt?.lastError?.contains("password file \(folder.path)/missing") == true)
        await unreadable.stop()
    }

    /// A broker that goes away and comes back: the box notices, reconnects and says `online`
    /// and its state again (the broker kept nothing: no persistence).
    @Test func theBoxReconnectsWhenTheBrokerComesBack() async throws {
        let mqtt = service(try settings())
        defer { Task { await mqtt.stop() } }
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        broker.stop()
        #expect(await eventually(within: .seconds(90)) { state.report.mqtt?.connected == false })
        try broker.start()
        #expect(try await eventually(within: .seconds(30)) { try broker.retained(topic + "/availability") == "online" })
        #expect(try json(try broker.retained(topic + "/state"))["showing"] as? [String] == ["Bins out tonight", "Johnny's birthday"])
        #expect(state.report.mqtt?.connected == true)
    }

    /// What is not an MQTT broker is said as such: a web server on the port ("lost the
    /// connection: Success"), a broker without TLS asked for mqtts:// ("certificate not trusted").
    @Test func notABrokerIsSaid() async throws {
        let web = try LoopbackWebServer()
        let http = service(try settings("mqtt://127.0.0.1:\(web.plainPort)"))
        #expect(await eventually(within: .seconds(20)) {
            state.report.mqtt?.lastError?.contains("closed the connection without answering as an MQTT broker") == true
        }, "\(String(describing: state.report.mqtt))")
        await http.stop()
        let plain = service(try settings("mqtts://\(broker.user)@127.0.0.1:\(broker.port)"))
        #expect(await eventually(within: .seconds(20)) {
            state.report.mqtt?.lastError?.contains("does not speak TLS on this port") == true
        }, "\(String(describing: state.report.mqtt))")
        await plain.stop()
    }

    /// A server that accepts the connection and never answers is given up on and said; while
    /// it is waited for, the status says "connecting" (it had no mqtt key for ~20 s).
    @Test func aBrokerThatNeverAnswersIsGivenUpOn() async throws {
        let silent = try SilentServer()
        let mqtt = service(try settings("mqtt://127.0.0.1:\(silent.port)"))
        #expect(state.report.mqtt?.connecting == true && state.report.mqtt?.connected == false)
        #expect(await eventually(within: .seconds(20)) { state.report.mqtt?.lastError?.contains("did not answer") == true })
        await mqtt.stop()
    }

    /// The screen as a PNG picture (640x360), retained for Home Assistant's image entity, drawn
    /// by the snapshot's renderer from the schedule; a pause draws it again.
    @Test func theScreenIsPublishedAsAPicture() async throws {
        let feeds = try feedFolder(["night.ics": calendar([event(
            "UID:night@test", "DTSTART;TZID=Europe/Berlin:20261101T210000", "DTEND;TZID=Europe/Berlin:20261101T230000",
            "RRULE:FREQ=DAILY", "SUMMARY:It's night-time right now. You should be in bed, the nurse comes at eight.")])])
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        await schedule.load([feeds], around: clock.wallTime().instant)
        let picture = ScreenPicture(schedule: schedule, settings: DisplaySettings(marquee: MarqueeConfiguration()),
                                    style: FramebufferStyle(), displayStartedAt: clock.wallTime())
        let pictures = ScreenPictures(picture, state: state, clock: clock)
        let mqtt = MQTTService(settings: try settings(), version: "9.9.9", state: state, mailbox: mailbox, log: log,
                               pictures: pictures, clock: clock)
        let drawing = Task { await pictures.keepDrawing() }
        let offering = Task { await mqtt.offerPictures() }
        let node = try settings().nodeID
        // The picture asks the schedule: `scheduleWaitLimit`. The looks come a second apart on
        // the test's clock.
        #expect(try await eventually(within: scheduleWaitLimit) {
            clock.advance(seconds: 1)
            return try broker.retainedBytes(topic + "/screen") != nil
        })
        let png = try #require(try broker.retainedBytes(topic + "/screen"))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func size(_ png: [UInt8]) -> (Int, Int) {
            func word(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            return (word(16), word(20))
        }
        #expect(size(png) == (640, 360))
        let image = try json(try broker.retained("homeassistant/image/\(node)/screen/config"))
        #expect(image["image_topic"] as? String == topic + "/screen" && image["content_type"] as? String == "image/png")

        // The line is too long to stand: paused, it stands as whole words instead, at the
        // next look (a second later on the test's clock).
        state.update { $0.paused = true }
        #expect(try await eventually(within: scheduleWaitLimit) {
            clock.advance(seconds: 1)
            return try broker.retainedBytes(topic + "/screen").map { $0 != png } ?? false
        })
        drawing.cancel()
        offering.cancel()
        await drawing.value
        await offering.value
        await mqtt.stop()
    }

    /// Each calendar subscription gets a "last updated" timestamp sensor once the box knows of
    /// it, and loses it when it goes.
    @Test func eachCalendarHasALastUpdatedSensor() async throws {
        let mqtt = service(try settings())
        let node = try settings().nodeID
        #expect(try await eventually { try broker.retained(topic + "/availability") == "online" })
        #expect(try broker.retained("homeassistant/sensor/\(node)/calendar_1_updated/config") == nil)
        // Never fetched: the sensor is announced, and its topic holds nothing (Home Assistant
        // was sent None, not a time, and warned at every change).
        state.update { $0.subscriptions = [SubscriptionStatus(address: "https://cloud.example.org/…a1b2/family.ics")] }
        #expect(try await eventually { try broker.retained("homeassistant/sensor/\(node)/calendar_1_updated/config") != nil })
        #expect(try broker.retained(topic + "/calendar/1/updated") == nil)
        state.update {
            $0.subscriptions = [SubscriptionStatus(address: "https://cloud.example.org/…a1b2/family.ics",
                                                   lastSuccess: "2026-11-23T21:45:00+01:00")]
        }
        #expect(try await eventually { try broker.retained(topic + "/calendar/1/updated") == "2026-11-23T21:45:00+01:00" })
        let sensor = try json(try broker.retained("homeassistant/sensor/\(node)/calendar_1_updated/config"))
        #expect(sensor["device_class"] as? String == "timestamp" && sensor["state_topic"] as? String == topic + "/calendar/1/updated")
        #expect(sensor["value_template"] == nil && sensor["entity_category"] as? String == "diagnostic")
        let document = try json(try broker.retained(topic + "/state"))
        let listed = try #require(document["subscriptions"] as? [[String: Any]])
        #expect(listed.first?["lastSuccess"] as? String == "2026-11-23T21:45:00+01:00")
        state.update { $0.subscriptions = [] }
        #expect(try await eventually { try broker.retained("homeassistant/sensor/\(node)/calendar_1_updated/config") == nil })
        await mqtt.stop()
    }

    /// Without discovery, the entities an earlier run announced are removed.
    @Test func turningDiscoveryOffRemovesTheEntities() async throws {
        let node = try settings().nodeID
        let first = service(try settings())
        #expect(try await eventually { try broker.retained("homeassistant/switch/\(node)/paused/config") != nil })
        await first.stop()
        let second = service(try settings(discovery: false))
        #expect(try await eventually { try broker.retained("homeassistant/switch/\(node)/paused/config") == nil })
        await second.stop()
    }
}

/// The MQTT settings as a carer writes them.
@Suite struct MQTTSettingsTests {
    @Test func addressesAndTopics() throws {
        let plain = try MQTTSettings(address: "mqtt://broker.lan", hostname: "kitchen.home.lan")
        #expect(plain.port == 1883 && !plain.usesTLS && plain.user == nil && plain.topic == "marquee/kitchen")
        #expect(plain.name == "kitchen")
        let secure = try MQTTSettings(address: "mqtts://carer@broker.lan:8884", topic: "care/flat-3", hostname: "x")
        #expect(secure.port == 8884 && secure.usesTLS && secure.user == "carer" && secure.broker == "mqtts://carer@broker.lan:8884")
        #expect(try MQTTSettings(address: "mqtts://broker.lan", hostname: "x").port == 8883)
        for (address, reason) in [
            ("https://broker.lan", "mqtt://"), ("mqtt://carer:secret@broker.lan", "mqtt_password_file"),
            ("mqtt://broker.lan/marquee", "mqtt_topic"), ("mqtt://broker.lan:99999", "port"), ("broker.lan", "not a broker address"),
        ] {
            #expect(throws: MQTTSettingsError.self, "\(address)") { try MQTTSettings(address: address, hostname: "x") }
            do {
                _ = try MQTTSettings(address: address, hostname: "x")
            } catch {
                #expect(error.description.contains(reason), "\(address): \(error)")
            }
        }
        for topic in ["marquee/#", "marquee/+/x", "", "/marquee", "marquee/", "$SYS/x", "a//b", "marquee/\u{7F}", "marquee/\u{85}x"] {
            #expect(throws: MQTTSettingsError.self, "\(topic)") { try MQTTSettings.check(topic: topic) }
        }
    }

    /// Two boxes are never one: ids come from the exact topic (topics that differ in case or in
    /// letters outside ASCII became one device and one client id, each kicking the other off),
    /// and the default topic holds the machine (two `raspberrypi`s had one).
    @Test func idsAreTheBoxsOwn() throws {
        func node(_ topic: String) throws -> String { try MQTTSettings(address: "mqtt://b", topic: topic, hostname: "x").nodeID }
        #expect(try node("marquee/Kitchen") != node("marquee/kitchen"))
        #expect(try node("adv/厨房") != node("adv/卧室"))
        #expect(try node("marquee/kitchen").hasPrefix("marquee_kitchen_"))
        // Stable across runs and versions (scripts/kiosk/scenarios/mqtt.py computes the same).
        #expect(try node("marquee/kiosk") == "marquee_kiosk_7330b7")
        let first = try MQTTSettings(address: "mqtt://b", hostname: "raspberrypi", machineID: "4c4c4544004e3610804cb4c04f4e4d32\n")
        let second = try MQTTSettings(address: "mqtt://b", hostname: "raspberrypi", machineID: "0f1e2d3c4b5a69788796a5b4c3d2e1f0")
        #expect(first.topic.hasPrefix("marquee/raspberrypi-") && first.topic != second.topic, "\(first.topic)")
        #expect(try MQTTSettings(address: "mqtt://b", hostname: "raspberrypi").topic == "marquee/raspberrypi")
    }

    /// A password in an address that does not parse is never said back: not by `check`, `run`,
    /// the journal or a reload's answer (it was echoed whole).
    @Test(arguments: ["mqtt:/marquee:hunter2@host", "mqtt//marquee:hunter2@host", "mqtts:u:hunter2@host",
                      "u:hunter2@host", "mqtt://u:hunter2@host", "ftp://u:hunter2@host", "u:hunter2@mqtt://host"])
    func aPasswordInAnAddressIsNeverSaid(address: String) throws {
        #expect(throws: MQTTSettingsError.self) { try MQTTSettings(address: address, hostname: "x") }
        do {
            _ = try MQTTSettings(address: address, hostname: "x")
        } catch {
            #expect(!error.description.contains("hunter2"), "\(error)")
        }
        do {
            _ = try ConfigurationFile.parse("mqtt = \"\(address)\"\n", path: "m.toml")
            Issue.record("\(address) was taken")
        } catch {
            #expect(!error.description.contains("hunter2"), "\(error)")
        }
    }

    /// In the configuration file, a topic with a wildcard or a password in the address is
    /// refused at start with its line.
    @Test func theConfigurationRefusesWhatCannotBeUsed() throws {
        let file = try ConfigurationFile.parse("mqtt = \"mqtts://carer@broker.lan\"\nmqtt_topic = \"marquee/kitchen\"\n", path: "m.toml")
        #expect(try file.mqttSettings(hostname: "x")?.topic == "marquee/kitchen")
        do {
            _ = try ConfigurationFile.parse("mqtt = \"mqtt://broker.lan\"\nmqtt_topic = \"marquee/#\"\n", path: "m.toml")
            Issue.record("a wildcard topic was accepted")
        } catch {
            #expect(error.line == 2 && error.description.contains("wildcard"))
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse("mqtt = \"mqtt://u:p@b\"\n", path: "m.toml") }
    }

    /// Waits double from a second to a minute, each cut by up to half at random; a connection
    /// that lasted a minute starts the count again, one that was lost sooner does not.
    @Test func backoffDoublesWithJitterAndResets() {
        var reconnection = MQTTConnection.Reconnection()
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 1) == 1)
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 0) == 1)
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 1) == 4)
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 1) == 8)
        for _ in 0..<30 { _ = reconnection.sessionEnded(lastedSeconds: 59, unit: 1) }
        #expect(reconnection.failures == 34)
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 1) == 60)
        #expect(reconnection.sessionEnded(lastedSeconds: 0, unit: 0) == 30)
        #expect(reconnection.sessionEnded(lastedSeconds: 3_600, unit: 1) == 1)
        #expect(reconnection.failures == 1)
        #expect(reconnection.sessionEnded(lastedSeconds: 60, unit: 0) == 0.5)
    }

    /// A flood of commands is refused after twenty in ten seconds, said once while it lasts.
    @Test func aFloodOfCommandsIsRefused() {
        var budget = CommandBudget()
        let start = ContinuousClock.now
        for index in 0..<20 { #expect(budget.spend(at: start + .milliseconds(index)) == .allowed) }
        #expect(budget.spend(at: start + .milliseconds(30)) == .refused(firstTime: true))
        #expect(budget.spend(at: start + .milliseconds(40)) == .refused(firstTime: false))
        #expect(budget.spend(at: start + .seconds(11)) == .allowed)
    }
}

/// A message a carer sends now: refused with a reason when it cannot be shown, else a calendar
/// file the feed reader reads back to the very text.
@Suite struct SaidNowTests {
    @Test func whatIsRefusedAndWhy() throws {
        func refusal(_ payload: [UInt8]) -> String? {
            if case .failure(let error) = SaidNow.request(from: payload) { return error.description }
            return nil
        }
        #expect(refusal([UInt8](repeating: 0x41, count: 10_000_000))?.contains("at most 255 characters") == true)
        #expect(refusal([0x48, 0xFF, 0xFE])?.contains("not UTF-8") == true)
        #expect(refusal(Array(String(repeating: "x", count: 256).utf8))?.contains("not 256") == true)
        #expect(try SaidNow.request(from: Array(String(repeating: "x", count: 255).utf8)).get().text.count == 255)
        // Counted as Home Assistant counts: a family emoji is 7 code points, 37 of them 259.
        #expect(refusal(Array(String(repeating: "👨‍👩‍👧‍👦", count: 37).utf8))?.contains("not 259") == true)
        #expect(refusal(Array("Hello\u{1B}[2J".utf8))?.contains("control characters") == true)
        #expect(refusal(Array("Line one\nline two".utf8))?.contains("control characters") == true)
        #expect(refusal(Array("Pay \u{202E}0001\u{202C} EUR".utf8))?.contains("override the direction") == true)
        #expect(refusal(Array("Pay \u{2067}0001\u{2069} EUR".utf8))?.contains("override the direction") == true)
        #expect(refusal(Array("   ".utf8))?.contains("empty") == true)
        #expect(refusal(Array(#"{"text": "Hi", "colour": "blurple"}"#.utf8))?.contains("not a colour") == true)
        #expect(refusal(Array(#"{"text": "Hi", "minutes": 0}"#.utf8))?.contains("minutes") == true)
        #expect(refusal(Array(#"{"words": "Hi"}"#.utf8))?.contains("not a message") == true)
        #expect(try SaidNow.request(from: Array(##"{"text": " Hi ", "minutes": 5, "colour": "#f80"}"##.utf8)).get()
            == SaidNow.Request(text: "Hi", minutes: 5, colour: "#f80"))
        #expect(try SaidNow.request(from: Array("Taxi at 11".utf8)).get() == SaidNow.Request(text: "Taxi at 11"))
    }

    /// A message that cannot be taken off is a failure, said (the unlink's result was ignored
    /// and the carer told "ok" while the message stayed); none there is no failure.
    @Test func aMessageThatCannotBeTakenOffIsSaid() throws {
        let folder = try TemporaryFolder()
        let said = SaidNow(folder: folder.path)
        #expect(said.clear() == nil)
        try FileManager.default.createDirectory(atPath: folder.path + "/" + SaidNow.fileName, withIntermediateDirectories: false)
        #expect(said.clear()?.hasPrefix("cannot take the message off: \(folder.path)/\(SaidNow.fileName): ") == true)
    }

    /// What is said of the screen fits Home Assistant's 255 code points however the texts are
    /// made (150 family emoji are 1,050, and were 150 "characters"), and is never cut inside one.
    @Test func showingTextFitsHomeAssistant() {
        let family = "👨‍👩‍👧‍👦"
        let shown = MQTTBridge.truncated(String(repeating: family, count: 150), to: 255)
        #expect(shown.unicodeScalars.count <= 255 && shown.hasSuffix("…"))
        #expect(shown.dropLast().allSatisfy { $0 == Character(family) })
        #expect(MQTTBridge.truncated("Tea at four", to: 255) == "Tea at four")
    }

    /// Text with everything RFC 5545 escapes, long enough to be folded inside multi-byte
    /// characters, is read back by the real schedule as it was sent, active from now for its
    /// minutes and first in priority.
    @Test func theFileReadsBackToTheText() async throws {
        let text = "Dad; the taxi is late, sorry \\ I'll be there at 11 — 🚕🚕🚕 Ünïcödé ümläüts ñ and 中文 text to fold the line past 75 octets"
        let now = instant("2026-11-23T10:00:00+01:00")
        let start = Instant(secondsSinceEpoch: now.secondsSinceEpoch)
        let file = SaidNow.calendar(SaidNow.Request(text: text, minutes: 30, colour: "orange", speak: true), from: start,
                                    to: Instant(secondsSinceEpoch: start.secondsSinceEpoch + 1800))
        #expect(file.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        let feeds = try feedFolder([SaidNow.fileName: file])
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        let statuses = await schedule.load([feeds], around: now)
        #expect(statuses.allSatisfy { $0.problems.isEmpty }, "\(statuses)")
        let shown = await schedule.snapshot(at: Instant(secondsSinceEpoch: now.secondsSinceEpoch + 60)).messages
        #expect(shown.map(\.text) == [text])
        #expect(shown.first?.color == Colour(css: "orange"))
        #expect(shown.first?.sounding?.origin == .event && shown.first?.sounding?.trigger.instant == start)
        #expect(await schedule.snapshot(at: Instant(secondsSinceEpoch: now.secondsSinceEpoch + 1801)).messages.isEmpty)
    }
}

/// When the picture for the broker is drawn: on a change of what is shown or of the pause,
/// every `movingInterval` while the text moves, and after a failure only when that interval
/// has passed — on a clock the test moves.
@Suite struct ScreenPictureTests {
    @Test func drawnWhenDueAndTriedAgainAfterAFailure() async throws {
        let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
        let state = DisplayState(clock: clock)
        state.update { $0.showing = ["Bins out tonight"] }
        let folder = try TemporaryFolder()
        var style = FramebufferStyle()
        style.fontPaths = [folder.path + "/font.ttf"]
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let picture = ScreenPicture(schedule: try await Schedule(displayZone: "Europe/Berlin"),
                                    settings: DisplaySettings(marquee: MarqueeConfiguration()), style: style,
                                    displayStartedAt: clock.wallTime(), log: log)
        let start = ContinuousClock.now
        func look(after seconds: Int) async -> [UInt8]? {
            await picture.pictureIfDue(changes: state.changes, at: clock.wallTime(), now: start + .seconds(seconds),
                                       report: { state.report })
        }
        #expect(await look(after: 0) == nil, "no font: no picture")
        try FileManager.default.copyItem(atPath: FontStack.defaultPaths[0], toPath: folder.path + "/font.ttf")
        #expect(await look(after: 1) == nil, "a failure is not tried again at every look")
        #expect(await look(after: 31) != nil, "but once the interval has passed")
        // Said once when it failed, and when it works again.
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("<4>MQTT: the screen's picture cannot be drawn (")
            && lines[1] == "<5>MQTT: the screen's picture is drawn again", "\(lines)")
        #expect(await look(after: 32) == nil, "nothing changed")
        state.update { $0.paused = true }
        #expect(await look(after: 33) != nil, "the pause changed")
        state.update { $0.paused = false; $0.moving = true }
        #expect(await look(after: 34) != nil)
        #expect(await look(after: 63) == nil, "moving, but the last picture is younger than the interval")
        #expect(await look(after: 64) != nil)
    }

    /// With a display loop to ask, the picture is the screen's own (asked through the mailbox,
    /// encoded here); a screen that gives none is drawn by the snapshot's renderer;
    /// a change of what is on the glass (a message coming into view) is a new picture.
    @Test func thePictureIsTheScreensOwn() async throws {
        let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
        let state = DisplayState(clock: clock)
        state.update { $0.showing = ["Bins out tonight"] }
        let mailbox = EventMailbox()
        let picture = ScreenPicture(schedule: try await Schedule(displayZone: "Europe/Berlin"),
                                    settings: DisplaySettings(marquee: MarqueeConfiguration()), style: FramebufferStyle(),
                                    displayStartedAt: clock.wallTime(), mailbox: mailbox)
        let glass = ScreenImage(width: 4, height: 2, rgb: [UInt8](repeating: 200, count: 24))
        let answers = Mutex<ScreenCopy??>(.some(ScreenCopy(glass)))
        let loop = Task {
            while !Task.isCancelled {
                for case .pictureWanted(let request) in mailbox.take() { request.answer(answers.withLock { $0 } ?? nil) }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        defer { loop.cancel() }
        let start = ContinuousClock.now
        func look(after seconds: Int) async -> [UInt8]? {
            await picture.pictureIfDue(changes: state.changes, at: clock.wallTime(), now: start + .seconds(seconds),
                                       report: { state.report })
        }
        #expect(await look(after: 0) == PNGImage.encode(glass))
        #expect(await look(after: 1) == nil, "nothing changed")
        state.frameDrawn(at: SteadyInstant(sinceOrigin: 1), lateness: nil, moving: false, inView: ["Bins out tonight"],
                         glyphCache: nil)
        state.update { _ in }
        #expect(await look(after: 2) == PNGImage.encode(glass), "a message came into view")
        answers.withLock { $0 = .some(nil) }
        state.update { $0.paused = true }
        let drawn = try #require(await look(after: 3))
        #expect(drawn != PNGImage.encode(glass) && drawn.count > 1000, "one the screen does not give is the snapshot's picture")
    }

    /// A carer's reload changes what the screen says when nothing is scheduled, and the text
    /// size: the picture follows at the next look, though nothing shown changed.
    @Test func aReloadsSettingsAreDrawnAtTheNextLook() async throws {
        let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
        let state = DisplayState(clock: clock)
        let picture = ScreenPicture(schedule: try await Schedule(displayZone: "Europe/Berlin"),
                                    settings: DisplaySettings(marquee: MarqueeConfiguration()), style: FramebufferStyle(),
                                    displayStartedAt: clock.wallTime())
        func look() async -> [UInt8]? {
            await picture.pictureIfDue(changes: state.changes, at: clock.wallTime(), report: { state.report })
        }
        let first = try #require(await look())
        #expect(await look() == nil)
        var larger = FramebufferStyle()
        larger.textHeight = 1.0 / 5
        await picture.use(DisplaySettings(marquee: MarqueeConfiguration(), idleText: "Nothing today"), style: larger)
        let second = try #require(await look())
        #expect(second != first)
        #expect(await look() == nil)
    }
}

/// A reload read while a picture is being drawn (the actor awaits the display loop's answer):
/// the picture drawn is the old settings', so the next look draws the new ones. (It was
/// taken as current, and the new style waited for the text to change.)
@Suite struct ScreenPictureReentrancyTests {
    @Test func aReloadDuringADrawingIsDrawnNext() async throws {
        let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
        let state = DisplayState(clock: clock)
        let mailbox = EventMailbox()
        let picture = ScreenPicture(schedule: try await Schedule(displayZone: "Europe/Berlin"),
                                    settings: DisplaySettings(marquee: MarqueeConfiguration()), style: FramebufferStyle(),
                                    displayStartedAt: clock.wallTime(), mailbox: mailbox)
        func look() async -> [UInt8]? {
            await picture.pictureIfDue(changes: state.changes, at: clock.wallTime(), report: { state.report })
        }
        let first = Task { await look() }
        var asked: PictureRequest?
        while asked == nil {
            for case .pictureWanted(let request) in mailbox.take() { asked = request }
            try await Task.sleep(for: .milliseconds(2))
        }
        await picture.use(DisplaySettings(marquee: MarqueeConfiguration(), idleText: "Nothing today"), style: nil)
        asked?.answer(nil)
        _ = await first.value
        let answering = Task {
            while !Task.isCancelled {
                for case .pictureWanted(let request) in mailbox.take() { request.answer(nil) }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        defer { answering.cancel() }
        #expect(await look() != nil, "the reload's settings are drawn")
        #expect(await look() == nil)
    }
}

/// The problems in the broker's state document are what `marquee check` says, each once and
/// with its place: errors make the *Problem*, warnings stand apart, a folder of broken files
/// gives a short list and how many more.
@Suite(.temporaryFolders) struct StateDocumentTests {
    @Test func errorsAndWarningsEachOnceWithTheirPlace() async throws {
        let clock = ManualClock(wall: instant("2026-11-23T21:50:00+01:00"))
        var files = ["mars.ics": calendar(event("UID:r@test", "DTSTART;TZID=Mars/Olympus_Mons:20261123T100000", "SUMMARY:Rover"))]
        // Each says twice that it is cut short: its calendar and its event are never closed.
        for index in 1...12 { files["broken-\(index).ics"] = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:bro" }
        let feeds = try feedFolder(files)
        let schedule = try await Schedule(displayZone: "Europe/Berlin")
        await schedule.load([feeds], around: clock.wallTime().instant)
        let snapshot = await schedule.snapshot(at: clock.wallTime().instant)
        let state = DisplayState(clock: clock)
        state.update {
            $0.snapshot = snapshot
            $0.subscriptions = [SubscriptionStatus(address: "https://cloud.example.org/…a1b2/family.ics", error: "HTTP 404")]
        }
        let settings = try MQTTSettings(address: "mqtt://127.0.0.1", passwordFile: nil, certificateAuthorities: nil,
                                        topic: "marquee/kitchen", discovery: true, name: "Kitchen", hostname: "kitchen")
        let bridge = MQTTBridge(settings: settings, version: "9.9.9", state: state, mailbox: EventMailbox(),
                                log: EventLog(environment: [:], descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC)), clock: clock)
        let document = try JSONDecoder().decode(MQTTBridge.StateDocument.self, from: Data(bridge.stateDocument()))

        #expect(document.problems.count == MQTTBridge.listedProblems + 1)
        #expect(document.problems.prefix(MQTTBridge.listedProblems).allSatisfy {
            $0.hasPrefix(feeds + "/broken-") && $0.contains(": error: ") && $0.components(separatedBy: feeds).count == 2
        }, "\(document.problems)")
        #expect(document.problems.last == "5 more problems; `marquee check` lists them all")
        #expect(document.warnings.count == 1)
        #expect(document.warnings.first?.hasPrefix(feeds + "/mars.ics:") == true)
        #expect(document.warnings.first?.contains(": warning: ") == true && document.warnings.first?.contains("Mars/Olympus_Mons") == true)
        #expect(state.errors(atMost: 30).last == "https://cloud.example.org/…a1b2/family.ics: error: HTTP 404")
    }
}
