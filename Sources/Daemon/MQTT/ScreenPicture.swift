import Display
import Marquee
import Schedule

/// The screen as a picture for the carers' broker: what the display shows now, drawn by the
/// renderer of `marquee snapshot` on a screen of its own (640x360, the display's font and text
/// size, as a reload left them), as PNG. Drawn when the messages, the pause or the settings
/// change, and at most every 30 s while the text moves; never on the render thread.
actor ScreenPicture {
    static let width = 640
    static let height = 360
    /// While the text moves, a new picture at most this often.
    static let movingInterval: Duration = .seconds(30)

    private let schedule: Schedule
    private var settings: DisplaySettings
    private var style: FramebufferStyle
    private let displayStartedAt: WallInstant
    /// What the display showed when the state was last looked at, and at which change count.
    private struct Look: Equatable {
        var changes: Int
        var showing: [String]
        var paused: Bool
        var moving: Bool
    }

    private var looked: Look?
    /// What the last picture shows, and when it was drawn.
    private var drawn: (look: Look, at: ContinuousClock.Instant)?
    /// When drawing last failed (a font file gone): tried again `movingInterval` later, not at
    /// every look.
    private var failed: ContinuousClock.Instant?

    init(schedule: Schedule, settings: DisplaySettings, style: FramebufferStyle, displayStartedAt: WallInstant) {
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
    }

    /// A new picture if one is due (nil: the last still holds): the messages or the pause
    /// changed, or the text moves and the last picture is `movingInterval` old. The state's
    /// `report` is read only when its change count moved (a change of motion moves it too).
    func pictureIfDue(changes: Int, at wall: WallInstant, now: ContinuousClock.Instant = .now,
                      report: @Sendable () -> StatusReport) async -> [UInt8]? {
        if looked?.changes != changes {
            let shown = report()
            looked = Look(changes: changes, showing: shown.showing, paused: shown.paused, moving: shown.moving)
        }
        guard let look = looked else { return nil }
        if let drawn, drawn.look.showing == look.showing, drawn.look.paused == look.paused,
           !look.moving || now - drawn.at < Self.movingInterval { return nil }
        if let failed, now - failed < Self.movingInterval { return nil }
        do {
            let picture = try await draw(at: wall, paused: look.paused)
            (drawn, failed) = ((look, now), nil)
            return picture
        } catch {
            failed = now
            return nil
        }
    }

    /// How far back the picture's display is taken to have started: the changes of messages
    /// replayed stay few however long the box has run.
    static let replayed: Nanoseconds = 600_000_000_000

    private func draw(at wall: WallInstant, paused: Bool) async throws -> [UInt8] {
        let framebuffer = Framebuffer(width: Self.width, height: Self.height)
        let screen = try PixelScreen(scanout: framebuffer, style: style)
        _ = try await showSnapshot(of: schedule, settings: settings, on: screen,
                                   displayStartedAt: max(displayStartedAt, wall - Self.replayed), at: wall, paused: paused)
        return PNGImage.encode(framebuffer.surface)
    }
}
