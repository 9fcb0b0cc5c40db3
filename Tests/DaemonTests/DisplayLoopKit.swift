import Display
import Foundation
import Marquee
import Schedule
import Synchronization
import TestSupport
import Support
import Testing

@testable import Daemon

/// A clock the test moves by hand: `advance` moves both times, `stepWall` only the wall
/// clock (as NTP or `date -s` would).
final class ManualClock: DisplayClock {
    private let times: Mutex<(wall: WallInstant, steady: SteadyInstant)>

    init(wall: Instant, steady: SteadyInstant = SteadyInstant(sinceOrigin: 5_000_000_000_000)) {
        times = Mutex((WallInstant(wall), steady))
    }

    func wallTime() -> WallInstant { times.withLock { $0.wall } }
    func steadyTime() -> SteadyInstant { times.withLock { $0.steady } }

    func advance(by nanoseconds: Nanoseconds) {
        times.withLock { $0 = ($0.wall + nanoseconds, $0.steady + nanoseconds) }
    }

    func stepWall(by nanoseconds: Nanoseconds) {
        times.withLock { $0.wall = $0.wall + nanoseconds }
    }
}

/// A terminal-like screen of one line (40 cells unless told) that records every frame it is
/// shown. Its cells may be several units wide (another screen's measure), and its device may
/// go away (`isGone`).
final class RecordingScreen: TickerScreen {
    struct Shown {
        var steady: SteadyInstant
        var line: String
        var fullRepaint: Bool
        var isMoving: Bool
    }

    private(set) var shown: [Shown] = []
    private(set) var problems: [String] = []
    private(set) var tookOver = false
    private(set) var gaveBack = false
    /// Whether the next frame is drawn in full, as a real screen would.
    private var mustRepaint = true
    private let clock: ManualClock
    /// The line's width in cells.
    var cells: Int
    /// Units per cell: what a frame's positions count in.
    let unitsPerCell: Int
    var isGone = false
    /// Characters it has no font for, handed over once.
    var missing: [Character] = []
    /// The orientation line it was given last.
    private(set) var orientation: String?

    init(clock: ManualClock, cells: Int = 40, unitsPerCell: Int = 1) {
        self.clock = clock
        self.cells = cells
        self.unitsPerCell = unitsPerCell
    }

    /// The screen a new text style made of it (as a pixel screen makes one: larger text, fewer
    /// cells on the same line).
    private(set) var restyledAs: RecordingScreen?

    func restyled(_ style: FramebufferStyle) throws -> (any TickerScreen)? {
        let next = RecordingScreen(clock: clock, cells: Int(Double(cells) * 0.125 / style.textHeight), unitsPerCell: unitsPerCell)
        restyledAs = next
        return next
    }

    var metrics: any GlyphMetrics { CellMetrics(unitsPerCharacter: unitsPerCell) }
    var bandWidth: Int { cells * unitsPerCell }
    /// A refresh period makes it paced like a framebuffer (nil: like a terminal).
    var framePeriod: Nanoseconds?
    var announcementBox: any AnnouncementBox { OnePageBox() }
    func showOrientation(_ text: String?) { orientation = text }

    /// Every shade it was given, and when (steady time).
    private(set) var shades: [(steady: SteadyInstant, shade: Double)] = []

    func setShade(_ shade: Double) {
        shades.append((clock.steadyTime(), shade))
        mustRepaint = true
    }

    func takeMissingCharacters() -> [Character] {
        defer { missing = [] }
        return missing
    }

    /// Its line as last shown, one grey pixel per cell: lit where a letter stands.
    func copyForPicture() -> ScreenCopy? {
        let line = Array(shown.last?.line ?? "")
        let rgb = (0..<cells).flatMap { cell -> [UInt8] in
            let lit: UInt8 = cell < line.count && line[cell] != " " ? 200 : 0
            return [lit, lit, lit]
        }
        return ScreenCopy(ScreenImage(width: cells, height: 1, rgb: rgb))
    }
    var outputDescription: String { "recording screen \(cells)x1" }
    var figures: ScreenFigures { ScreenFigures(glyphCache: glyphCache) }
    /// Paced as a terminal (or a framebuffer, with `framePeriod`).
    var pacing: ScreenPacing {
        ScreenPacing(framePeriod: framePeriod, checkInterval: nil, effectStep: 100_000_000, drawsPartialGlyphs: false)
    }
    var isShowing: Bool { true }
    func takeOver() {
        tookOver = true
        mustRepaint = true
    }
    func giveBack() { gaveBack = true }
    func notice(_ change: ScreenChange) {
        if change == .resized { mustRepaint = true }
    }

    func noticeChanges(at now: SteadyInstant) throws(ScreenReplaced) {
        if isGone { throw ScreenReplaced(description: "the recording screen is gone") }
    }

    func showProblems(_ lines: [String]) {
        if lines != problems { mustRepaint = true }
        problems = lines
    }

    /// The frames it was asked to make ready, and when (steady time).
    private(set) var prepared: [(steady: SteadyInstant, frame: Frame)] = []
    /// The frames shown, whole.
    private(set) var frames: [Frame] = []

    func prepare(_ frame: Frame) { prepared.append((clock.steadyTime(), frame)) }
    /// When set, a frame is seen this long after it is drawn (as a KMS flip lands on the next
    /// vertical blank); nil: at its deadline.
    var presentationDelay: Nanoseconds?

    func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant {
        presentationDelay.map { now + $0 } ?? due
    }
    /// What it says of its glyph cache (nil: none, as a terminal).
    var glyphCache: GlyphCacheFigures?

    func show(_ frame: Frame) {
        defer { mustRepaint = false }
        frames.append(frame)
        var line = [Character](repeating: " ", count: cells)
        for glyph in frame.glyphs where glyph.x >= 0 && glyph.x < bandWidth { line[glyph.x / unitsPerCell] = glyph.character }
        shown.append(Shown(steady: clock.steadyTime(), line: String(line), fullRepaint: mustRepaint, isMoving: frame.isMoving))
    }

    /// The last frame's text without the blanks around it.
    var line: String { (shown.last?.line ?? "").trimmingCharacters(in: .whitespaces) }

    /// Whether it is dark, and every change of it with the steady time.
    private(set) var isDark = false
    private(set) var darkChanges: [(steady: SteadyInstant, dark: Bool)] = []

    /// Whether powering it on fails (a display that does not answer).
    var failsToPowerOn = false

    func setDark(_ dark: Bool) -> String {
        isDark = dark
        darkChanges.append((clock.steadyTime(), dark))
        mustRepaint = true
        return dark ? "powered down (recording)" : failsToPowerOn ? "could not be powered on (recording: EIO)" : ""
    }
}

/// A systemd notify socket of the test's own: what the loop tells systemd.
final class NotifySocket {
    let path: String
    private let folder: TemporaryFolder
    private let descriptor: Int32

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path + "/notify"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit { close(descriptor) }

    /// The datagrams that arrived since the last call.
    func received() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return messages }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }
}

/// `JOURNAL_STREAM` for a log written into `pipe` (as journald's stream would be).
func journalStream(of pipe: Pipe) -> String {
    var info = stat()
    fstat(pipe.fileHandleForWriting.fileDescriptor, &info)
    return "\(info.st_dev):\(info.st_ino)"
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
    /// Why the loop asked for the television to be woken, in order (no CEC bus here: the real
    /// one is tested in the kiosk test, on QEMU with the kernel's vivid driver).
    let television = WakeRecorder()

    /// What plays the reminders (nil: no sound).
    let voice: ReminderVoice?
    /// Where the loop's systemd notifications go (nil: it runs outside systemd).
    let notify: NotifySocket?
    /// The screen drawn on now (the first, or the last one given to `replaceScreen`).
    private(set) var current: RecordingScreen
    /// What the loop told systemd, and the steady time of the turn that told it.
    private(set) var notifications: [(steady: SteadyInstant, message: String)] = []
    private var deadline: SteadyInstant?
    /// How the last turn ended, when it did not wait: finished, or the screen gone.
    private(set) var ending: DisplayLoop.Turn?
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
    init(files: [String: String] = [:], at start: String, zone: String = "Europe/Berlin",
         settings: DisplaySettings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5)),
         showsProblems: Bool = false, watchdog: Nanoseconds? = nil, missing: [Character] = [], log: EventLog? = nil,
         orientation: OrientationSettings? = nil, backlight: Backlight? = nil,
         reloadSettings: (@Sendable () -> ReloadedSettings?)? = nil, sound: SoundSettings? = nil,
         stateFolder: String? = nil, fetchedRecordings: String? = nil, screenOff: DarkHours? = nil) async throws
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
            reminders: reminders, voice: voice, records: records, television: television)
        await settle()
    }

    deinit { serving?.cancel() }

    /// After the screen went away: the loop opens `next`, which takes `opening` to appear (as
    /// a new device node does), and draws on it.
    func replaceScreen(with next: RecordingScreen, opening: Nanoseconds = 0) async {
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

    /// Wakes the loop `lateness` after the deadline it set (a busy box's timer).
    func wakeLate(by lateness: Nanoseconds) async {
        await settle()
        guard ending == nil, let next = deadline else { return }
        clock.advance(by: next - clock.steadyTime() + lateness)
        turn(mailbox.take())
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
        case let ended: ending = ended
        }
        recordNotifications()
    }

    private func recordNotifications() {
        let steady = clock.steadyTime()
        notifications += (notify?.received() ?? []).map { (steady, $0) }
    }
}

/// The reasons the loop gave for waking the television, its asks to take the input back
/// ("reclaim") and to put it to standby ("standby: screen_off").
final class WakeRecorder: TelevisionWaking {
    private let reasons = Mutex<[String]>([])

    func wake(because reason: String) { reasons.withLock { $0.append(reason) } }

    func wakeIfOff(because reason: String) { reasons.withLock { $0.append("if off: " + reason) } }

    func standby(because reason: String) { reasons.withLock { $0.append("standby: " + reason) } }

    func reclaimInput() { reasons.withLock { $0.append("reclaim") } }

    func isReadyForSound() -> Bool { true }

    var woken: [String] { reasons.withLock { $0 } }
}
