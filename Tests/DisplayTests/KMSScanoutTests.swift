import Marquee
import Testing

@testable import Display

#if canImport(Glibc)
    import Glibc
#endif

/// A DRM device played by a script: vertical blanks on a 60 Hz grid of its own, flips that land
/// on the next one (or later, or fail as the test says), master taken away as another program
/// would. It records what was shown.
final class ScriptedCard: PageFlipper {
    static let period: Nanoseconds = 16_666_667
    /// The next vertical blank.
    var nextVblank: Nanoseconds = 1_000_000_000
    /// The buffer on the glass, and every one shown in order (mode sets and flips).
    private(set) var shownBuffer: Int?
    private(set) var modeSets = 0
    private(set) var flips = 0
    /// A flip queued: its buffer and the vertical blank it lands on.
    private var queued: (buffer: Int, landsAt: Nanoseconds)?
    /// The next flip lands this many vertical blanks late (the program was late for them).
    var nextFlipLate = 0
    /// The next flip fails with this errno.
    var nextFlipFails: Int32?
    var isMaster = true
    /// The buffers' memory: a mode set clears it all, as QEMU's bochs does on its first one.
    var memory: [PixelSurface] = []

    func setMode(showing index: Int) throws(KMSError) {
        guard isMaster else { throw KMSError("set mode: not master", code: EACCES) }
        modeSets += 1
        shownBuffer = index
        for buffer in memory { buffer.fill(rows: 0..<buffer.height, with: 0) }
    }

    func flip(to index: Int) throws(KMSError) {
        if let code = nextFlipFails {
            nextFlipFails = nil
            throw KMSError("page flip failed", code: code)
        }
        guard isMaster else { throw KMSError("page flip: not master", code: EACCES) }
        guard queued == nil else { throw KMSError("page flip: busy", code: EBUSY) }
        flips += 1
        queued = (index, nextVblank + Nanoseconds(nextFlipLate) * Self.period)
        nextFlipLate = 0
    }

    func waitForFlip(timeout: Nanoseconds) -> Nanoseconds? {
        guard let flip = queued else { return nil }
        queued = nil
        shownBuffer = flip.buffer
        nextVblank = flip.landsAt + Self.period
        return flip.landsAt
    }

    func takeMaster() -> Bool {
        isMaster = true
        return true
    }

    func dropMaster() { isMaster = false }
}

@Suite struct KMSScanoutTests {
    static let width = 320, height = 200

    /// Two buffers in plain memory, as a card's dumb buffers would be; freed by the caller.
    static func buffers(_ format: PixelFormat = .xrgb8888) -> [PixelSurface] {
        (0..<2).map { _ in
            let bytesPerRow = width * format.bytesPerPixel + 64
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * height, alignment: 64)
            memory.initializeMemory(as: UInt8.self, repeating: 0x5A, count: bytesPerRow * height)
            return PixelSurface(base: memory, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        }
    }

    static func scanout() -> (KMSScanout, ScriptedCard, [PixelSurface]) {
        let card = ScriptedCard()
        let buffers = buffers()
        card.memory = buffers
        return (KMSScanout(name: "card0 Virtual-1 320x200@60", buffers: buffers, refreshPeriod: ScriptedCard.period,
                           flipper: card), card, buffers)
    }

    /// A layer of one colour (its value is the version), `rows` high.
    static func picture(band: UInt32, box: UInt32, generation: Int = 1, layers: inout [PixelSurface]) -> ScanoutPicture {
        func layer(_ value: UInt32, row: Int, index: Int) -> ScanoutPicture.Layer {
            layers[index].fill(rows: 0..<layers[index].height, with: value)
            return .init(pixels: layers[index], row: row, version: Int(value))
        }
        return ScanoutPicture(layers: [layer(band, row: 80, index: 0), layer(box, row: 20, index: 1)],
                              generation: generation, black: 0)
    }

    static func layerSurfaces() -> [PixelSurface] {
        [(40, 0), (30, 1)].map { height, _ in
            let memory = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * height, alignment: 64)
            return PixelSurface(base: memory, width: width, height: height, bytesPerRow: width * 4, format: .xrgb8888)
        }
    }

    /// The value of every pixel in `rows` of `surface`, when they are all one value (nil: mixed).
    static func uniform(_ surface: PixelSurface, rows: Range<Int>) -> UInt32? {
        let values = Set(rows.flatMap { y in (0..<surface.width).map { surface.pixel(x: $0, y: y) } })
        return values.count == 1 ? values.first : nil
    }

    /// The first picture sets the mode; each one after it is a flip, and the next frame is
    /// computed for the vertical blank after the one the flip landed on.
    @Test func framesAreComputedForTheVerticalBlankTheyAreSeenFrom() {
        let (scanout, card, buffers) = Self.scanout()
        var layers = Self.layerSurfaces()
        defer { (buffers + layers).forEach { $0.base.deallocate() } }
        let start: Nanoseconds = 990_000_000
        #expect(scanout.presentationTime(ofFrameDueAt: start, now: start) == start + ScriptedCard.period)
        scanout.show(Self.picture(band: 1, box: 1, layers: &layers))
        #expect(card.modeSets == 1 && card.flips == 0)
        scanout.show(Self.picture(band: 2, box: 1, layers: &layers))
        #expect(card.flips == 1)
        // The flip lands on the card's next vertical blank (1 s); the next frame is for the one after.
        let next = scanout.presentationTime(ofFrameDueAt: start, now: start + 1_000_000)
        #expect(next == 1_000_000_000 + ScriptedCard.period)
        #expect(scanout.timeline.presented == 1 && scanout.timeline.missed == 0)
        // Asked 10 ms after a vertical blank, there is room to make the next one.
        scanout.show(Self.picture(band: 3, box: 1, layers: &layers))
        let later = scanout.presentationTime(ofFrameDueAt: 0, now: 1_000_000_000 + ScriptedCard.period + 10_000_000)
        #expect(later == 1_000_000_000 + 2 * ScriptedCard.period)
        // Woken after the next grid point has passed, the frame is for the one after: never earlier.
        scanout.show(Self.picture(band: 4, box: 1, layers: &layers))
        let woken = 1_000_000_000 + 3 * ScriptedCard.period + 15_500_000
        #expect(scanout.presentationTime(ofFrameDueAt: 0, now: woken) == 1_000_000_000 + 5 * ScriptedCard.period)
    }

    /// A flip that lands a vertical blank late is counted as missed (the glass showed the frame
    /// before once more); the next frame is computed for its own vertical blank, not caught up.
    @Test func aMissedVerticalBlankIsCountedAndNotCaughtUp() {
        let (scanout, card, buffers) = Self.scanout()
        var layers = Self.layerSurfaces()
        defer { (buffers + layers).forEach { $0.base.deallocate() } }
        scanout.show(Self.picture(band: 1, box: 1, layers: &layers))
        scanout.show(Self.picture(band: 2, box: 1, layers: &layers))
        _ = scanout.presentationTime(ofFrameDueAt: 0, now: 999_000_000)
        let planned = scanout.presentationTime(ofFrameDueAt: 0, now: 1_001_000_000)
        card.nextFlipLate = 1
        scanout.show(Self.picture(band: 3, box: 1, layers: &layers))
        let next = scanout.presentationTime(ofFrameDueAt: 0, now: planned)
        #expect(scanout.timeline.missed == 1)
        #expect(next == planned + 2 * ScriptedCard.period, "the frame after the late one is for the blank after it lands")
    }

    /// A flip refused as busy (one still in flight) is waited for and tried again: the frame is
    /// still shown.
    @Test func aBusyFlipIsTriedAgainOnceTheOneInFlightLands() {
        let (scanout, card, buffers) = Self.scanout()
        var layers = Self.layerSurfaces()
        defer { (buffers + layers).forEach { $0.base.deallocate() } }
        scanout.show(Self.picture(band: 1, box: 1, layers: &layers))
        scanout.show(Self.picture(band: 2, box: 1, layers: &layers))
        _ = scanout.presentationTime(ofFrameDueAt: 0, now: 999_000_000)
        card.nextFlipFails = EBUSY
        scanout.show(Self.picture(band: 3, box: 1, layers: &layers))
        _ = scanout.presentationTime(ofFrameDueAt: 0, now: 1_020_000_000)
        #expect(card.flips == 2)
        #expect(scanout.problem == nil)
        #expect(Self.uniform(buffers[card.shownBuffer ?? 0], rows: 80..<120) == 3)
    }

    /// Master taken away while a flip is in flight (another program, a console switch the loop
    /// has not heard of yet): the next flip is refused, nothing more is drawn, the status says
    /// why; when the console comes back, master is taken, the mode set and everything drawn.
    @Test func masterDroppedMidFlipStopsDrawingUntilTheDisplayIsTakenBack() {
        let (scanout, card, buffers) = Self.scanout()
        var layers = Self.layerSurfaces()
        defer { (buffers + layers).forEach { $0.base.deallocate() } }
        scanout.show(Self.picture(band: 1, box: 1, layers: &layers))
        scanout.show(Self.picture(band: 2, box: 1, layers: &layers))
        card.isMaster = false
        scanout.show(Self.picture(band: 3, box: 1, layers: &layers))
        #expect(!scanout.isShowing)
        #expect(scanout.problem?.contains("not master") == true)
        let flips = card.flips
        scanout.show(Self.picture(band: 4, box: 1, layers: &layers))
        #expect(card.flips == flips, "nothing is flipped without the display")
        scanout.consoleShown(true)
        #expect(scanout.isShowing)
        scanout.show(Self.picture(band: 5, box: 1, generation: 2, layers: &layers))
        #expect(card.modeSets == 2)
        #expect(Self.uniform(buffers[card.shownBuffer ?? 0], rows: 80..<120) == 5)
        #expect(Self.uniform(buffers[card.shownBuffer ?? 0], rows: 0..<20) == 0, "black above the box")
    }

    /// Each buffer is brought up to the picture whatever it held two frames ago: the box that
    /// changed only in the frame before is copied into the buffer drawn now too.
    @Test func aBufferGetsWhatChangedSinceItWasLastShown() {
        let (scanout, card, buffers) = Self.scanout()
        var layers = Self.layerSurfaces()
        defer { (buffers + layers).forEach { $0.base.deallocate() } }
        var now: Nanoseconds = 990_000_000
        for (band, box) in [(1, 1), (2, 7), (3, 7), (4, 7), (5, 9)] as [(UInt32, UInt32)] {
            _ = scanout.presentationTime(ofFrameDueAt: now, now: now)
            scanout.show(Self.picture(band: band, box: box, layers: &layers))
            _ = scanout.presentationTime(ofFrameDueAt: now, now: now)
            let shown = buffers[card.shownBuffer ?? 0]
            #expect(Self.uniform(shown, rows: 80..<120) == band)
            #expect(Self.uniform(shown, rows: 20..<50) == box, "frame with band \(band): the box is \(box)")
            #expect(Self.uniform(shown, rows: 0..<20) == 0 && Self.uniform(shown, rows: 120..<200) == 0)
            now += ScriptedCard.period
        }
    }

    /// The ticker drawn through page flips is, frame after frame, the ticker drawn on a plain
    /// framebuffer: the same pixels on the glass.
    @Test func pageFlippedFramesAreTheFramebuffersFrames() throws {
        let (scanout, card, buffers) = Self.scanout()
        defer { buffers.forEach { $0.base.deallocate() } }
        let plain = Framebuffer(width: Self.width, height: Self.height)
        let flipped = try PixelScreen(scanout: scanout)
        let reference = try PixelScreen(scanout: plain)
        func controller(_ screen: PixelScreen) -> MarqueeController {
            let controller = MarqueeController(
                metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 8), origin: 0)
            controller.update(messages: PixelScreenTests.messages(), at: 0, width: screen.bandWidth)
            return controller
        }
        for screen in [flipped, reference] { screen.showOrientation("Monday morning · 23 November 2026") }
        let (first, second) = (controller(flipped), controller(reference))
        for step in 0..<90 {
            let t = Nanoseconds(step) * ScriptedCard.period
            let seen = flipped.presentationTime(ofFrameDueAt: t, now: t)
            flipped.show(first.frame(at: seen, width: flipped.bandWidth, includingPartialGlyphs: true), fullRepaint: step == 0)
            reference.show(second.frame(at: seen, width: reference.bandWidth, includingPartialGlyphs: true), fullRepaint: step == 0)
            _ = flipped.presentationTime(ofFrameDueAt: t, now: t)
            guard step % 15 == 14 else { continue }
            let glass = buffers[card.shownBuffer ?? 0]
            let differing = (0..<Self.height).reduce(0) { count, y in
                count + (0..<Self.width).filter { glass.pixel(x: $0, y: y) != plain.surface.pixel(x: $0, y: y) }.count
            }
            #expect(differing == 0, "frame \(step): \(differing) pixels differ")
            let lineLit = (flipped.lineRows).contains { y in (0..<Self.width).contains { glass.pixel(x: $0, y: y) != 0 } }
            #expect(lineLit, "frame \(step): the orientation line is on the glass")
        }
        #expect(card.flips > 60)
    }
}
