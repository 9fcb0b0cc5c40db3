import Marquee
import Support

/// What the render loop draws on: a terminal, or pixels on a KMS output or a framebuffer. The
/// loop owns the clock and the `MarqueeController`; a screen is a device, a band it draws the
/// marquee's frames on, and what it shows around the band. Each screen remembers when its next
/// frame must be drawn in full (taken over, resized, a new shade or problems to show).
package typealias TickerScreen = ScreenDevice & BandDrawing & BandSurroundings

/// The device under a screen: taking it over and giving it back, what happens to it from
/// outside, and when what is drawn on it is seen.
package protocol ScreenDevice: AnyObject {
    /// For the status and the journal: "Linux console 80x25, 8 colours", "framebuffer /dev/fb0
    /// 1920x1080 …".
    var outputDescription: String { get }
    /// How it does, for the status, read after every frame.
    var figures: ScreenFigures { get }
    /// What the loop's deadlines follow.
    var pacing: ScreenPacing { get }
    /// False while nothing drawn would be seen (another console is shown): no frames then.
    var isShowing: Bool { get }
    /// Takes the device over; the first frame after it is drawn in full.
    func takeOver() throws
    /// Gives the device back as it was.
    func giveBack()
    /// Looks at what may have changed outside the picture (something else writing to the
    /// screen, the device). Throws `ScreenReplaced` when the device is gone and a new screen
    /// must be opened.
    func noticeChanges(at now: SteadyInstant) throws(ScreenReplaced)
    /// Told of a resize or a console switch as it happens.
    func notice(_ change: ScreenChange)
    /// When a frame drawn now will be seen: the frame is computed for that instant (position is
    /// a function of the time it is seen). `due` is the loop's deadline for the frame; a KMS
    /// screen answers the vertical blank its page flip will land on.
    func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant
    /// Dark (`screen_off`: the display powered down where the device can, else black) or lit
    /// again, drawn in full with the next frame; no frames are drawn while it is dark. Answers
    /// how it went dark, for the status; lit, "" or why it could not be powered on again.
    func setDark(_ dark: Bool) -> String
}

/// The band a screen draws the marquee's frames on: how it measures text, and frames.
package protocol BandDrawing: AnyObject {
    /// How the screen measures text (cells, or 1/64 pixels).
    var metrics: any GlyphMetrics { get }
    /// The band's width in the metrics' units.
    var bandWidth: Int { get }
    /// How its announcement box pages a long announcement.
    var announcementBox: any AnnouncementBox { get }
    /// Characters of the messages laid out so far that it has no font for (left out), each
    /// handed over once.
    func takeMissingCharacters() -> [Character]
    /// Shows a frame (nothing, while the screen is not visible): what changed since the last
    /// one, or everything when the screen must be drawn in full.
    func show(_ frame: Frame) throws
    /// Makes ready, ahead of its deadline, what showing `frame` will need (glyphs rasterized),
    /// so showing it then is quick and even.
    func prepare(_ frame: Frame)
    /// What the glass shows now, as the frame last shown was drawn, for a picture made away
    /// from the display loop (`ScreenCopy.picture`); nil where the screen has no pixels of its
    /// own (a terminal).
    func copyForPicture() -> ScreenCopy?
    /// The same device drawn in `style` (another font, text size or glyph budget: a new
    /// layout), to be taken over in its place; nil where the style changes nothing (a terminal,
    /// or the style in use). Throws when the fonts cannot be used.
    func restyled(_ style: FramebufferStyle) throws -> (any TickerScreen)?
}

extension BandDrawing {
    package func restyled(_ style: FramebufferStyle) throws -> (any TickerScreen)? { nil }
}

/// What a screen shows around the band, each drawn with the next frame.
package protocol BandSurroundings: AnyObject {
    /// The orientation line from now on ("Monday morning · 23 November 2026"; nil: none), below
    /// the band where the screen has room.
    func showOrientation(_ text: String?)
    /// How far the screen is dimmed for the night from now on (0: day, 1: night).
    func setShade(_ shade: Double)
    /// Problems the person who started marquee by hand should see (no feed folder), below
    /// the band where the screen has room; empty when there are none.
    func showProblems(_ lines: [String])
}

/// How a screen does, for the status: read after every frame, so nothing is written out.
package struct ScreenFigures: Sendable, Hashable {
    /// The page flips that reached the glass (nil: the screen does not flip pages).
    package var pageFlips: PageFlipFigures?
    /// The glyph pictures kept (nil: the screen keeps none, a terminal).
    package var glyphCache: GlyphCacheFigures?

    package init(pageFlips: PageFlipFigures? = nil, glyphCache: GlyphCacheFigures? = nil) {
        self.pageFlips = pageFlips
        self.glyphCache = glyphCache
    }
}

/// How a screen is paced: what the display loop's deadlines follow.
package struct ScreenPacing: Sendable, Hashable {
    /// The display's refresh period: frames come no closer together. nil: only when the
    /// picture changes (a terminal, where motion goes by whole cells).
    package var framePeriod: Nanoseconds?
    /// The loop asks `noticeChanges(at:)` at least this often, even while the picture is
    /// still (nil: only when it wakes for other reasons).
    package var checkInterval: Nanoseconds?
    /// How often an effect (dance, bobbing arrow) is redrawn.
    package var effectStep: Nanoseconds
    /// Whether glyphs cut by the band's edges are drawn (pixels) or left out (cells).
    package var drawsPartialGlyphs: Bool

    package init(framePeriod: Nanoseconds?, checkInterval: Nanoseconds?, effectStep: Nanoseconds, drawsPartialGlyphs: Bool) {
        self.framePeriod = framePeriod
        self.checkInterval = checkInterval
        self.effectStep = effectStep
        self.drawsPartialGlyphs = drawsPartialGlyphs
    }
}

/// How full a screen's glyph cache is and how often it had what was asked, for the status.
package struct GlyphCacheFigures: Sendable, Hashable, Codable {
    package var bytes: Int
    package var budget: Int
    /// Look-ups of a glyph picture since the screen opened, and how many found it.
    package var lookups: Int
    package var found: Int

    package init(bytes: Int, budget: Int, lookups: Int, found: Int) {
        self.bytes = bytes
        self.budget = budget
        self.lookups = lookups
        self.found = found
    }
}

/// How many frames a page-flipped screen showed and how many vertical blanks showed a frame
/// again because the next one was late, for the status.
package struct PageFlipFigures: Sendable, Hashable, Codable {
    package var shown: Int
    package var missedVblanks: Int

    package init(shown: Int, missedVblanks: Int) {
        self.shown = shown
        self.missedVblanks = missedVblanks
    }
}

/// What happens to a screen from outside, reported by the loop (from signals).
package enum ScreenChange: Sendable {
    /// The terminal's size may have changed (SIGWINCH).
    case resized
    /// The kernel asks to switch the virtual console away, or gives it back (VT_PROCESS).
    case consoleSwitchRequested
    /// The screen's device node was created, removed or changed (a driver took over).
    case deviceChanged
}

/// The device under a screen went away or changed (a DRM driver replaced the firmware
/// framebuffer): the screen must be opened again.
package struct ScreenReplaced: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}
