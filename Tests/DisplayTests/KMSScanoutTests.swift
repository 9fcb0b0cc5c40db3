import Marquee
import TestSupport
import Support
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
    var nextVblank = SteadyInstant(sinceOrigin: 1_000_000_000)
    /// The buffer on the glass, and every one shown in order (mode sets and flips).
    private(set) var shownBuffer: Int?
    private(set) var modeSets = 0
    private(set) var flips = 0
    /// A flip queued: its buffer and the vertical blank it lands on.
    private var queued: (buffer: Int, landsAt: SteadyInstant)?
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

    func waitForFlip(timeout: Nanoseconds) -> SteadyInstant? {
        guard let flip = queued else { return nil }
        queued = nil
        shownBuffer = flip.buffer
        nextVblank = flip.landsAt + Self.period
        return flip.landsAt
    }

    /// Whether the display is powered (DPMS), and whether the driver has that property.
    private(set) var isPowered = true
    var hasDPMS = true

    func setPower(_ on: Bool) throws(KMSError) {
        guard hasDPMS else { throw KMSError("the driver has no DPMS property") }
        guard isMaster else { throw KMSError("set property: not master", code: EACCES) }
        isPowered = on
    }

    func takeMaster() -> Bool {
        isMaster = true
        return true
    }

    func dropMaster() { isMaster = false }
}

/// A KMS scanout on a scripted card, with the card's two buffers and the layers pictures are
/// made of (all in plain memory, freed with the rig).
final class KMSRig {
    static let width = 320, height = 200
    let card = ScriptedCard()
    let buffers: [PixelSurface]
    private var layers: [PixelSurface]
    let scanout: KMSScanout

    init() {
        buffers = (0..<2).map { _ in Self.surface(height: Self.height, fill: 0x5A, padding: 64) }
        layers = [Self.surface(height: 40), Self.surface(height: 30)]
        card.memory = buffers
        scanout = KMSScanout(name: "card0 Virtual-1 320x200@60", buffers: buffers, refreshPeriod: ScriptedCard.period,
                             flipper: card)
    }

    deinit {
        (buffers + layers).forEach { $0.base.deallocate() }
    }

    private static func surface(height: Int, fill: UInt8 = 0, padding: Int = 0) -> PixelSurface {
        let bytesPerRow = width * 4 + padding
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * height, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: fill, count: bytesPerRow * height)
        return PixelSurface(base: memory, width: width, height: height, bytesPerRow: bytesPerRow, format: .xrgb8888)
    }

    /// Shows a picture of two layers of one colour each (the colour is the layer's version): the
    /// band at row 80, the box at row 20.
    func show(band: UInt32, box: UInt32 = 1, generation: Int = 1) {
        func layer(_ value: UInt32, row: Int, index: Int) -> ScanoutPicture.Layer {
            layers[index].fill(rows: 0..<layers[index].height, with: value)
            return .init(pixels: layers[index], row: row, version: Int(value))
        }
        scanout.show(ScanoutPicture(layers: [layer(band, row: 80, index: 0), layer(box, row: 20, index: 1)],
                                    generation: generation, black: 0))
    }

    /// A rig that has set its mode (band 1) and has a first flip (band 2) in flight.
    static func started() -> KMSRig {
        let rig = KMSRig()
        rig.show(band: 1)
        rig.show(band: 2)
        return rig
    }

    /// The buffer on the glass.
    var glass: PixelSurface { buffers[card.shownBuffer ?? 0] }

    /// The value of every pixel in `rows` of the glass, when they are all one value (nil: mixed).
    func uniform(rows: Range<Int>) -> UInt32? {
        let surface = glass
        let values = Set(rows.flatMap { y in (0..<surface.width).map { surface.pixel(x: $0, y: y) } })
        return values.count == 1 ? values.first : nil
    }
}

@Suite struct KMSScanoutTests {
    /// The first picture sets the mode; each one after it is a flip, and the next frame is
    /// computed for the vertical blank after the one the flip landed on.
    @Test func framesAreComputedForTheVerticalBlankTheyAreSeenFrom() {
        let rig = KMSRig()
        let (scanout, card) = (rig.scanout, rig.card)
        let start: SteadyInstant = 990_000_000
        #expect(scanout.presentationTime(ofFrameDueAt: start, now: start) == start + ScriptedCard.period)
        rig.show(band: 1)
        #expect(card.modeSets == 1 && card.flips == 0)
        rig.show(band: 2)
        #expect(card.flips == 1)
        // The flip lands on the card's next vertical blank (1 s); the next frame is for the one after.
        let next = scanout.presentationTime(ofFrameDueAt: start, now: start + 1_000_000)
        let firstVblank: SteadyInstant = 1_000_000_000
        #expect(next == firstVblank + ScriptedCard.period)
        #expect(scanout.timeline.presented == 1 && scanout.timeline.missed == 0)
        // Asked 10 ms after a vertical blank, there is room to make the next one.
        rig.show(band: 3)
        let later = scanout.presentationTime(ofFrameDueAt: 0, now: firstVblank + ScriptedCard.period + 10_000_000)
        #expect(later == firstVblank + 2 * ScriptedCard.period)
        // Woken after the next grid point has passed, the frame is for the one after: never earlier.
        rig.show(band: 4)
        let woken = firstVblank + 3 * ScriptedCard.period + 15_500_000
        #expect(scanout.presentationTime(ofFrameDueAt: 0, now: woken) == firstVblank + 5 * ScriptedCard.period)
    }

    /// A flip that lands a vertical blank late is counted as missed (the glass showed the frame
    /// before once more); the next frame is computed for its own vertical blank, not caught up.
    @Test func aMissedVerticalBlankIsCountedAndNotCaughtUp() {
        let rig = KMSRig.started()
        _ = rig.scanout.presentationTime(ofFrameDueAt: 0, now: 999_000_000)
        let planned = rig.scanout.presentationTime(ofFrameDueAt: 0, now: 1_001_000_000)
        rig.card.nextFlipLate = 1
        rig.show(band: 3)
        let next = rig.scanout.presentationTime(ofFrameDueAt: 0, now: planned)
        #expect(rig.scanout.timeline.missed == 1)
        #expect(next == planned + 2 * ScriptedCard.period, "the frame after the late one is for the blank after it lands")
    }

    /// A flip refused as busy (one still in flight) is waited for and tried again: the frame is
    /// still shown.
    @Test func aBusyFlipIsTriedAgainOnceTheOneInFlightLands() {
        let rig = KMSRig.started()
        _ = rig.scanout.presentationTime(ofFrameDueAt: 0, now: 999_000_000)
        rig.card.nextFlipFails = EBUSY
        rig.show(band: 3)
        _ = rig.scanout.presentationTime(ofFrameDueAt: 0, now: 1_020_000_000)
        #expect(rig.card.flips == 2)
        #expect(rig.scanout.problem == nil)
        #expect(rig.uniform(rows: 80..<120) == 3)
    }

    /// Master taken away while a flip is in flight (another program, a console switch the loop
    /// has not heard of yet): the next flip is refused, nothing more is drawn, the status says
    /// why; when the console comes back, master is taken, the mode set and everything drawn.
    @Test func masterDroppedMidFlipStopsDrawingUntilTheDisplayIsTakenBack() {
        let rig = KMSRig.started()
        rig.card.isMaster = false
        rig.show(band: 3)
        #expect(!rig.scanout.isShowing)
        #expect(rig.scanout.problem?.contains("not master") == true)
        let flips = rig.card.flips
        rig.show(band: 4)
        #expect(rig.card.flips == flips, "nothing is flipped without the display")
        rig.scanout.consoleShown(true)
        #expect(rig.scanout.isShowing)
        rig.show(band: 5, generation: 2)
        #expect(rig.card.modeSets == 2)
        #expect(rig.uniform(rows: 80..<120) == 5)
        #expect(rig.uniform(rows: 0..<20) == 0, "black above the box")
    }

    /// Each buffer is brought up to the picture whatever it held two frames ago: the box that
    /// changed only in the frame before is copied into the buffer drawn now too.
    @Test func aBufferGetsWhatChangedSinceItWasLastShown() {
        let rig = KMSRig()
        var now: SteadyInstant = 990_000_000
        for (band, box) in [(1, 1), (2, 7), (3, 7), (4, 7), (5, 9)] as [(UInt32, UInt32)] {
            _ = rig.scanout.presentationTime(ofFrameDueAt: now, now: now)
            rig.show(band: band, box: box)
            _ = rig.scanout.presentationTime(ofFrameDueAt: now, now: now)
            #expect(rig.uniform(rows: 80..<120) == band)
            #expect(rig.uniform(rows: 20..<50) == box, "frame with band \(band): the box is \(box)")
            #expect(rig.uniform(rows: 0..<20) == 0 && rig.uniform(rows: 120..<200) == 0)
            now += ScriptedCard.period
        }
    }

    /// The ticker drawn through page flips is, frame after frame, the ticker drawn on a plain
    /// framebuffer: the same pixels on the glass.
    @Test func pageFlippedFramesAreTheFramebuffersFrames() throws {
        let rig = KMSRig()
        let (width, height) = (KMSRig.width, KMSRig.height)
        let plain = Framebuffer(width: width, height: height)
        let flipped = try PixelScreen(scanout: rig.scanout)
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
            let t = SteadyInstant(sinceOrigin: Nanoseconds(step) * ScriptedCard.period)
            let seen = flipped.presentationTime(ofFrameDueAt: t, now: t)
            flipped.show(first.frame(at: seen, width: flipped.bandWidth, includingPartialGlyphs: true), fullRepaint: step == 0)
            reference.show(second.frame(at: seen, width: reference.bandWidth, includingPartialGlyphs: true), fullRepaint: step == 0)
            _ = flipped.presentationTime(ofFrameDueAt: t, now: t)
            guard step % 15 == 14 else { continue }
            let glass = rig.glass
            let differing = (0..<height).reduce(0) { count, y in
                count + (0..<width).filter { glass.pixel(x: $0, y: y) != plain.surface.pixel(x: $0, y: y) }.count
            }
            #expect(differing == 0, "frame \(step): \(differing) pixels differ")
            let lineLit = flipped.lineRows.contains { y in (0..<width).contains { glass.pixel(x: $0, y: y) != 0 } }
            #expect(lineLit, "frame \(step): the orientation line is on the glass")
        }
        #expect(rig.card.flips > 60)
    }

    /// Dark (`screen_off`): the connector's DPMS off after the flip in flight landed, nothing
    /// flipped while it is (a CRTC that is off takes no flips); lit again: DPMS on, the mode
    /// set and everything drawn with the next picture.
    @Test func poweredDownNothingIsFlippedUntilItIsPoweredAgain() throws {
        let rig = KMSRig.started()
        let screen = try PixelScreen(scanout: rig.scanout)
        #expect(screen.setDark(true) == "powered down (DPMS)")
        #expect(!rig.card.isPowered)
        let (flips, modeSets) = (rig.card.flips, rig.card.modeSets)
        rig.show(band: 3)
        #expect(rig.card.flips == flips && rig.card.modeSets == modeSets)
        #expect(screen.setDark(false) == "")
        #expect(rig.card.isPowered)
        rig.show(band: 4, generation: 2)
        #expect(rig.card.modeSets == modeSets + 1)
        #expect(rig.uniform(rows: 80..<120) == 4)
    }

    /// A driver without DPMS: the screen goes black instead (the same to the eye in a dark
    /// room), said as such; lit again, the next picture is drawn in full.
    @Test func withoutDPMSTheScreenIsBlack() throws {
        let rig = KMSRig.started()
        rig.card.hasDPMS = false
        let screen = try PixelScreen(scanout: rig.scanout)
        let controller = MarqueeController(metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 8),
                                           origin: 0)
        controller.update(messages: PixelScreenTests.messages(), at: 0, width: screen.bandWidth)
        screen.show(controller.frame(at: 0, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: true)
        _ = screen.presentationTime(ofFrameDueAt: 0, now: 0)
        #expect(rig.uniform(rows: 0..<KMSRig.height) == nil, "the ticker is on the glass")
        #expect(screen.setDark(true) == "black: the driver has no DPMS property")
        _ = screen.presentationTime(ofFrameDueAt: 0, now: 0)
        #expect(rig.uniform(rows: 0..<KMSRig.height) == 0)
        _ = screen.setDark(false)
        screen.show(controller.frame(at: 0, width: screen.bandWidth, includingPartialGlyphs: true))
        _ = screen.presentationTime(ofFrameDueAt: 0, now: 0)
        #expect(rig.uniform(rows: 0..<KMSRig.height) == nil, "the ticker is back")
    }

    /// A flip whose event comes after its wait timed out is credited to itself, not to the next
    /// flip: the next wait ends with the next flip's own vertical blank. (With one shared slot
    /// the late event was taken for the next flip's, and the timeline ran a flip behind.)
    @Test func aLateFlipEventIsNotTheNextFlips() {
        var slots = FlipSlots()
        let first = slots.queue()
        #expect(slots.waitForLast { false } == nil, "timed out: no event came")
        let second = slots.queue()
        var events = [(first, Int64(1_000)), (second, 2_000)]
        let landed = slots.waitForLast {
            guard !events.isEmpty else { return false }
            let (slot, time) = events.removeFirst()
            slot.pointee = time
            return true
        }
        #expect(landed == 2_000)
        _ = slots.queue()
        slots.cancelLast()
        #expect(slots.waitForLast { false } == nil, "nothing is in flight once both landed")
        slots.releaseAll()
    }
}

