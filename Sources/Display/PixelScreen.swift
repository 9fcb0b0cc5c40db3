import CLinux
import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// How a pixel display (KMS or framebuffer) looks, apart from the messages.
package struct FramebufferStyle: Sendable, Hashable {
    /// Font files, the text font first; a character is taken from the first that has it.
    package var fontPaths: [String] = FontStack.defaultPaths
    /// Text size as a share of the screen height (1/8: readable across a room).
    package var textHeight: Double = 1.0 / 8
    /// Bytes the glyph pictures may take (a small box has little memory; a frame's own
    /// glyphs are kept even past it). nil: as much as the text's size needs (see
    /// `PixelScreen.glyphCacheBudget(pixelSize:)`).
    package var glyphCacheBudget: Int?

    package init() {}
}

/// The ticker in pixels: black screen, one band of large text across the middle moving by
/// quarter pixels, the announcement box above it, the orientation line below. The band, the
/// box and the line are each drawn into a buffer of their own in the device's format when they
/// change; the scanout (a KMS output, a framebuffer) puts them on the glass. The device's
/// memory is never read.
package final class PixelScreen: TickerScreen {
    package let fonts: FontStack
    /// The announcement box's smaller font.
    let boxFonts: FontStack
    /// The orientation line's font, smaller again and calm.
    let lineFonts: FontStack
    private let scanout: any Scanout
    private let console: VirtualConsole?
    private var painter: GlyphPainter
    /// Rows of the screen: the band, the box above it, the orientation line below it.
    let bandRows: Range<Int>
    let boxRows: Range<Int>
    let lineRows: Range<Int>
    /// The band's baseline, from the band's top.
    let baseline: Int
    private let band: PixelSurface
    private let box: PixelSurface
    private let line: PixelSurface
    private let bandExtents: RowExtents
    private let boxExtents: RowExtents
    private let lineExtents: RowExtents
    /// Versions of the band's, the box's and the line's pixels, and of the whole picture (new
    /// when everything must be drawn again), so a scanout copies only what a buffer lacks.
    private var versions = (band: 0, box: 0, line: 0)
    private var generation = 0
    /// Whether the next frame is drawn in full (see `TickerScreen`).
    private(set) var mustRepaint = true
    /// The orientation line asked for, and the one in its buffer (nil: none drawn yet).
    private var lineText: String?
    private var drawnLine: String??
    /// How far colours are dimmed for the night (see `TickerScreen.setShade`): the painter's,
    /// which dims pictures in their own colours by it.
    private var shade: Double { painter.shade }
    /// A smaller font for a line too wide for the screen in `lineFonts`, kept for the next time.
    private var fittedLineFonts: FontStack?
    /// The font, text size and glyph budget it draws with.
    package let style: FramebufferStyle
    /// The glyphs in the band's buffer (their positions are all the picture depends on).
    private var lastBand: [FrameGlyph]?
    private var lastAnnouncement: Announcement??
    private var wrapped: (text: [LaidGlyph], lines: [[LaidGlyph]])?
    private var lastDeviceCheck: SteadyInstant?
    /// The glyph pictures of one laid glyph, kept so that drawing allocates nothing.
    private var placements: [GlyphPlacement] = []
    /// Ink colours worked out (made readable, turned by the dance, dimmed for the night), by
    /// the message's colour and the dance's hue step; forgotten when the shade changes.
    private var inkColours: [InkKey: Colour] = [:]
    /// The last one asked for (a message's letters share it).
    private var lastInk: (key: InkKey, ink: Colour)?
    private struct InkKey: Hashable {
        var colour: Colour?
        var hueSteps: Int
    }

    /// - Parameters:
    ///   - console: the virtual console to take over (nil: a file or memory, or not on a VT).
    package init(scanout: any Scanout, style: FramebufferStyle = .init(), console: VirtualConsole? = nil) throws(FontError) {
        self.scanout = scanout
        self.console = console
        let screen = (width: scanout.width, height: scanout.height, format: scanout.format)
        let size = max(8, Int((Double(screen.height) * style.textHeight).rounded()))
        fonts = try FontStack(paths: style.fontPaths, pixelSize: size)
        boxFonts = try FontStack(paths: style.fontPaths, pixelSize: max(8, size * 7 / 10))
        lineFonts = try FontStack(paths: style.fontPaths, pixelSize: max(8, size * 11 / 20))
        self.style = style
        painter = GlyphPainter(format: screen.format, cacheBudget: style.glyphCacheBudget ?? Self.glyphCacheBudget(pixelSize: size))
        // Room above the letters for the dance's lift, and a little air below.
        let lift = Self.liftRoom(size)
        let bandHeight = min(screen.height, fonts.ascender + fonts.descender + lift + size / 8)
        let bandTop = (screen.height - bandHeight) / 2
        bandRows = bandTop..<(bandTop + bandHeight)
        baseline = lift + fonts.ascender
        let boxLine = boxFonts.ascender + boxFonts.descender
        let boxHeight = min(bandTop - size / 4, 3 * boxLine + 2 * Self.boxPadding(boxFonts.pixelSize))
        boxRows = max(0, bandTop - size / 4 - boxHeight)..<max(0, bandTop - size / 4)
        let lineTop = min(screen.height, bandRows.upperBound + size / 3)
        lineRows = lineTop..<min(screen.height, lineTop + lineFonts.ascender + lineFonts.descender)
        band = Self.allocate(width: screen.width, height: bandRows.count, format: screen.format)
        box = Self.allocate(width: screen.width, height: boxRows.count, format: screen.format)
        line = Self.allocate(width: screen.width, height: lineRows.count, format: screen.format)
        band.fill(rows: 0..<band.height, with: painter.black)
        box.fill(rows: 0..<box.height, with: painter.black)
        line.fill(rows: 0..<line.height, with: painter.black)
        bandExtents = RowExtents(height: band.height)
        boxExtents = RowExtents(height: box.height)
        lineExtents = RowExtents(height: line.height)
    }

    deinit {
        band.base.deallocate()
        box.base.deallocate()
        line.base.deallocate()
    }

    private static func allocate(width: Int, height: Int, format: PixelFormat) -> PixelSurface {
        let bytesPerRow = width * format.bytesPerPixel
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytesPerRow * height), alignment: 64)
        return PixelSurface(base: base, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
    }

    static func liftRoom(_ size: Int) -> Int { size * 3 / 20 }

    /// The glyph pictures scrolling text needs grow with the letters' area: 4 MB holds what
    /// text of 135 pixels (1/8 of 1080 lines) needs, so text of 270 pixels (a 4K television)
    /// gets 16 MB. Never less than 4 MB.
    package static func glyphCacheBudget(pixelSize: Int) -> Int {
        let scale = Double(pixelSize) / 135
        return max(4 << 20, Int(Double(4 << 20) * scale * scale))
    }

    /// Between the announcement box's frame and its text.
    static func boxPadding(_ size: Int) -> Int { size / 3 }

    // MARK: - TickerScreen

    package var metrics: any GlyphMetrics { fonts }
    package var bandWidth: Int { scanout.width * FontStack.unitsPerPixel }
    /// Paced by the display's refresh; glyphs cut by the band's edges are drawn.
    package var pacing: ScreenPacing {
        ScreenPacing(framePeriod: scanout.refreshPeriod, checkInterval: Self.deviceCheckInterval,
                     effectStep: scanout.refreshPeriod, drawsPartialGlyphs: true)
    }
    package var figures: ScreenFigures { ScreenFigures(pageFlips: scanout.pageFlips, glyphCache: glyphCache) }
    package var isShowing: Bool { (console?.isShown ?? true) && scanout.isShowing }
    /// In graphics mode the console draws nothing, so nothing is repainted periodically (a full
    /// redraw would only risk a hitch on a slow bus). The device is asked whether it is still
    /// the screen when its node changes (`deviceChanged`), and, in case a mode is changed
    /// without the node changing, this often.
    static let deviceCheckInterval: Nanoseconds = 30_000_000_000

    /// The outputs tried before this one and why they were not taken ("not KMS: no DRM card"),
    /// for the status.
    package var notTaken: [String] = []

    package var outputDescription: String {
        "\(scanout.description), text \(fonts.summary)" + (notTaken.isEmpty ? "" : " (\(notTaken.joined(separator: "; ")))")
    }

    package func takeOver() throws {
        try console?.takeOver()
        mustRepaint = true
    }

    /// The screen in `style`; a font the carer named that cannot be used is an error (at a
    /// start the fallbacks stand in, with a warning; on a reload the screen keeps its font).
    package func restyled(_ style: FramebufferStyle) throws -> (any TickerScreen)? {
        guard style != self.style else { return nil }
        let next = try PixelScreen(scanout: scanout, style: style, console: console)
        if let named = style.fontPaths.first, !FontStack.defaultPaths.contains(named),
           let problem = next.fonts.unusable.first(where: { $0.path == named }) {
            throw problem
        }
        // A generation the scanout has not drawn: every buffer is drawn anew, in the new layout.
        next.generation = generation + 1
        next.notTaken = notTaken
        return next
    }

    package func giveBack() {
        console?.giveBack()
    }

    package func noticeChanges(at now: SteadyInstant) throws(ScreenReplaced) {
        guard lastDeviceCheck.map({ now - $0 >= Self.deviceCheckInterval }) ?? true else { return }
        lastDeviceCheck = now
        if let reason = scanout.replacement() {
            throw ScreenReplaced(description: reason)
        }
    }

    package func notice(_ change: ScreenChange) {
        switch change {
        case .resized:
            break
        case .consoleSwitchRequested:
            guard let console else { return }
            // The display is let go before the switch goes ahead, so the next console can set
            // its own mode; taken again once the console is back, and drawn in full.
            if console.isShown {
                scanout.consoleShown(false)
                _ = console.answerSwitch()
                // The kernel refused to let the switch go ahead (VT_RELDISP failed): the console
                // is still shown, so the display is taken back at once.
                if console.isShown {
                    scanout.consoleShown(true)
                    mustRepaint = true
                }
            } else if console.answerSwitch() {
                scanout.consoleShown(true)
                mustRepaint = true
            }
        case .deviceChanged:
            lastDeviceCheck = nil
            scanout.deviceChanged()
        }
    }

    package func setDark(_ dark: Bool) -> String {
        mustRepaint = true
        do {
            let control = try scanout.setPowered(!dark)
            return dark ? "powered down (\(control))" : ""
        } catch {
            guard dark else { return "could not be powered on (\(error))" }
            // Black where the display cannot be powered down: the same to the eye in a dark room.
            generation += 1
            scanout.show(ScanoutPicture(layers: [], generation: generation, black: painter.black))
            return "black: \(error)"
        }
    }

    /// Not drawn: the people in front of a kiosk cannot act on them. They are in the journal,
    /// or on the terminal marquee was started from, which a framebuffer leaves alone.
    package func showProblems(_ lines: [String]) {}

    package func show(_ frame: Frame) {
        show(frame, fullRepaint: mustRepaint)
    }

    /// Shows a frame: what changed since the last one, or everything.
    func show(_ frame: Frame, fullRepaint: Bool) {
        guard isShowing else { return }
        mustRepaint = false
        if fullRepaint {
            generation += 1
            lastBand = nil
            lastAnnouncement = nil
            drawnLine = nil
        }
        render(frame)
        present()
    }

    package func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant {
        scanout.presentationTime(ofFrameDueAt: due, now: now)
    }

    package func showOrientation(_ text: String?) {
        lineText = text
    }

    package func setShade(_ shade: Double) {
        guard shade != self.shade else { return }
        painter.shade = shade
        inkColours = [:]
        lastInk = nil
        mustRepaint = true
    }

    /// Draws what changed since the last frame into the band's, the box's and the line's
    /// buffers (not yet on the screen).
    @discardableResult
    package func render(_ frame: Frame) -> (band: Bool, box: Bool, line: Bool) {
        let bandChanged = lastBand != frame.glyphs
        let boxChanged = lastAnnouncement.map { $0 != frame.announcement } ?? true
        let lineChanged = drawnLine.map { $0 != lineText } ?? true
        if bandChanged {
            drawBand(frame.glyphs)
            lastBand = frame.glyphs
            versions.band += 1
        }
        if boxChanged {
            drawBox(frame.announcement)
            lastAnnouncement = .some(frame.announcement)
            versions.box += 1
        }
        if lineChanged {
            drawLine(lineText)
            drawnLine = .some(lineText)
            versions.line += 1
        }
        return (bandChanged, boxChanged, lineChanged)
    }

    /// Hands the band, the box and the line to the scanout, which copies what its next buffer
    /// lacks.
    package func present() {
        scanout.show(ScanoutPicture(
            layers: [.init(pixels: band, row: bandRows.lowerBound, version: versions.band),
                     .init(pixels: box, row: boxRows.lowerBound, version: versions.box),
                     .init(pixels: line, row: lineRows.lowerBound, version: versions.line)],
            generation: generation, black: painter.black))
    }

    package var glyphCache: GlyphCacheFigures? {
        GlyphCacheFigures(bytes: painter.cache.bytes, budget: painter.cache.budget, lookups: painter.cache.inkLookups,
                          found: painter.cache.inkFound)
    }

    /// Rasterizes and tints what drawing `frame`'s band will need and the cache lacks, so that
    /// drawing it at its deadline only paints.
    package func prepare(_ frame: Frame) {
        guard isShowing, lastBand != frame.glyphs else { return }
        painter.cache.nextPicture()
        forEachBandGlyph(frame.glyphs) { key, _, _, ink in _ = painter.ink(key, colour: ink, from: fonts) }
    }

    /// The rows of the screen the band covers.
    package var bandHeight: Int { bandRows.count }

    /// The band, the box and the line as last drawn, copied from the screen's own buffers in
    /// memory (never from the scanout's, which may be slow to read): a copy, so the picture is
    /// scaled away from the display loop.
    package func copyForPicture() -> ScreenCopy? {
        let layers = [(band, bandRows), (box, boxRows), (line, lineRows)].map { surface, rows in
            ScreenCopy.Layer(rows: rows, bytesPerRow: surface.bytesPerRow,
                             bytes: Array(UnsafeRawBufferPointer(start: surface.base, count: surface.bytesPerRow * surface.height)))
        }
        return ScreenCopy(width: scanout.width, height: scanout.height, format: band.format, black: painter.black,
                          layers: layers)
    }

    // MARK: - Drawing

    /// The orientation line in its buffer: still, centred, in a calm light grey.
    private func drawLine(_ text: String?) {
        line.fill(rows: 0..<line.height, with: painter.black)
        lineExtents.blank()
        painter.begin(lineExtents, on: line)
        defer { painter.finish(lineExtents) }
        guard let text, line.height > 0 else { return }
        let (fonts, glyphs) = fittedLine(text)
        let left = (line.width * FontStack.unitsPerPixel - glyphs.width) / 2
        let ink = Colour.orientationLine.readable().dimmed(shade)
        for glyph in glyphs {
            forEachPicture(of: glyph.character, form: glyph.form, in: fonts, at: left + glyph.offset) { placed in
                painter.draw(placed.key, from: fonts, x: placed.x, baseline: lineFonts.ascender - placed.rise, colour: ink,
                             into: line, lineExtents)
            }
        }
    }

    /// The line laid out in `lineFonts`, or, when that is wider than the screen less a margin
    /// at either side, in a font just small enough.
    private func fittedLine(_ text: String) -> (FontStack, [LaidGlyph]) {
        let room = line.width * FontStack.unitsPerPixel * 19 / 20
        let glyphs = lineFonts.layout(text)
        let width = glyphs.width
        guard width > room else { return (lineFonts, glyphs) }
        let size = max(8, lineFonts.pixelSize * room / width)
        if fittedLineFonts?.pixelSize != size {
            fittedLineFonts = (try? FontStack(paths: style.fontPaths, pixelSize: size)) ?? lineFonts
        }
        let fonts = fittedLineFonts ?? lineFonts
        return (fonts, fonts.layout(text))
    }

    /// The band in its buffer: the glyphs at quarter-pixel positions, dancing ones lifted,
    /// turned and sized.
    func drawBand(_ glyphs: [FrameGlyph]) {
        painter.begin(bandExtents, on: band)
        defer { painter.finish(bandExtents) }
        forEachBandGlyph(glyphs) { key, x, baseline, ink in
            painter.draw(key, from: fonts, x: x, baseline: baseline, colour: ink, into: band, bandExtents)
        }
    }

    /// Each glyph picture of the band's glyphs: its key, the pixel its pen stands at, its
    /// baseline (dancing ones lifted) and its colour.
    private func forEachBandGlyph(_ glyphs: [FrameGlyph], _ body: (GlyphKey, Int, Int, Colour) -> Void) {
        let lift = Double(Self.liftRoom(fonts.pixelSize))
        for glyph in glyphs {
            let pose = glyph.tilt == 0 && glyph.scale == 1 ? GlyphPose.upright : GlyphPose(tilt: glyph.tilt, scale: glyph.scale)
            let ink = shownInk(glyph.colour, hueShift: glyph.hueShift)
            let raised = baseline - Int((glyph.lift * lift).rounded())
            forEachPicture(of: glyph.character, form: glyph.form, in: fonts, at: glyph.x, pose: pose) { placed in
                body(placed.key, placed.x, raised - placed.rise, ink)
            }
        }
    }

    /// Each glyph picture drawing a laid glyph of `fonts` whose pen is at `pen`, turned and
    /// sized by `pose`: placed in a buffer the screen keeps, so drawing allocates nothing.
    private func forEachPicture(of character: Character, form: Int, in fonts: FontStack, at pen: Int,
                                pose: GlyphPose = .upright, _ body: (GlyphPlacement) -> Void) {
        placements.removeAll(keepingCapacity: true)
        fonts.place(character, form: form, at: pen, pose: pose, into: &placements)
        for placed in placements { body(placed) }
    }

    /// The announcement box: a thin frame, the typed letters (wrapped once, before the first
    /// one shows) and the bobbing ▶ (◀ after text read right to left).
    func drawBox(_ announcement: Announcement?) {
        box.fill(rows: 0..<box.height, with: painter.black)
        boxExtents.blank()
        painter.begin(boxExtents, on: box)
        defer { painter.finish(boxExtents) }
        guard let announcement, box.height > 0 else { return }
        let size = boxFonts.pixelSize
        let margin = size, padding = Self.boxPadding(size)
        let lineHeight = boxFonts.ascender + boxFonts.descender
        let text = boxText
        let lines = wrapAnnouncement(announcement.glyphs, width: text.width).prefix(text.lines)
        let height = (announcement.isPaged ? text.lines : lines.count) * lineHeight + 2 * padding
        let top = box.height - height
        let frameTable = painter.table(for: Colour.boxFrame.dimmed(shade))
        let thickness = max(2, size / 24)
        let right = box.width - margin
        for y in max(0, top)..<box.height {
            let edgeRow = y < top + thickness || y >= box.height - thickness
            let columns = edgeRow ? [margin..<right] : [margin..<(margin + thickness), (right - thickness)..<right]
            for range in columns { for x in range { box.set(x: x, y: y, to: frameTable[255]) } }
        }
        var ink = shownInk(announcement.colour, hueShift: 0)
        if announcement.opacity < 1 { ink = ink.scaled(announcement.opacity) }
        // Text read right to left stands at the right edge, is typed from the right end of each
        // line, and its ◀ follows the last line's left end.
        let rightToLeft = announcement.glyphs.readsRightToLeft
        let units = FontStack.unitsPerPixel
        var typed = 0
        var end = (x: 0, baseline: 0)
        for (index, line) in lines.enumerated() {
            let baseline = top + padding + index * lineHeight + boxFonts.ascender
            let start = line.first?.offset ?? 0
            let left = rightToLeft ? (box.width - margin - padding) * units - (line.width - start) : (margin + padding) * units
            for (position, glyph) in line.enumerated() {
                let pen = left + glyph.offset - start
                let order = typed + (rightToLeft ? line.count - 1 - position : position)
                if order < announcement.visibleCount {
                    forEachPicture(of: glyph.character, form: glyph.form, in: boxFonts, at: pen) { placed in
                        painter.draw(placed.key, from: boxFonts, x: placed.x, baseline: baseline - placed.rise, colour: ink,
                                     into: box, boxExtents)
                    }
                }
            }
            typed += line.count
            end = (rightToLeft ? left : left + line.width - start, baseline)
        }
        if let bob = announcement.arrowBob {
            let gap = (size / 3 + Int((bob * Double(size) / 4).rounded())) * units
            let arrow: Character = rightToLeft ? "◀" : "▶"
            let pen = rightToLeft ? end.x - gap - boxFonts.advance(of: arrow) : end.x + gap
            forEachPicture(of: arrow, form: 0, in: boxFonts, at: pen) { placed in
                painter.draw(placed.key, from: boxFonts, x: placed.x, baseline: end.baseline, colour: ink, into: box,
                             boxExtents)
            }
        }
    }

    /// How wide the box's text may be, in 1/64 pixel, the room the ▶ and its bob take at the
    /// end of a page's last line, and how many lines the box holds.
    private var boxText: (width: Int, arrowRoom: Int, lines: Int) {
        let size = boxFonts.pixelSize, padding = Self.boxPadding(size)
        let arrowRoom = boxFonts.advance(of: "▶") + (size / 3 + size / 4) * FontStack.unitsPerPixel
        let width = (box.width - 2 * size - 2 * padding) * FontStack.unitsPerPixel
        return (width, arrowRoom, max(1, (box.height - 2 * padding) / (boxFonts.ascender + boxFonts.descender)))
    }

    package func takeMissingCharacters() -> [Character] {
        var missing = fonts.takeMissing()
        for character in boxFonts.takeMissing() where !missing.contains(character) { missing.append(character) }
        return missing
    }

    package var announcementBox: any AnnouncementBox {
        guard box.height > 0 else { return OnePageBox() }
        let text = boxText
        return FontBox(fonts: boxFonts, width: text.width, arrowRoom: text.arrowRoom, lines: text.lines)
    }

    /// The announcement measured in the box's font and wrapped at words; kept while it is shown.
    private func wrapAnnouncement(_ glyphs: [LaidGlyph], width: Int) -> [[LaidGlyph]] {
        if let wrapped, wrapped.text == glyphs { return wrapped.lines }
        let lines = wrapWords(boxFonts.measured(glyphs), width: width, breaking: UnicodeLineBreaking())
        wrapped = (glyphs, lines)
        return lines
    }

    /// The colour letters are drawn in: the message's own (turned by the dance) or warm white,
    /// lightened until it reads at 7:1 on black.
    static func inkColour(_ colour: Colour?, hueShift: Double) -> Colour {
        var ink = colour ?? .plainText
        if hueShift != 0 { ink = ink.hueRotated(by: (hueShift / 2).rounded() * 2) }
        return ink.readable()
    }

    /// `inkColour` dimmed for the night, worked out once per colour and hue step (2°).
    private func shownInk(_ colour: Colour?, hueShift: Double) -> Colour {
        let key = InkKey(colour: colour, hueSteps: Int((hueShift / 2).rounded()))
        if let last = lastInk, last.key == key { return last.ink }
        if let known = inkColours[key] {
            lastInk = (key, known)
            return known
        }
        let ink = Self.inkColour(colour, hueShift: Double(key.hueSteps * 2)).dimmed(shade)
        if inkColours.count > 1024 { inkColours = [:] }
        inkColours[key] = ink
        lastInk = (key, ink)
        return ink
    }
}

/// The framebuffer's announcement box: `lines` lines `width` units wide in its font, with
/// `arrowRoom` for the ▶ after a page that another follows.
struct FontBox: AnnouncementBox {
    let fonts: FontStack
    let width: Int
    let arrowRoom: Int
    let lines: Int

    func pages(of glyphs: [LaidGlyph]) -> [Range<Int>] {
        pageRanges(fonts.measured(glyphs), width: width, linesPerPage: lines, breaking: UnicodeLineBreaking(),
                   endRoom: arrowRoom)
    }
}
