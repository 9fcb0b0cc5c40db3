import Display
import Foundation
import Marquee
import Schedule
import Synchronization
import TestSupport
import Support
import Testing

@testable import Daemon

/// A terminal-like screen of one line (40 cells unless told) that records every frame it is
/// shown. Its cells may be several units wide (another screen's measure), and its device may
/// go away (`isGone`).
package final class RecordingScreen: TickerScreen {
    package struct Shown {
        package var steady: SteadyInstant
        package var line: String
        package var fullRepaint: Bool
        package var isMoving: Bool
    }

    package private(set) var shown: [Shown] = []
    package private(set) var problems: [String] = []
    package private(set) var tookOver = false
    package private(set) var gaveBack = false
    /// Whether the next frame is drawn in full, as a real screen would.
    private var mustRepaint = true
    private let clock: ManualClock
    /// The line's width in cells.
    package var cells: Int
    /// Units per cell: what a frame's positions count in.
    package let unitsPerCell: Int
    package var isGone = false
    /// Characters it has no font for, handed over once.
    package var missing: [Character] = []
    /// The orientation line it was given last.
    package private(set) var orientation: String?

    package init(clock: ManualClock, cells: Int = 40, unitsPerCell: Int = 1) {
        self.clock = clock
        self.cells = cells
        self.unitsPerCell = unitsPerCell
    }

    /// The screen a new text style made of it (as a pixel screen makes one: larger text, fewer
    /// cells on the same line).
    package private(set) var restyledAs: RecordingScreen?

    package func restyled(_ style: FramebufferStyle) throws -> (any TickerScreen)? {
        let next = RecordingScreen(clock: clock, cells: Int(Double(cells) * 0.125 / style.textHeight), unitsPerCell: unitsPerCell)
        restyledAs = next
        return next
    }

    package var metrics: any GlyphMetrics { CellMetrics(unitsPerCharacter: unitsPerCell) }
    package var bandWidth: Int { cells * unitsPerCell }
    /// A refresh period makes it paced like a framebuffer (nil: like a terminal).
    package var framePeriod: Nanoseconds?
    package var announcementBox: any AnnouncementBox { OnePageBox() }
    package func showOrientation(_ text: String?) { orientation = text }

    /// Every shade it was given, and when (steady time).
    package private(set) var shades: [(steady: SteadyInstant, shade: Double)] = []

    package func setShade(_ shade: Double) {
        shades.append((clock.steadyTime(), shade))
        mustRepaint = true
    }

    package func takeMissingCharacters() -> [Character] {
        defer { missing = [] }
        return missing
    }

    /// Its line as last shown, one grey pixel per cell: lit where a letter stands.
    package func copyForPicture() -> ScreenCopy? {
        let line = Array(shown.last?.line ?? "")
        let rgb = (0..<cells).flatMap { cell -> [UInt8] in
            let lit: UInt8 = cell < line.count && line[cell] != " " ? 200 : 0
            return [lit, lit, lit]
        }
        return ScreenCopy(ScreenImage(width: cells, height: 1, rgb: rgb))
    }
    package var outputDescription: String { "recording screen \(cells)x1" }
    package var figures: ScreenFigures { ScreenFigures(glyphCache: glyphCache) }
    /// Paced as a terminal (or a framebuffer, with `framePeriod`).
    package var pacing: ScreenPacing {
        ScreenPacing(framePeriod: framePeriod, checkInterval: nil, effectStep: 100_000_000, drawsPartialGlyphs: false)
    }
    package var isShowing: Bool { true }
    package func takeOver() {
        tookOver = true
        mustRepaint = true
    }
    package func giveBack() { gaveBack = true }
    package func notice(_ change: ScreenChange) {
        if change == .resized { mustRepaint = true }
    }

    package func noticeChanges(at now: SteadyInstant) throws(ScreenReplaced) {
        if isGone { throw ScreenReplaced(description: "the recording screen is gone") }
    }

    package func showProblems(_ lines: [String]) {
        if lines != problems { mustRepaint = true }
        problems = lines
    }

    /// The frames it was asked to make ready, and when (steady time).
    package private(set) var prepared: [(steady: SteadyInstant, frame: Frame)] = []
    /// The frames shown, whole.
    package private(set) var frames: [Frame] = []

    package func prepare(_ frame: Frame) { prepared.append((clock.steadyTime(), frame)) }
    /// When set, a frame is seen this long after it is drawn (as a KMS flip lands on the next
    /// vertical blank); nil: at its deadline.
    package var presentationDelay: Nanoseconds?

    package func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant {
        presentationDelay.map { now + $0 } ?? due
    }
    /// What it says of its glyph cache (nil: none, as a terminal).
    package var glyphCache: GlyphCacheFigures?

    package func show(_ frame: Frame) {
        defer { mustRepaint = false }
        frames.append(frame)
        var line = [Character](repeating: " ", count: cells)
        for glyph in frame.glyphs where glyph.x >= 0 && glyph.x < bandWidth { line[glyph.x / unitsPerCell] = glyph.character }
        shown.append(Shown(steady: clock.steadyTime(), line: String(line), fullRepaint: mustRepaint, isMoving: frame.isMoving))
    }

    /// The last frame's text without the blanks around it.
    package var line: String { (shown.last?.line ?? "").trimmingCharacters(in: .whitespaces) }

    /// Whether it is dark, and every change of it with the steady time.
    package private(set) var isDark = false
    package private(set) var darkChanges: [(steady: SteadyInstant, dark: Bool)] = []

    /// Whether powering it on fails (a display that does not answer).
    package var failsToPowerOn = false

    package func setDark(_ dark: Bool) -> String {
        isDark = dark
        darkChanges.append((clock.steadyTime(), dark))
        mustRepaint = true
        return dark ? "powered down (recording)" : failsToPowerOn ? "could not be powered on (recording: EIO)" : ""
    }
}
