import DaemonTestKit
import Display
import Schedule
import TestSupport
import Testing

@testable import Daemon

/// What marquee hears from a television over HDMI-CEC and answers, without a bus (the real
/// bus is the kiosk test's: QEMU, the kernel's vivid driver and cec-follower as the
/// television); and when the display loop asks for the television, on its manual clock.
struct TelevisionTests {
    /// marquee at 1.0.0.0 (the television's first input), logical address 4 (Playback 1).
    private func box() -> TelevisionState { TelevisionState(physicalAddress: 0x1000, logicalAddress: 4) }

    private func message(_ opcode: CECMessage.Opcode, from: UInt8 = 0, to: UInt8 = 15, _ operands: [UInt8] = []) -> CECMessage {
        CECMessage(from: from, to: to, opcode: opcode.rawValue, operands: operands)
    }

    @Test func wakingTurnsItOnAndToMarqueesInput() {
        var state = box()
        #expect(state.wake == [
            TelevisionState.Answer(opcode: .imageViewOn, to: 0),
            TelevisionState.Answer(opcode: .activeSource, to: 15, operands: [0x10, 0x00]),
        ])
        state.woken()
        #expect(state.showsMarquee == true && state.otherInput == nil)
    }

    /// Its power as reported; a standby from it; a value the standard does not name changes
    /// nothing; a report from another device is not the television's.
    @Test func itsPowerIsWhatItReports() {
        var state = box()
        #expect(state.power == .unknown)
        _ = state.hear(message(.reportPowerStatus, to: 4, [2]))
        #expect(state.power == .goingOn)
        _ = state.hear(message(.reportPowerStatus, to: 4, [0]))
        #expect(state.power == .on)
        _ = state.hear(message(.reportPowerStatus, to: 4, [9]))
        _ = state.hear(message(.reportPowerStatus, from: 5, to: 4, [1]))
        #expect(state.power == .on)
        state.woken()
        _ = state.hear(message(.standby))
        #expect(state.power == .standby && state.showsMarquee == false)
    }

    /// Another device made active (a games console at 2.0.0.0), the television routed back to
    /// marquee, or asked to show it: marquee knows, and says it is the active source when asked.
    @Test func whichInputItShows() {
        var state = box()
        state.woken()
        #expect(state.hear(message(.activeSource, from: 8, [0x20, 0x00])).isEmpty)
        #expect(state.showsMarquee == false && state.otherInput == 0x2000)
        #expect(state.hear(message(.requestActiveSource)).isEmpty)
        _ = state.hear(message(.routingChange, [0x20, 0x00, 0x10, 0x00]))
        #expect(state.showsMarquee == true && state.otherInput == nil)
        #expect(state.hear(message(.requestActiveSource))
            == [TelevisionState.Answer(opcode: .activeSource, to: 15, operands: [0x10, 0x00])])
        _ = state.hear(message(.activeSource, from: 8, [0x20, 0x00]))
        #expect(state.hear(message(.setStreamPath, [0x10, 0x00]))
            == [TelevisionState.Answer(opcode: .activeSource, to: 15, operands: [0x10, 0x00])])
        #expect(state.showsMarquee == true)
        // Too short to say where: nothing changes.
        _ = state.hear(message(.activeSource, from: 8, [0x20]))
        #expect(state.showsMarquee == true)
    }

    /// Asked for its power or name, marquee answers; what it does not do, directed to it, gets
    /// a Feature Abort; broadcasts and its own messages get nothing.
    @Test func whatMarqueeAnswers() {
        var state = box()
        #expect(state.hear(message(.giveDevicePowerStatus, to: 4))
            == [TelevisionState.Answer(opcode: .reportPowerStatus, to: 0, operands: [0])])
        #expect(state.hear(message(.giveOSDName, to: 4))
            == [TelevisionState.Answer(opcode: .setOSDName, to: 0, operands: Array("marquee".utf8))])
        #expect(state.hear(CECMessage(from: 0, to: 4, opcode: 0x44, operands: [0x41]))
            == [TelevisionState.Answer(opcode: .featureAbort, to: 0, operands: [0x44, 0])])
        #expect(state.hear(CECMessage(from: 0, to: 15, opcode: 0x44)).isEmpty)
        #expect(state.hear(message(.giveDevicePowerStatus, from: 4, to: 4)).isEmpty)
        #expect(state.hear(message(.featureAbort, to: 4, [0x8F, 0])).isEmpty)
    }

    /// Another device took the input of a television that is on: marquee takes it back, three
    /// times an hour at most (a console that insists is not fought in a loop), never from a
    /// television in standby or when marquee is shown already.
    @Test func theInputIsTakenBackAFewTimesAnHour() {
        var state = box()
        var taken: [Bool] = [state.reclaims(at: 0)]
        _ = state.hear(message(.reportPowerStatus, to: 4, [0]))
        _ = state.hear(message(.activeSource, from: 8, [0x20, 0x00]))
        #expect(state.reclaim == [TelevisionState.Answer(opcode: .activeSource, to: 15, operands: [0x10, 0x00])])
        for minute in Int64(0)..<3 {
            taken.append(state.reclaims(at: minute * 60))
            state.woken()
            taken.append(state.reclaims(at: minute * 60 + 10))
            _ = state.hear(message(.activeSource, from: 8, [0x20, 0x00]))
        }
        taken.append(state.reclaims(at: 600))
        #expect(taken == [false, true, false, true, false, true, false, false])
        #expect(state.givesUpReclaiming)
        let anHourLater = state.reclaims(at: TelevisionState.reclaimWindow + 1)
        #expect(anHourLater)
        state.woken()
        _ = state.hear(message(.standby))
        _ = state.hear(message(.activeSource, from: 8, [0x20, 0x00]))
        let fromStandby = state.reclaims(at: TelevisionState.reclaimWindow + 100)
        #expect(!fromStandby)
    }

    @Test func addressesAsHDMIWritesThem() {
        #expect(CECMessage.shown(0x1000) == "1.0.0.0" && CECMessage.shown(0x21A0) == "2.1.a.0")
        #expect(CECMessage.operands(0x2100) == [0x21, 0x00])
        #expect(TelevisionPower(reported: []) == nil)
    }

    /// What the status says: never "off" for a television that does not answer.
    @Test(arguments: [
        (TelevisionStatus(adapter: "/dev/cec1", power: .on, showingMarquee: true), "on, showing marquee"),
        (TelevisionStatus(adapter: "/dev/cec1", power: .on, showingMarquee: false, otherInput: "2.0.0.0"),
         "on, on another input (2.0.0.0)"),
        (TelevisionStatus(adapter: "/dev/cec1", power: .goingOn, showingMarquee: true), "turning on, showing marquee"),
        (TelevisionStatus(adapter: "/dev/cec1", power: .standby), "in standby"),
        (TelevisionStatus(adapter: "/dev/cec1", power: .unknown, problem: "nobody on the CEC bus answered at address 0"),
         "not known: it does not answer over HDMI-CEC (nobody on the CEC bus answered at address 0)"),
        (TelevisionStatus(adapter: "/dev/cec1", power: .unknown), "not known yet"),
        (TelevisionStatus(power: .unknown, problem: "this box has no HDMI-CEC adapter"),
         "not reached over HDMI-CEC (this box has no HDMI-CEC adapter)"),
    ])
    func theStatusLine(status: TelevisionStatus, line: String) {
        #expect(status.summary == line)
    }

    /// `cec`: auto, off or a device; anything else refused with its line.
    @Test func theConfigurationKey() throws {
        #expect(try ConfigurationFile.parse("cec = \"off\"\n", path: "m.toml").cec == .off)
        #expect(try ConfigurationFile.parse("cec = \"/dev/cec1\"\n", path: "m.toml").cec == .device("/dev/cec1"))
        #expect(try ConfigurationFile.parse("", path: "m.toml").cec == nil)
        #expect(try ConfigurationFile.parse("reclaim_input = false\n", path: "m.toml").reclaimInput == false)
        #expect {
            try ConfigurationFile.parse("\ncec = \"yes\"\n", path: "m.toml")
        } throws: { error in
            "\(error)".hasPrefix("m.toml:2: `cec` must be \"auto\" (the default), \"off\" or an adapter")
        }
    }
}

/// When the display loop asks for the television: at its start by day, in the morning, for
/// a reminder heard, for a message announced; not at night otherwise.
@Suite(.tier(.live)) struct TelevisionWakeTests {
    @Test func theLoopWakesItWhenMarqueeMustBeSeen() async throws {
        let folder = try TemporaryFolder()
        let feed = calendar(
            event("UID:pills", "DTSTART:20260701T200000Z", "SUMMARY:Pills", "X-MARQUEE-SPEAK:YES"),
            event("UID:news", "DTSTART:20260701T200100Z", "DURATION:PT10M", "SUMMARY:The taxi is here",
                  "X-MARQUEE-EFFECT:typewriter"))
        var sound = SoundSettings(device: "file:FILE=\(folder.path)/played.wav,FORMAT=wav", repeatUntilAcknowledged: 0)
        sound.language = "en"
        let kit = try await DisplayLoopKit(files: ["a.ics": feed], at: "2026-07-01T19:59:58Z", zone: "UTC",
                                           sound: sound, stateFolder: folder.path)
        #expect(kit.television.woken == ["if off: marquee started"])
        // At 20:00 the pills show (the messages changed by day: the input taken back if
        // another device took it) and are heard.
        await kit.advance(seconds: 3)
        #expect(kit.television.woken == ["if off: marquee started", "reclaim", "a reminder"])
        await kit.advance(seconds: 60)
        #expect(kit.television.woken == ["if off: marquee started", "reclaim", "a reminder", "an announcement"])
        // The announcement ends: the messages change again.
        await kit.advance(seconds: 600)
        #expect(kit.television.woken.last == "reclaim" && kit.television.woken.count == 5)
        kit.voice?.finish()
    }

    /// A message typed in that began before this run (its calendar read after a restart, when
    /// the feeds take a while) was announced by the run before: it wakes nothing; one that
    /// begins now does.
    @Test func aRestartAnnouncesNothingAgain() async throws {
        let kit = try await DisplayLoopKit(at: "2026-07-01T20:05:00Z", zone: "UTC")
        try kit.feeds.write("a.ics", calendar(event(
            "UID:taxi", "DTSTART:20260701T200100Z", "DURATION:PT30M", "SUMMARY:The taxi is here", "X-MARQUEE-EFFECT:typewriter")))
        await kit.post(.feedsChanged)
        #expect(kit.state.report.showing.contains("The taxi is here"))
        #expect(!kit.television.woken.contains("an announcement"), "\(kit.television.woken)")
        try kit.feeds.write("b.ics", calendar(event(
            "UID:doctor", "DTSTART:20260701T200500Z", "DURATION:PT30M", "SUMMARY:The doctor is here", "X-MARQUEE-EFFECT:typewriter")))
        await kit.post(.feedsChanged)
        #expect(kit.television.woken.last == "an announcement", "\(kit.television.woken)")
        // The clock set back three days: what begins now is still new to this run.
        kit.clock.stepWall(by: -3 * 86_400 * 1_000_000_000)
        await kit.advance(seconds: 1)
        let count = kit.television.woken.count
        try kit.feeds.write("c.ics", calendar(event(
            "UID:nurse", "DTSTART:20260628T200500Z", "DURATION:PT30M", "SUMMARY:The nurse is here", "X-MARQUEE-EFFECT:typewriter")))
        await kit.post(.feedsChanged)
        #expect(kit.television.woken.count == count + 1 && kit.television.woken.last == "an announcement",
                "\(kit.television.woken)")
    }

    /// A carer's `marquee wake` (the socket, Home Assistant's button) wakes it now.
    @Test func aRequestWakesIt() async throws {
        let kit = try await DisplayLoopKit(at: "2026-07-01T02:00:00+02:00", zone: "Europe/Berlin",
                                           orientation: OrientationSettings())
        await kit.post(.control(.wake))
        #expect(kit.television.woken == ["a request"])
    }

    /// Started at night nothing wakes it; the morning does.
    @Test func theMorningWakesIt() async throws {
        let kit = try await DisplayLoopKit(at: "2026-07-01T02:00:00+02:00", zone: "Europe/Berlin",
                                           orientation: OrientationSettings())
        #expect(kit.television.woken.isEmpty, "\(kit.state.report.orientation)")
        await kit.advance(seconds: 3_600 * 6)
        #expect(kit.television.woken == ["the morning"], "\(kit.state.report.orientation)")
    }
}

/// A television on a bus the test scripts: it keeps its power, answers when asked for it (or
/// not), and the adapter can be missing, come, or go.
final class ScriptedTelevision: CECBus {
    let path = "/dev/cec-test"
    let physicalAddress: UInt16 = 0x1000
    let logicalAddress: UInt8 = 4
    var power: TelevisionPower = .standby
    /// Whether the adapter is gone: every message fails as the kernel's ENODEV does.
    var isGone = false
    /// What was sent, in order.
    private(set) var sent: [CECMessage.Opcode] = []
    /// Messages the television sends, heard at the driver's next turns.
    var incoming: [CECMessage] = []

    func send(_ opcode: CECMessage.Opcode, to: UInt8, operands: [UInt8], reply: CECMessage.Opcode?,
              timeoutMilliseconds: UInt32) throws(CECAdapter.Failure) -> [UInt8]? {
        guard !isGone else { throw CECAdapter.Failure(description: "\(path): No such device", isAdapterGone: true) }
        sent.append(opcode)
        switch opcode {
        case .imageViewOn: power = .on
        case .standby: power = .standby
        case .giveDevicePowerStatus: return [power == .on ? 0 : 1]
        default: break
        }
        return nil
    }

    func movedTo() -> CECAdapter.Failure? { nil }

    func receive(timeoutMilliseconds: UInt32) throws(CECAdapter.Failure) -> CECMessage? {
        incoming.isEmpty ? nil : incoming.removeFirst()
    }
}

/// The television's driver on a scripted bus and a clock the test moves: what it sends, when,
/// and what it says — the rules the kiosk test reaches only through QEMU, each here a test.
@Suite struct TelevisionDriverTests {
    final class Kit {
        let requests = TelevisionRequests()
        let television = ScriptedTelevision()
        /// Whether the adapter is plugged in (`open` finds it).
        var plugged = false
        var seconds: Int64 = 1_000
        var told: [TelevisionStatus] = []
        lazy var driver = TelevisionDriver(
            requests: requests, log: nil,
            open: { [unowned self] in plugged ? (television, "") : (nil, "/dev/cec0: nothing connected") },
            now: { [unowned self] in seconds }, publish: { [unowned self] in told.append($0) })

        /// Turns of the driver over `span` seconds, one a second.
        func run(for span: Int64) {
            for _ in 0..<max(1, span) {
                _ = driver.step()
                seconds += 1
            }
        }
    }

    /// A wake asked while the adapter is missing is sent when it comes (looked for every 5 s
    /// while the wake waits, not every minute); one that waited ten minutes is given up.
    @Test func aWakeWaitsForTheAdapter() {
        let kit = Kit()
        kit.run(for: 2)
        kit.requests.ask(.wake("a reminder"), at: kit.seconds)
        kit.run(for: 20)
        #expect(kit.television.sent.isEmpty)
        kit.plugged = true
        kit.run(for: 6)
        #expect(Array(kit.television.sent.prefix(2)) == [.imageViewOn, .activeSource])
        #expect(kit.television.power == .on && kit.told.last?.lastWake == "a reminder")

        let late = Kit()
        late.run(for: 2)
        late.requests.ask(.wake("a reminder"), at: late.seconds)
        late.run(for: TelevisionDriver.longestPending + 2)
        late.plugged = true
        late.run(for: 61)
        #expect(!late.television.sent.contains(.imageViewOn), "given up after ten minutes")
    }

    /// Started by day: a television in standby is woken; one that is on keeps its input.
    @Test(arguments: [TelevisionPower.standby, .on])
    func aStartWakesOnlyATelevisionInStandby(power: TelevisionPower) {
        let kit = Kit()
        kit.plugged = true
        kit.television.power = power
        kit.requests.ask(.wakeIfOff("marquee started"), at: kit.seconds)
        kit.run(for: 2)
        #expect(kit.television.sent.contains(.activeSource) == (power == .standby))
        #expect(kit.television.power == .on)
        #expect(kit.told.last?.lastWake == (power == .standby ? "marquee started" : nil))
    }

    /// A wake that fails (the adapter pulled out) is tried again on the adapter found again.
    @Test func anAdapterThatGoesIsFoundAgain() {
        let kit = Kit()
        kit.plugged = true
        kit.run(for: 2)
        kit.television.isGone = true
        kit.plugged = false
        kit.requests.ask(.wake("a request"), at: kit.seconds)
        kit.run(for: 3)
        #expect(kit.told.last?.adapter == nil)
        kit.television.isGone = false
        kit.plugged = true
        kit.requests.ask(.wake("a request"), at: kit.seconds)
        kit.run(for: 6)
        #expect(kit.television.sent.contains(.imageViewOn) && kit.told.last?.lastWake == "a request")
    }

    /// Another device takes the input: marquee takes it back at the loop's ask, three times an
    /// hour at most.
    @Test func theInputIsTakenBackAtMostThreeTimesAnHour() {
        let kit = Kit()
        kit.plugged = true
        kit.television.power = .on
        kit.run(for: 2)
        for round in 0..<4 {
            kit.television.incoming.append(CECMessage(from: 8, to: 15, opcode: CECMessage.Opcode.activeSource.rawValue,
                                                      operands: [0x20, 0x00]))
            kit.run(for: 1)
            #expect(kit.told.last?.otherInput == "2.0.0.0", "round \(round)")
            kit.requests.askToReclaim()
            kit.run(for: 1)
            #expect((kit.told.last?.showingMarquee == true) == (round < 3), "round \(round)")
        }
    }
}
