import Marquee
import Support

/// A glyph picture ready to paint in one colour: device pixels over black, row after row, and
/// for a picture in its own colours (emoji) its coverage, to lay it over other ink.
final class Ink {
    let width: Int
    let height: Int
    /// From the pen to the left edge and from the baseline up to the top row, in pixels.
    let left: Int
    let top: Int
    let pixels: UnsafeMutableRawPointer
    let bytesPerPixel: Int
    /// Coverage 0…255 per pixel of a colour picture; nil for one colour, whose pixels say it.
    let alpha: UnsafeMutablePointer<UInt8>?

    /// - Parameters:
    ///   - table: device pixels for each coverage (a one-colour picture).
    ///   - shade: how far the night dims a picture in its own colours (its brightest pixel as a
    ///     letter's colour would be).
    init(_ image: GlyphImage, format: PixelFormat, table: [UInt32], shade: Double) {
        width = image.width
        height = image.height
        left = image.left
        top = image.top
        bytesPerPixel = format.bytesPerPixel
        let count = width * height
        pixels = UnsafeMutableRawPointer.allocate(byteCount: max(1, count * bytesPerPixel), alignment: 16)
        let surface = PixelSurface(base: pixels, width: width, height: height, bytesPerRow: width * bytesPerPixel,
                                   format: format)
        switch image.pixels {
        case .coverage(let coverage):
            alpha = nil
            for y in 0..<height {
                for x in 0..<width { surface.set(x: x, y: y, to: table[Int(coverage[y * width + x])]) }
            }
        case .colour(let colours):
            func colour(_ pixel: UInt32) -> Colour {
                Colour(red: UInt8(truncatingIfNeeded: pixel >> 16), green: UInt8(truncatingIfNeeded: pixel >> 8),
                       blue: UInt8(truncatingIfNeeded: pixel))
            }
            let factor = shade > 0
                ? Colour.nightFactor(brightest: colours.lazy.map { colour($0).luminance }.max() ?? 0, shade: shade) : 1
            let alpha = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
            for y in 0..<height {
                for x in 0..<width {
                    let pixel = colours[y * width + x]
                    alpha[y * width + x] = UInt8(pixel >> 24)
                    let shown = factor < 1 ? colour(pixel).scaled(factor) : colour(pixel)
                    surface.set(x: x, y: y, to: format.pack(shown))
                }
            }
            self.alpha = alpha
        }
    }

    deinit {
        pixels.deallocate()
        alpha?.deallocate()
    }

    var byteCount: Int { width * height * (bytesPerPixel + (alpha == nil ? 0 : 1)) + GlyphCache.entryOverhead }
}

/// The glyph pictures a framebuffer draws with, kept within a memory budget: rasterized
/// coverage, and ink tinted in device pixels. Over budget, the pictures unused longest go
/// until a quarter of the budget is free; those of the picture being drawn stay. What is
/// needed again is rasterized again: a small box with many scripts stays small.
final class GlyphCache {
    private struct InkKey: Hashable {
        var glyph: GlyphKey
        /// The colour as 0xRRGGBB; for a picture in its own colours, above every colour, how far
        /// the night dims it.
        var colour: UInt32

        init(_ glyph: GlyphKey, _ colour: Colour?, shade: Double) {
            self.glyph = glyph
            self.colour = colour.map { UInt32($0.red) << 16 | UInt32($0.green) << 8 | UInt32($0.blue) }
                ?? 0x0100_0000 + UInt32((shade * 65_535).rounded())
        }

        func hash(into hasher: inout Hasher) {
            glyph.hash(into: &hasher)
            hasher.combine(colour)
        }
    }

    private enum Key: Hashable {
        case coverage(GlyphKey)
        case ink(InkKey)
    }

    private enum Value {
        case coverage(GlyphImage)
        case ink(Ink)
    }

    private final class Entry {
        let value: Value
        let bytes: Int
        var lastUse: Int

        init(value: Value, bytes: Int, lastUse: Int) {
            self.value = value
            self.bytes = bytes
            self.lastUse = lastUse
        }
    }

    /// Bytes kept at most (but never the pictures of the frame being drawn).
    let budget: Int
    /// Bytes an entry takes besides its pixels (objects, keys, the table's slot), counted too.
    static let entryOverhead = 96
    private var entries: [Key: Entry] = [:]
    /// Bytes held now.
    private(set) var bytes = 0
    /// Look-ups of ink, and how many found it.
    private(set) var inkLookups = 0
    private(set) var inkFound = 0
    /// Counts pictures drawn (or made ready): what is used in the current one stays.
    private var picture = 0

    init(budget: Int) {
        self.budget = budget
    }

    /// A new picture starts: its pictures become the ones most recently used.
    func nextPicture() { picture += 1 }

    /// The ink of `key` in `colour`, or in its own colours (nil) dimmed by `shade`.
    func ink(_ key: GlyphKey, colour: Colour?, shade: Double) -> Ink? {
        inkLookups += 1
        guard let entry = entries[.ink(InkKey(key, colour, shade: shade))], case .ink(let ink) = entry.value else { return nil }
        entry.lastUse = picture
        inkFound += 1
        return ink
    }

    func keep(_ ink: Ink, for key: GlyphKey, colour: Colour?, shade: Double) {
        insert(.ink(ink), bytes: ink.byteCount, for: .ink(InkKey(key, colour, shade: shade)))
    }

    func coverage(_ key: GlyphKey) -> GlyphImage? {
        guard let entry = entries[.coverage(key)], case .coverage(let image) = entry.value else { return nil }
        entry.lastUse = picture
        return image
    }

    func keep(_ image: GlyphImage, for key: GlyphKey) {
        insert(.coverage(image), bytes: image.byteCount + Self.entryOverhead, for: .coverage(key))
    }

    private func insert(_ value: Value, bytes count: Int, for key: Key) {
        if let old = entries.updateValue(Entry(value: value, bytes: count, lastUse: picture), forKey: key) {
            bytes -= old.bytes
        }
        bytes += count
        if bytes > budget { evict() }
    }

    /// Forgets the pictures unused longest until a quarter of the budget is free.
    private func evict() {
        let target = budget - budget / 4
        for (key, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard bytes > target, entry.lastUse < picture else { break }
            entries[key] = nil
            bytes -= entry.bytes
        }
    }
}
