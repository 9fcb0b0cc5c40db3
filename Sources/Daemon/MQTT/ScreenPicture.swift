import Display
import Marquee
import Schedule
import Support
import Synchronization

/// The screen as a picture for the carers' broker: what the glass shows now, asked of the
/// display loop (a pixel screen's own frame as last shown, a terminal's grid of cells drawn in
/// pixels), 640 pixels wide in the screen's shape. Where the screen gives none (no font to
/// draw a terminal's cells with), drawn by the renderer of `marquee snapshot` on a screen of its
/// own (640x360, the display's font and text size, as a reload left them). A new picture when
/// what is on the glass, the pause or the settings change, and at least every 30 s while the
/// text moves; scaled and encoded as PNG here, never on the render thread.
actor ScreenPicture {
    static let width = 640
    static let height = 360
    /// How long the display loop is given to answer for its picture.
    static let answerWait: Duration = .seconds(2)
    /// While the text moves, a new picture at most this often.
    static let movingInterval: Duration = .seconds(30)

    private let schedule: Schedule
    private var settings: DisplaySettings
    private var style: FramebufferStyle
    private let displayStartedAt: WallInstant
    /// Asks the display loop for the screen's own picture (nil: none is asked, as in a test
    /// without a loop).
    private let mailbox: EventMailbox?
    /// What the display showed when the state was last looked at, and at which change count.
    private struct Look: Equatable {
        var changes: Int
        var showing: [String]
        var onScreen: [String]
        var paused: Bool
        var moving: Bool
        /// The orientation line: the part of the day (the night dims the screen) and the date.
        var orientation: String?
    }

    private var looked: Look?
    /// Counts the settings `use` was given: a picture drawn while they changed (the actor
    /// takes `use` while it awaits the loop's answer) is not the one they ask for.
    private var settingsChanges = 0
    /// What the last picture shows, and when it was drawn.
    private var drawn: (look: Look, at: ContinuousClock.Instant)?
    /// When drawing last failed (a font file gone): tried again `movingInterval` later, not at
    /// every look.
    private var failed: ContinuousClock.Instant?
    /// Where a failure to draw is said, once until it changes or drawing works again.
    private let log: EventLog?
    private var saidFailure: String?

    init(schedule: Schedule, settings: DisplaySettings, style: FramebufferStyle, displayStartedAt: WallInstant,
         mailbox: EventMailbox? = nil, log: EventLog? = nil) {
        self.mailbox = mailbox
        self.log = log
        self.schedule = schedule
        self.settings = settings
        self.style = style
        self.displayStartedAt = displayStartedAt
    }

    /// Draws with what a carer's reload read from now on (a nil style keeps the one it has):
    /// a new picture at the next look.
    func use(_ settings: DisplaySettings, style: FramebufferStyle?) {
        self.settings = settings
        if let style { self.style = style }
        (drawn, failed) = (nil, nil)
        settingsChanges += 1
    }

    /// A new picture if one is due (nil: the last still holds): the messages or the pause
    /// changed, or the text moves and the last picture is `movingInterval` old. The state's
    /// `report` is read only when its change count moved (a change of motion moves it too).
    func pictureIfDue(changes: Int, at wall: WallInstant, now: ContinuousClock.Instant = .now,
                      report: @Sendable () -> StatusReport) async -> [UInt8]? {
        if looked?.changes != changes {
            let shown = report()
            looked = Look(changes: changes, showing: shown.showing, onScreen: shown.onScreen, paused: shown.paused,
                          moving: shown.moving, orientation: shown.orientation)
        }
        guard let look = looked else { return nil }
        if let drawn, drawn.look.showing == look.showing, drawn.look.onScreen == look.onScreen,
           drawn.look.paused == look.paused, drawn.look.orientation == look.orientation,
           !look.moving || now - drawn.at < Self.movingInterval { return nil }
        if let failed, now - failed < Self.movingInterval { return nil }
        let settingsDrawn = settingsChanges
        do {
            let picture = try await draw(at: wall, paused: look.paused)
            if settingsChanges == settingsDrawn { (drawn, failed) = ((look, now), nil) }
            if saidFailure.take() != nil { log?.log(.notice, "MQTT: the screen's picture is drawn again") }
            return picture
        } catch {
            if settingsChanges == settingsDrawn { failed = now }
            let said = "\(error)"
            if saidFailure != said {
                saidFailure = said
                log?.log(.warning, "MQTT: the screen's picture cannot be drawn (\(said)); Home Assistant keeps the last "
                    + "one, and it is tried again every \(Int(Self.movingInterval.components.seconds)) s")
            }
            return nil
        }
    }

    /// How far back the picture's display is taken to have started: the changes of messages
    /// replayed stay few however long the box has run.
    static let replayed: Nanoseconds = 600_000_000_000

    private func draw(at wall: WallInstant, paused: Bool) async throws -> [UInt8] {
        if let mailbox {
            let request = PictureRequest()
            mailbox.post(.pictureWanted(request))
            switch await request.answer(within: Self.answerWait) {
            case .some(.some(let copy)): return PNGImage.encode(copy.picture(width: Self.width))
            case .some(.none): break
            case .none: throw PictureUnanswered()
            }
        }
        let framebuffer = Framebuffer(width: Self.width, height: Self.height)
        let screen = try PixelScreen(scanout: framebuffer, style: style)
        _ = try await showSnapshot(of: schedule, settings: settings, on: screen,
                                   displayStartedAt: max(displayStartedAt, wall - Self.replayed), at: wall, paused: paused)
        return PNGImage.encode(framebuffer.surface)
    }
}

/// The display loop did not answer for its picture in time (it is busy, or ending).
struct PictureUnanswered: Error {}

/// The screen's latest picture, drawn once for everyone who shows it (the broker, the carer's
/// page): `keepDrawing` (a running part) looks four times a second whether a new one is due,
/// while someone wants it (the broker always; the page while a carer has it open).
final class ScreenPictures: Sendable {
    /// How often it looks: a change is in the picture within a second.
    static let lookInterval: Duration = .milliseconds(250)
    /// A page that asked for the picture is drawn for this long after.
    static let wantedFor: Nanoseconds = 60_000_000_000

    private let picture: ScreenPicture
    private let state: DisplayState
    private let clock: any BoxClock
    private let latest = Mutex<(bytes: [UInt8], number: Int)?>(nil)
    /// Whether the picture is drawn whether or not anyone asks (the broker retains it).
    private let alwaysWanted: Bool
    private let lastWanted = Mutex<SteadyInstant?>(nil)

    init(_ picture: ScreenPicture, state: DisplayState, clock: any BoxClock, alwaysWanted: Bool = true) {
        self.picture = picture
        self.state = state
        self.clock = clock
        self.alwaysWanted = alwaysWanted
    }

    /// Someone shows the picture now (a carer's page): it is kept up to date for a while.
    func want() {
        let now = clock.steadyTime()
        lastWanted.withLock { $0 = now }
    }

    private var isWanted: Bool {
        alwaysWanted || lastWanted.withLock { $0 }.map { clock.steadyTime() - $0 < Self.wantedFor } == true
    }

    /// The latest picture (PNG) and its number, which grows with each new one (nil: none yet).
    var current: (bytes: [UInt8], number: Int)? { latest.withLock { $0 } }

    /// Draws a new picture whenever one is due, until the task is cancelled.
    func keepDrawing() async {
        let state = state
        while !Task.isCancelled {
            if isWanted, let bytes = await picture.pictureIfDue(changes: state.changes, at: clock.wallTime(), report: { state.report }) {
                latest.withLock { $0 = (bytes, ($0?.number ?? 0) + 1) }
            }
            await clock.sleep(for: Self.lookInterval)
        }
    }

    /// Draws with what a carer's reload read from now on.
    func use(_ settings: DisplaySettings, style: FramebufferStyle?) async {
        await picture.use(settings, style: style)
    }
}
