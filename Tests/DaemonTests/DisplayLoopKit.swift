import Display
import Foundation
import Marquee
import Schedule
import Synchronization

@testable import Daemon

/// A clock the test moves by hand: `advance` moves both times, `stepWall` only the wall
/// clock (as NTP or `date -s` would).
final class ManualClock: DisplayClock {
    private let times: Mutex<(wall: Nanoseconds, steady: Nanoseconds)>

    init(wall: Nanoseconds, steady: Nanoseconds = 5_000_000_000_000) {
        times = Mutex((wall, steady))
    }

    func wallTime() -> Nanoseconds { times.withLock { $0.wall } }
    func steadyTime() -> Nanoseconds { times.withLock { $0.steady } }

    func advance(by nanoseconds: Nanoseconds) {
        times.withLock { $0 = ($0.wall + nanoseconds, $0.steady + nanoseconds) }
    }

    func stepWall(by nanoseconds: Nanoseconds) {
        times.withLock { $0.wall += nanoseconds }
    }
}

/// A terminal-like screen of one 40-cell line that records every frame it is shown.
final class RecordingScreen: TickerScreen {
    struct Shown {
        var steady: Nanoseconds
        var line: String
        var fullRepaint: Bool
        var isMoving: Bool
    }

    private(set) var shown: [Shown] = []
    private(set) var problems: [String] = []
    private(set) var tookOver = false
    private(set) var gaveBack = false
    private let clock: ManualClock
    var bandWidth = 40

    init(clock: ManualClock) {
        self.clock = clock
    }

    var metrics: any GlyphMetrics { TerminalMetrics() }
    var drawsPartialGlyphs: Bool { false }
    var framePeriod: Nanoseconds? { nil }
    var effectStep: Nanoseconds { 100_000_000 }
    var outputDescription: String { "recording screen \(bandWidth)x1" }
    var checkInterval: Nanoseconds? { nil }
    var isShowing: Bool { true }
    func takeOver() { tookOver = true }
    func giveBack() { gaveBack = true }
    func noticeChanges(at now: Nanoseconds) -> Bool { false }
    func notice(_ change: ScreenChange) -> Bool { change == .resized }

    func showProblems(_ lines: [String]) -> Bool {
        defer { problems = lines }
        return lines != problems
    }

    func show(_ frame: Frame, fullRepaint: Bool) {
        var cells = [Character](repeating: " ", count: bandWidth)
        for glyph in frame.glyphs where glyph.x >= 0 && glyph.x < bandWidth { cells[glyph.x] = glyph.character }
        shown.append(Shown(steady: clock.steadyTime(), line: String(cells), fullRepaint: fullRepaint, isMoving: frame.isMoving))
    }

    /// The last frame's text without the blanks around it.
    var line: String { (shown.last?.line ?? "").trimmingCharacters(in: .whitespaces) }
}

/// A folder of its own, removed with the value.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-kit-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }
}

/// The display loop with a manual clock, a recording screen and a real schedule over feed
/// files the test writes. Time moves only when the test says; the loop's turns run as the
/// real loop's would (at each deadline it computes, and at each event), and every answer
/// from the schedule is waited for, so what a test sees never depends on timing.
final class DisplayLoopKit {
    let clock: ManualClock
    let screen: RecordingScreen
    let mailbox = EventMailbox()
    let state: DisplayState
    let feeds: TemporaryFolder
    let loop: DisplayLoop
    private var deadline: Nanoseconds?
    private(set) var ending: DisplayLoop.Ending?

    /// - Parameters:
    ///   - files: feed files by name.
    ///   - at: the wall clock at the start (RFC 3339).
    init(files: [String: String] = [:], at start: String, zone: String = "Europe/Berlin",
         settings: DisplaySettings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5)),
         showsProblems: Bool = false) async throws {
        feeds = try TemporaryFolder()
        for (name, text) in files { try feeds.write(name, text) }
        let wall = Instant(start).nanoseconds
        clock = ManualClock(wall: wall)
        screen = RecordingScreen(clock: clock)
        state = DisplayState(clock: clock)
        let folder = feeds.path
        let schedule = try await Schedule(displayZone: zone)
        await schedule.load([folder], around: Instant(nanoseconds: wall))
        let snapshot = await schedule.snapshot(at: Instant(nanoseconds: wall))
        loop = DisplayLoop(
            clock: clock, screen: screen, schedule: ScheduleService(schedule: schedule, mailbox: mailbox, log: nil),
            snapshot: snapshot, settings: settings, state: state, showsProblems: showsProblems)
        await settle()
    }

    /// Runs turns for whatever was posted (and the answers they lead to) at the current time.
    func settle() async {
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
    func advance(by nanoseconds: Nanoseconds) async {
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

    func advance(seconds: Double) async {
        await advance(by: Nanoseconds(seconds * 1e9))
    }

    /// Posts an event and handles it at once.
    func post(_ event: DisplayEvent) async {
        mailbox.post(event)
        await settle()
    }

    private func turn(_ events: [DisplayEvent]) {
        switch loop.turn(events) {
        case .wait(let until): deadline = until
        case .ended(let how): ending = how
        }
    }
}

extension Instant {
    /// An RFC 3339 time with an offset (tests name only such times).
    init(_ text: String) {
        guard case .instant(let instant)? = TimeArgument(text) else { fatalError("\(text) is not an RFC 3339 instant") }
        self = instant
    }
}
