import Foundation
import Marquee
import Support
import Testing
import TestSupport

@testable import Display

/// The framebuffer display on a file laid out like a framebuffer (RGB565 and XRGB8888, rows
/// padded beyond the visible width): what lands in its pixels.
@Suite struct PixelScreenTests {
    static let second: Nanoseconds = 1_000_000_000
    static let t0 = SteadyInstant(sinceOrigin: 1_800_000_000 * second)
    static let width = 640, height = 360
    /// Padding bytes carry this value; nothing may ever write them.
    static let padding: UInt8 = 0xA5

    /// A file-backed framebuffer with `extra` bytes of padding per row, padding bytes marked.
    static func fileFramebuffer(_ format: PixelFormat, extra: Int) throws -> (Framebuffer, String) {
        let path = NSTemporaryDirectory() + "marquee-fb-\(UUID().uuidString)"
        let bytesPerRow = width * format.bytesPerPixel + extra
        let framebuffer = try Framebuffer(file: path, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        framebuffer.surface.base.initializeMemory(as: UInt8.self, repeating: padding, count: bytesPerRow * height)
        return (framebuffer, path)
    }

    static func messages() -> [MarqueeMessage] {
        [
            MarqueeMessage(text: "It's night-time right now. You should be in bed."),
            MarqueeMessage(text: "🎂 It's Johnny's birthday!", colour: Colour(red: 255, green: 105, blue: 180), effect: .dance),
            MarqueeMessage(text: "Take your evening pills", colour: Colour(red: 0, green: 0, blue: 128), effect: .typewriter),
        ]
    }

    /// A screen and a marquee on it, messages given at t0.
    static func display(_ framebuffer: Framebuffer, speed: Double = 5) throws -> (PixelScreen, MarqueeController) {
        let screen = try PixelScreen(scanout: framebuffer)
        let controller = MarqueeController(
            metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: speed), origin: t0)
        controller.update(messages: messages(), at: t0, width: screen.bandWidth)
        return (screen, controller)
    }

    static func show(_ screen: PixelScreen, _ controller: MarqueeController, at t: SteadyInstant, full: Bool = false) {
        screen.show(controller.frame(at: t, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: full)
    }

    /// The visible pixels as colours, row by row.
    static func colours(_ surface: PixelSurface) -> [[Colour]] {
        (0..<surface.height).map { y in (0..<surface.width).map { x in surface.format.unpack(surface.pixel(x: x, y: y)) } }
    }

    static let formats: [(PixelFormat, Int)] = [(.rgb565, 96), (.xrgb8888, 64)]

    /// Golden pictures of a scrolling, a dancing and a typing moment, in both formats, within a
    /// small tolerance (the goldens are the XRGB8888 rendering; RGB565 loses the low bits).
    /// `MARQUEE_UPDATE_GOLDENS=1` writes them anew (then look at them before committing).
    @Test(arguments: formats) func matchesGoldenPictures(format: PixelFormat, extra: Int) throws {
        let (framebuffer, path) = try Self.fileFramebuffer(format, extra: extra)
        defer { unlink(path) }
        let (screen, controller) = try Self.display(framebuffer)
        for (name, t) in [("typing", Self.t0 + Self.second / 2), ("scrolling", Self.t0 + 3 * Self.second),
                          ("dancing", Self.t0 + 9_300_000_000)] {
            Self.show(screen, controller, at: t, full: true)
            let (off, lit) = try Self.compare(framebuffer.surface, toGolden: name)
            #expect(off <= Self.width * Self.height / 1000, "\(name) in \(format): \(off) pixels differ from the golden")
            #expect(lit > 2000, "\(name): the golden shows text")
        }
        // Nothing was written into the padding beyond the visible width.
        let surface = framebuffer.surface
        for y in 0..<surface.height {
            let row = surface.base + y * surface.bytesPerRow
            for byte in (surface.width * format.bytesPerPixel)..<surface.bytesPerRow {
                #expect(row.load(fromByteOffset: byte, as: UInt8.self) == Self.padding)
            }
        }
    }

    /// How many pixels of `surface` differ from the golden picture `name` (beyond what RGB565
    /// loses), and how many of the golden's are lit. `MARQUEE_UPDATE_GOLDENS=1` writes the
    /// golden anew from an XRGB8888 surface (then look at it before committing).
    static func compare(_ surface: PixelSurface, toGolden name: String) throws -> (off: Int, lit: Int) {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name).png")
        if ProcessInfo.processInfo.environment["MARQUEE_UPDATE_GOLDENS"] == "1", surface.format == .xrgb8888 {
            try Data(PNGImage.encode(surface)).write(to: file)
        }
        let golden = try decodePNG(Array(Data(contentsOf: file)))
        #expect(golden.width == surface.width && golden.height == surface.height)
        let tolerance = surface.format == .rgb565 ? 8 : 1
        var off = 0, lit = 0
        for (y, row) in colours(surface).enumerated() {
            for (x, colour) in row.enumerated() {
                let expected = golden.pixels[y * surface.width + x]
                if max(expected.red, expected.green, expected.blue) > 100 { lit += 1 }
                if abs(Int(colour.red) - Int(expected.red)) > tolerance || abs(Int(colour.green) - Int(expected.green)) > tolerance
                    || abs(Int(colour.blue) - Int(expected.blue)) > tolerance { off += 1 }
            }
        }
        return (off, lit)
    }

    /// A reload's new text size is a new layout on the same device: a taller band, drawn in
    /// full with the first frame, nothing of the old band left on the screen; the style in use
    /// asks for no new screen.
    @Test func aNewTextSizeIsANewLayoutOnTheSameScreen() throws {
        let framebuffer = Framebuffer(width: 800, height: 480)
        let screen = try PixelScreen(scanout: framebuffer)
        #expect(try screen.restyled(screen.style) == nil)
        func draw(_ screen: PixelScreen) {
            let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
            controller.update(messages: [MarqueeMessage(text: "Tea at four")], at: Self.t0, width: screen.bandWidth)
            screen.show(controller.frame(at: Self.t0, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: true)
        }
        draw(screen)
        var larger = screen.style
        larger.textHeight = 0.25
        let next = try #require(try screen.restyled(larger) as? PixelScreen)
        #expect(next.bandRows.count > screen.bandRows.count * 3 / 2)
        try next.takeOver()
        draw(next)
        let colours = Self.colours(framebuffer.surface)
        func litRows(_ rows: Range<Int>) -> Int { rows.filter { y in colours[y].contains { $0.red > 100 } }.count }
        #expect(litRows(next.bandRows) > screen.bandRows.count)
        // Outside the new band's rows (and the orientation line's, empty here) the screen is black.
        let outside = (0..<480).filter { !next.bandRows.contains($0) && !next.lineRows.contains($0) && !next.boxRows.contains($0) }
        #expect(outside.allSatisfy { y in !colours[y].contains { $0.red > 100 } })
    }

    /// The carers' picture of a pixel screen is its glass scaled down, whatever the screen's
    /// shape: each pixel the average of the framebuffer's pixels it covers (it was a simulated
    /// 640x360 frame of another tape).
    @Test(arguments: [(1280, 800), (1920, 1080), (800, 480)])
    func thePictureIsTheGlassScaledDown(width: Int, height: Int) throws {
        let framebuffer = Framebuffer(width: width, height: height)
        let screen = try PixelScreen(scanout: framebuffer)
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        controller.announcementBox = screen.announcementBox
        controller.update(messages: [MarqueeMessage(text: "Tea at four with Anna", effect: .typewriter),
                                     MarqueeMessage(text: "Bins out tonight", colour: Colour(red: 255, green: 160, blue: 0))],
                          at: Self.t0, width: screen.bandWidth)
        screen.showOrientation("Monday morning · 23 November 2026")
        screen.show(controller.frame(at: Self.t0 + 4 * Self.second, width: screen.bandWidth, includingPartialGlyphs: true),
                    fullRepaint: true)
        let image = try #require(screen.copyForPicture()).picture(width: 640)
        #expect(image.width == 640 && image.height == 640 * height / width)
        let glass = framebuffer.surface
        var lit = 0
        var worst = 0
        for py in 0..<image.height {
            for px in 0..<image.width {
                let rows = (py * height / image.height)..<((py + 1) * height / image.height)
                let columns = (px * width / image.width)..<((px + 1) * width / image.width)
                var sum = 0
                for y in rows { for x in columns { sum += Int(glass.format.unpack(glass.pixel(x: x, y: y)).red) } }
                let expected = sum / (rows.count * columns.count)
                let got = Int(image.rgb[(py * image.width + px) * 3])
                worst = max(worst, abs(expected - got))
                if got > 64 { lit += 1 }
            }
        }
        #expect(worst <= 1, "a picture pixel differs from the glass by \(worst)")
        #expect(lit > image.width * image.height / 50, "the picture shows text: \(lit) lit pixels")
    }

    /// A reload that names a font file that is not a font (corrupt, truncated, garbage) is an
    /// error naming it, and the screen keeps its font (it was taken silently, the fallbacks
    /// drawing instead).
    @Test func aCorruptFontOnReloadIsAnError() throws {
        try withTemporaryFolder { folder in
            let corrupt = folder.url.appendingPathComponent("Broken.ttf").path
            try Data([0, 1, 0, 0] + Array(repeating: UInt8(0x41), count: 300)).write(to: URL(fileURLWithPath: corrupt))
            let screen = try PixelScreen(scanout: Framebuffer(width: 800, height: 480))
            var style = screen.style
            style.fontPaths = [corrupt] + style.fontPaths
            #expect {
                try screen.restyled(style)
            } throws: { error in
                "\(error)" == "\(corrupt): not a font FreeType can open"
            }
        }
    }

    /// Every script drawn as it is read: each sample still and centred, as its golden picture
    /// shows it (Arabic joined, right to left; Hebrew right to left; Devanagari conjuncts; Chinese
    /// and Japanese from Noto Sans CJK; a ZWJ family, a skin tone and keycaps as one picture each).
    @Test(arguments: [
        ("arabic", "مرحبا بالعالم"), ("hebrew", "שלום עולם"), ("hindi", "नमस्ते दुनिया"), ("chinese", "今天下午三点看医生"),
        ("japanese", "今日は晴れです"), ("zwj-family", "Family 👨‍👩‍👧"), ("skin-tone", "Great 👍🏽"), ("keycaps", "Press 1️⃣ then 2️⃣"),
    ])
    func scriptsMatchGoldenPictures(name: String, text: String) throws {
        let framebuffer = Framebuffer(width: 720, height: 320)
        let screen = try PixelScreen(scanout: framebuffer)
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        controller.update(messages: [MarqueeMessage(text: text)], at: Self.t0, width: screen.bandWidth)
        let frame = controller.frame(at: Self.t0, width: screen.bandWidth, includingPartialGlyphs: true)
        #expect(!frame.isMoving)
        screen.show(frame, fullRepaint: true)
        #expect(screen.fonts.takeMissing().isEmpty)
        let (off, lit) = try Self.compare(framebuffer.surface, toGolden: "script-\(name)")
        #expect(off <= 720 * 320 / 1000, "\(name): \(off) pixels differ from the golden")
        #expect(lit > 1000, "\(name): the golden shows text")
    }

    /// Band, box and orientation line never overlap and stay on the screen, from a small
    /// monitor to a television.
    @Test(arguments: [(640, 480), (1024, 768), (1280, 800), (1920, 1080)])
    func regionsNeverOverlap(width: Int, height: Int) throws {
        let framebuffer = Framebuffer(width: width, height: height)
        let screen = try PixelScreen(scanout: framebuffer)
        let regions = [screen.boxRows, screen.bandRows, screen.lineRows]
        #expect(regions.allSatisfy { !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= height })
        #expect(screen.boxRows.upperBound <= screen.bandRows.lowerBound && screen.bandRows.upperBound <= screen.lineRows.lowerBound)
        // The longest line of the ten languages is drawn whole, clear of the screen's edges.
        screen.showOrientation("Segunda-feira de manhã · 23 de novembro de 2026 · 10:41")
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        screen.show(controller.frame(at: Self.t0, width: screen.bandWidth), fullRepaint: true)
        let colours = Self.colours(framebuffer.surface)
        let lit: [Int] = screen.lineRows.flatMap { y in (0..<width).filter { colours[y][$0].red > 100 } }
        #expect(lit.count > 500)
        #expect((lit.min() ?? 0) > width / 50 && (lit.max() ?? width) < width - width / 50)
    }

    /// The orientation line below the band, as its golden pictures show it: English by day,
    /// German at night, dimmed (the brightest pixel reads at about 7:1 on black).
    @Test(arguments: [("orientation-en-day", "Monday morning · 23 November 2026", "Good morning! Breakfast is at 8.", 0.0),
                      ("orientation-de-night", "Montagnacht · 23. November 2026", "Gute Nacht!", 1.0)])
    func orientationMatchesGoldenPictures(name: String, line: String, message: String, shade: Double) throws {
        let framebuffer = Framebuffer(width: 1024, height: 768)
        let screen = try PixelScreen(scanout: framebuffer)
        screen.setShade(shade)
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        controller.update(messages: [MarqueeMessage(text: message)], at: Self.t0, width: screen.bandWidth)
        screen.showOrientation(line)
        screen.show(controller.frame(at: Self.t0, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: true)
        let (off, lit) = try Self.compare(framebuffer.surface, toGolden: name)
        #expect(off <= 1024 * 768 / 1000, "\(name): \(off) pixels differ from the golden")
        let brightest = Self.colours(framebuffer.surface).joined().map(\.contrastOnBlack).max() ?? 0
        #expect(shade == 0 ? brightest > 15 : brightest >= 7 && brightest < 7.6, "\(name): brightest \(brightest):1")
        #expect(lit > (shade == 0 ? 3000 : 0))
        // Turned off, the line's rows go black with the next frame.
        screen.showOrientation(nil)
        screen.show(controller.frame(at: Self.t0, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: false)
        let surface = framebuffer.surface
        #expect(screen.lineRows.allSatisfy { y in (0..<1024).allSatisfy { surface.format.unpack(surface.pixel(x: $0, y: y)) == Colour(red: 0, green: 0, blue: 0) } })
    }

    /// The frame at t + dt is the frame at t moved left by speed·dt pixels inside the band:
    /// at 60 px/s, one second later every pixel stands 60 px further left.
    @Test(arguments: formats) func frameAfterAnIntervalIsTheFrameShiftedBySpeedTimesInterval(format: PixelFormat, extra: Int) throws {
        let (framebuffer, path) = try Self.fileFramebuffer(format, extra: extra)
        defer { unlink(path) }
        let screen = try PixelScreen(scanout: framebuffer)
        // The speed is in characters: 60 px/s is as many characters a second as the text's
        // average character (in 1/64 px) goes into 60 · 64.
        let text = "Good evening! Supper is at 6 • The blue box on the table"
        let laid = screen.fonts.measured(text.map { LaidGlyph(character: $0, offset: 0, advance: 0) })
        let perCharacter = Double(laid.last.map { $0.offset + $0.advance } ?? 0) / Double(laid.count)
        let controller = MarqueeController(
            metrics: screen.metrics,
            configuration: MarqueeConfiguration(charactersPerSecond: 60 * 64 / perCharacter), origin: Self.t0)
        controller.update(messages: [MarqueeMessage(text: text)], at: Self.t0, width: screen.bandWidth)
        for start in [Self.t0 + 250_000_000, Self.t0 + 2_125_000_000] {
            Self.show(screen, controller, at: start, full: true)
            let before = Self.colours(framebuffer.surface)
            Self.show(screen, controller, at: start + Self.second)
            let after = Self.colours(framebuffer.surface)
            var lit = 0, differing = 0
            for y in screen.bandRows {
                for x in 0..<(Self.width - 60) {
                    if after[y][x] != before[y][x + 60] { differing += 1 }
                    if after[y][x].red > 128 { lit += 1 }
                }
            }
            #expect(differing == 0, "\(differing) pixels are not the earlier frame shifted by 60 px")
            #expect(lit > 1000)
            #expect(before != after)
        }
    }

    /// A renderer built anew (a restart, a console switch) draws the same pixels at the same
    /// instant as the one that has been running.
    @Test func aNewRendererContinuesExactly() throws {
        let first = Framebuffer(width: Self.width, height: Self.height)
        let (screen, controller) = try Self.display(first)
        for step in 0..<30 { Self.show(screen, controller, at: Self.t0 + Nanoseconds(step) * 16_666_667) }
        let t = Self.t0 + 4_321_000_000
        Self.show(screen, controller, at: t)
        let second = Framebuffer(width: Self.width, height: Self.height)
        let (fresh, freshController) = try Self.display(second)
        Self.show(fresh, freshController, at: t, full: true)
        #expect(Self.colours(first.surface) == Self.colours(second.surface))
    }

    /// At night a colour emoji is dimmed as the letters are: nothing on the screen reads brighter
    /// than about 7:1 on black, and by day the same emoji is as bright as its font draws it.
    @Test func colourEmojiAreDimmedAtNight() throws {
        let framebuffer = Framebuffer(width: 1024, height: 768)
        let screen = try PixelScreen(scanout: framebuffer)
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        controller.update(messages: [MarqueeMessage(text: "🎂🌞")], at: Self.t0, width: screen.bandWidth)
        func brightest(shade: Double) -> Double {
            screen.setShade(shade)
            screen.show(controller.frame(at: Self.t0, width: screen.bandWidth, includingPartialGlyphs: true), fullRepaint: true)
            return Self.colours(framebuffer.surface).joined().map(\.contrastOnBlack).max() ?? 0
        }
        let night = brightest(shade: 1), day = brightest(shade: 0), dusk = brightest(shade: 0.5)
        #expect(day > 15, "by day the emoji are bright: \(day):1")
        #expect(night >= 6.5 && night < 7.6, "at night the brightest pixel reads at \(night):1")
        #expect(dusk > night && dusk < day, "half dimmed: \(dusk):1")
    }

    /// Hebrew in the announcement box reads right to left: its first line holds the text's
    /// beginning, stands at the right edge, and is typed from its right end.
    @Test func rightToLeftAnnouncementsAreWrappedAndTypedFromTheRight() throws {
        let framebuffer = Framebuffer(width: 640, height: 360)
        let screen = try PixelScreen(scanout: framebuffer)
        let text = "שלום עולם, מחר בבוקר יש תור לרופא בשעה עשר ואל תשכחו את הכרטיס"
        let lines = wrapWords(screen.boxFonts.layout(text), width: 300 * FontStack.unitsPerPixel)
        #expect(lines.count > 1)
        #expect(String(lines[0].reversed().map(\.character)).hasPrefix("שלום עולם"), "the first line begins the text")
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        controller.announcementBox = screen.announcementBox
        controller.update(messages: [MarqueeMessage(text: text, effect: .typewriter)], at: Self.t0, width: screen.bandWidth)
        /// The letters' pixels in the box (its frame is a darker grey).
        func letters(at t: SteadyInstant) -> (pixels: [(x: Int, y: Int)], typed: Int, of: Int) {
            let frame = controller.frame(at: t, width: screen.bandWidth, includingPartialGlyphs: true)
            screen.show(frame, fullRepaint: true)
            let surface = framebuffer.surface
            var pixels: [(x: Int, y: Int)] = []
            for y in screen.boxRows {
                for x in 0..<surface.width where surface.format.unpack(surface.pixel(x: x, y: y)).red > 200 {
                    pixels.append((x, y))
                }
            }
            return (pixels, frame.announcement?.visibleCount ?? 0, frame.announcement?.glyphs.count ?? 0)
        }
        var t = Self.t0
        var all = letters(at: t)
        while all.typed < all.of || all.of == 0, t < Self.t0 + 30 * Self.second {
            t += 100_000_000
            all = letters(at: t)
        }
        var some = letters(at: Self.t0)
        var early = Self.t0
        while some.typed < 4, early < t {
            early += 10_000_000
            some = letters(at: early)
        }
        #expect(some.typed >= 4 && some.typed < all.of / 2, "\(some.typed) of \(all.of) typed")
        let firstLine = (all.pixels.map(\.y).min() ?? 0)..<((all.pixels.map(\.y).min() ?? 0) + screen.boxFonts.ascender
            + screen.boxFonts.descender)
        #expect(!some.pixels.isEmpty && some.pixels.allSatisfy { firstLine.contains($0.y) }, "typing starts on the first line")
        #expect(some.pixels.allSatisfy { $0.x > framebuffer.surface.width / 2 }, "typing starts at the right")
        let rightEnd = all.pixels.filter { firstLine.contains($0.y) }.map(\.x).max() ?? 0
        #expect(abs((some.pixels.map(\.x).max() ?? 0) - rightEnd) <= 2, "the first letter stands where the line ends on the right")
    }

    /// Drawing frame after frame leaves nothing behind: where letters of every script, emoji and
    /// a dancing message moved on (overlapping each other as they turn), each frame is the one a
    /// screen drawing it from black shows, pixel for pixel.
    @Test(arguments: [PixelFormat.rgb565, .xrgb8888]) func frameAfterFrameIsTheFrameDrawnAfresh(format: PixelFormat) throws {
        let messages = [
            MarqueeMessage(text: "🎂 Johnny's birthday! 👨‍👩‍👧", colour: Colour(red: 255, green: 105, blue: 180), effect: .dance),
            MarqueeMessage(text: "今天下午 مرحبا بالعالم नमस्ते שלום Wolfgang's office"),
        ]
        func display() throws -> (Framebuffer, PixelScreen, MarqueeController) {
            let framebuffer = Framebuffer(width: Self.width, height: Self.height, format: format)
            let screen = try PixelScreen(scanout: framebuffer)
            let controller = MarqueeController(
                metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 12), origin: Self.t0)
            controller.update(messages: messages, at: Self.t0, width: screen.bandWidth)
            return (framebuffer, screen, controller)
        }
        let (running, screen, controller) = try display()
        var compared = 0
        for step in 0..<240 {
            let t = Self.t0 + Nanoseconds(step) * 16_666_667
            Self.show(screen, controller, at: t, full: step == 0)
            guard step % 40 == 39 else { continue }
            let (fresh, freshScreen, freshController) = try display()
            Self.show(freshScreen, freshController, at: t, full: true)
            let (drawn, expected) = (Self.colours(running.surface), Self.colours(fresh.surface))
            let differing = zip(drawn.joined(), expected.joined()).filter { $0 != $1 }.count
            #expect(differing == 0, "frame \(step) in \(format): \(differing) pixels differ from the frame drawn afresh")
            compared += 1
        }
        #expect(compared == 6)
    }

    /// A dark COLOR is lightened until it reads at 7:1 on black.
    @Test func darkColoursAreLightenedToSevenToOne() {
        let ink = PixelScreen.inkColour(Colour(red: 0, green: 0, blue: 128), hueShift: 0)
        #expect(ink.contrastOnBlack >= 7)
        #expect(ink.blue > ink.red)
        #expect(PixelScreen.inkColour(nil, hueShift: 0) == Colour.plainText)
    }

    /// Quarter-pixel phases: 1/64 units round to the nearest quarter, carrying into the pixel.
    @Test func positionsSplitIntoPixelAndQuarter() {
        #expect(FontStack.pixelAndPhase(0) == (0, 0))
        #expect(FontStack.pixelAndPhase(16) == (0, 1))
        #expect(FontStack.pixelAndPhase(40) == (0, 3))
        #expect(FontStack.pixelAndPhase(60) == (1, 0))
        #expect(FontStack.pixelAndPhase(-16) == (-1, 3))
    }

    /// The band sits in the middle with the box above it, and both fit on the screen.
    @Test(arguments: [(1920, 1080), (1024, 768), (1280, 800), (320, 240)])
    func layoutFitsTheScreen(width: Int, height: Int) throws {
        let framebuffer = Framebuffer(width: width, height: height)
        let screen = try PixelScreen(scanout: framebuffer)
        #expect(screen.fonts.pixelSize == Int((Double(height) / 8).rounded()))
        #expect(screen.bandRows.lowerBound > 0 && screen.bandRows.upperBound < height)
        #expect(abs((screen.bandRows.lowerBound + screen.bandRows.upperBound) / 2 - height / 2) <= 1)
        #expect(screen.boxRows.upperBound <= screen.bandRows.lowerBound && screen.boxRows.lowerBound >= 0)
        #expect(screen.baseline + screen.fonts.descender <= screen.bandRows.count)
    }

    /// Control characters, a 20,000-letter message, stacked marks, a ZWJ family, letters no
    /// font has, a huge announcement: drawn without a crash, the readable part on screen.
    @Test func hostileTextStillDraws() throws {
        let framebuffer = Framebuffer(width: Self.width, height: Self.height, format: .rgb565)
        let screen = try PixelScreen(scanout: framebuffer)
        let controller = MarqueeController(metrics: screen.metrics, origin: Self.t0)
        let messages = [
            MarqueeMessage(text: "\u{0}\u{7}\u{1B}[2Jbell"),
            MarqueeMessage(text: String(repeating: "long ", count: 4000)),
            MarqueeMessage(text: "e" + String(repeating: "\u{301}", count: 200)),
            MarqueeMessage(text: "👨‍👩‍👧‍👦 中文 عربى \u{FFFD}"),
            MarqueeMessage(text: String(repeating: "announce ", count: 500), effect: .typewriter),
        ]
        controller.update(messages: messages, at: Self.t0, width: screen.bandWidth)
        for step in 0..<200 {
            Self.show(screen, controller, at: Self.t0 + Nanoseconds(step) * 250_000_000, full: step == 0)
        }
        let lit = Self.colours(framebuffer.surface).joined().filter { $0.red > 128 }.count
        #expect(lit > 1000)
    }
}
