import Marquee
import Support
import Testing

@testable import Display

/// The glyph cache keeps pictures within its budget, those used longest ago going first, and
/// what a frame needs is found there when the frame is drawn.
@Suite struct GlyphCacheTests {
    static let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    /// Over budget, the pictures unused longest go (a quarter of the budget is freed); those
    /// of the picture being drawn stay even when they alone are over it.
    @Test func forgetsWhatWasUsedLongestAgo() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 48)
        let ink = Colour(red: 255, green: 255, blue: 255)
        var painter = GlyphPainter(format: .xrgb8888, cacheBudget: 20_000)
        let letters: [Character] = ["A", "B", "C", "D", "E", "F", "G", "H"]
        for letter in letters {
            painter.cache.nextPicture()
            _ = painter.ink(fonts.keys(of: letter, phase: 0)[0], colour: ink, from: fonts)
        }
        #expect(painter.cache.bytes <= 60_000)
        #expect(painter.cache.ink(fonts.keys(of: "H", phase: 0)[0], colour: ink, shade: 0) != nil, "the newest stays")
        #expect(painter.cache.ink(fonts.keys(of: "A", phase: 0)[0], colour: ink, shade: 0) == nil, "the oldest went")
        let found = painter.cache.inkFound
        painter.cache.nextPicture()
        _ = painter.ink(fonts.keys(of: "H", phase: 0)[0], colour: ink, from: fonts)
        #expect(painter.cache.inkFound == found + 1, "a second request comes from the cache")

        var tiny = GlyphPainter(format: .rgb565, cacheBudget: 1_000)
        tiny.cache.nextPicture()
        let keys = letters.map { fonts.keys(of: $0, phase: 0)[0] }
        for key in keys { _ = tiny.ink(key, colour: ink, from: fonts) }
        #expect(tiny.cache.bytes > 1_000)
        #expect(keys.allSatisfy { tiny.cache.ink($0, colour: ink, shade: 0) != nil }, "one picture's glyphs all stay")
    }

    /// A glyph is tinted once per colour, from coverage rasterized once.
    @Test func eachColourIsItsOwnInk() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 48)
        var painter = GlyphPainter(format: .rgb565, cacheBudget: 4 << 20)
        let key = fonts.keys(of: "W", phase: 1)[0]
        let madeWhite = painter.ink(key, colour: Colour(red: 255, green: 255, blue: 255), from: fonts)
        let madeRed = painter.ink(key, colour: Colour(red: 255, green: 0, blue: 0), from: fonts)
        let white = try #require(madeWhite), red = try #require(madeRed)
        let bytes = white.width * white.height * 2
        let whitePixels = [UInt8](UnsafeRawBufferPointer(start: white.pixels, count: bytes))
        let redPixels = [UInt8](UnsafeRawBufferPointer(start: red.pixels, count: bytes))
        #expect(whitePixels != redPixels)
        #expect(whitePixels.contains { $0 != 0 })
        #expect(painter.cache.inkLookups == 2 && painter.cache.inkFound == 0)
    }
}
