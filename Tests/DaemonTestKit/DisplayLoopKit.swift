import Display
import Foundation
import Marquee
import Schedule
import Synchronization
import TestSupport
import Support
import Testing

@testable import Daemon

/// The display loop with a manual clock, a recording screen and a real schedule over feed
/// files the test writes. Time moves only when the test says; the loop's turns run as the
/// real loop's would (at each deadline it computes, and at each event), and every answer
/// from the schedule is waited for, so what a test sees never depends on timing.
package final class DisplayLoopKit {
    package let clock: ManualClock
    package let screen: RecordingScreen
    package let mailbox = EventMailbox()
    package let state: DisplayState
    package let feeds: TemporaryFolder
    package let loop: DisplayLoop
    /// Why the loop asked for the television to be woken, in order (no CEC bus here: the real
    /// one is tested in the kiosk test, on QEMU with the kernel's vivid driver).
    package let television = WakeRecorder()

    /// What plays the reminders (nil: no sound).
    package let voice: ReminderVoice?
    /// Where the loop's systemd notifications go (nil: it runs outside systemd).
    package let notify: NotifySocket?
    /// The screen drawn on now (the first, or the last one given to `replaceScreen`).
    package private(set) var current: RecordingScreen
    /// What the loop told systemd, and the steady time of the turn that told it.
    package private(set) var notifications: [(steady: SteadyInstant, message: String)] = []
    private var deadline: SteadyInstant?
    /// How the last turn ended, when it did not wait: finished, or the screen gone.
    package private(set) var ending: DisplayLoop.Turn?
    /// The schedule service's part, ended with the kit.
    private var serving: Task<Void, Never>?

    /// - Parameters:
    ///   - files: feed files by name.
    ///   - at: the wall clock at the start (RFC 3339).
    ///   - watchdog: systemd's watchdog timeout (nil: the loop runs outside systemd).
    ///   - orientation: the parts of the day and the orientation line (nil: neither, no night).
    ///   - backlight: dimmed at night instead of the colours.
    ///   - reloadSettings: reads the configuration file on a reload.
    ///   - screenOff: the hours the screen is dark (`screen_off`).
    package init(files: [String: String] = [:], at start: String, zone: String = "Europe/Berlin",
         settings: DisplaySettings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5)),
         showsProblems: Bool = false, watchdog: Nanoseconds? = nil, missing: [Character] = [], log: EventLog? = nil,
         orientation: OrientationSettings? = nil, backlight: Backlight? = nil,
         reloadSettings: (@Sendable () -> ReloadedSettings?)? = nil, sound: SoundSettings? = nil,
         stateFolder: String? = nil, fetchedRecordings: String? = nil, screenOff: DarkHours? = nil,
         homeAddress: @escaping @Sendable () -> String? = { nil }) async throws
    {
        feeds = try TemporaryFolder()
        for (name, text) in files { try feeds.write(name, text) }
        let wall = instant(start)
        clock = ManualClock(wall: wall)
        screen = RecordingScreen(clock: clock)
        screen.missing = missing
        current = screen
        state = DisplayState(clock: clock)
        notify = try watchdog.map { _ in try NotifySocket() }
        var environment: [String: String] = [:]
        if let notify, let watchdog {
            environment = ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": String(watchdog / 1000)]
        }
        let folder = feeds.path
        let schedule = try await Schedule(displayZone: zone, orientation: orientation, screenOff: screenOff)
        await schedule.load([folder], around: wall)
        let snapshot = await schedule.snapshot(at: wall)
        let (state, mailbox) = (state, mailbox)
        let voice = sound.map { hearing($0, stateFolder: stateFolder, state: state, mailbox: mailbox, log: log) }
        let (reminders, records) = sound.map {
            remembering($0, stateFolder: stateFolder, fetchedRecordings: fetchedRecordings, at: wall, state: state, log: log)
        } ?? (nil, nil)
        self.voice = voice
        let service = ScheduleService(schedule: schedule, mailbox: mailbox, log: nil)
        serving = Task { await service.serve() }
        loop = DisplayLoop(
            clock: clock, screen: screen, schedule: service,
            snapshot: snapshot, settings: settings, state: state, environment: environment, log: log,
            reloadSettings: reloadSettings, showsProblems: showsProblems, backlight: backlight,
            reminders: reminders, voice: voice, records: records, television: television, homeAddress: homeAddress)
        await settle()
    }

    deinit { serving?.cancel() }

    /// After the screen went away: the loop opens `next`, which takes `opening` to appear (as
    /// a new device node does), and draws on it.
    package func replaceScreen(with next: RecordingScreen, opening: Nanoseconds = 0) async {
        let replaced = loop.replaceScreen {
            recordNotifications()
            clock.advance(by: opening)
            return next
        }
        recordNotifications()
        #expect(replaced)
        current = next
        ending = nil
        deadline = nil
        await settle()
    }

    /// Runs turns for whatever was posted (and the answers they lead to) at the current time.
    package func settle() async {
        var first = deadline == nil && ending == nil
        while ending == nil {
            var events = mailbox.take()
            if events.isEmpty, loop.isAwaitingSchedule {
                await mailbox.nextPost()
                events = mailbox.take()
            }
            guard first || !events.isEmpty else { return }
            first = false
            turn(events)
        }
    }

    /// Moves both clocks on, turning the loop at every deadline it sets on the way.
    package func advance(by nanoseconds: Nanoseconds) async {
        let target = clock.steadyTime() + nanoseconds
        await settle()
        while ending == nil, let next = deadline, next <= target {
            clock.advance(by: next - clock.steadyTime())
            turn(mailbox.take())
            await settle()
        }
        clock.advance(by: target - clock.steadyTime())
        await settle()
    }

    /// Wakes the loop `lateness` after the deadline it set (a busy box's timer).
    package func wakeLate(by lateness: Nanoseconds) async {
        await settle()
        guard ending == nil, let next = deadline else { return }
        clock.advance(by: next - clock.steadyTime() + lateness)
        turn(mailbox.take())
        await settle()
    }

    package func advance(seconds: Double) async {
        await advance(by: Nanoseconds(seconds * 1e9))
    }

    /// Posts an event and handles it at once.
    package func post(_ event: DisplayEvent) async {
        mailbox.post(event)
        await settle()
    }

    private func turn(_ events: [DisplayEvent]) {
        switch loop.turn(events) {
        case .wait(let until): deadline = until
        case let ended: ending = ended
        }
        recordNotifications()
    }

    private func recordNotifications() {
        let steady = clock.steadyTime()
        notifications += (notify?.received() ?? []).map { (steady, $0) }
    }
}
