import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// How far each row of a surface holds ink: in the picture before (all black right of that),
/// and in the picture being drawn (a glyph picture is laid over what lies left of that and
/// copied right of it). Looked at for every row of every glyph drawn, so kept in plain memory.
final class RowExtents {
    fileprivate let drawnUpTo: UnsafeMutableBufferPointer<Int>
    fileprivate let inkedUpTo: UnsafeMutableBufferPointer<Int>

    /// A surface of `height` rows that is black.
    init(height: Int) {
        drawnUpTo = .allocate(capacity: height)
        inkedUpTo = .allocate(capacity: height)
        drawnUpTo.initialize(repeating: 0)
        inkedUpTo.initialize(repeating: 0)
    }

    deinit {
        drawnUpTo.deallocate()
        inkedUpTo.deallocate()
    }

    /// The surface was filled black.
    func blank() {
        inkedUpTo.update(repeating: 0)
    }
}

/// Puts glyph pictures on a surface in the device's own format, on black. A glyph is tinted
/// once per colour into device pixels (coverage through a 256-entry table per colour, blended
/// in linear light) and kept in the `GlyphCache`. A picture starts by clearing each row as far
/// as the one before had ink (one `memset` a row); then a row of a glyph, black margins and
/// all, is one `memcpy` where nothing is drawn yet. Where two glyphs overlap, the brighter
/// wins; a colour picture lies over what is below it. (Clearing only the gaps between glyphs,
/// or only where ink was, writes fewer bytes but takes longer: many small, unpredictable
/// writes.)
struct GlyphPainter {
    let format: PixelFormat
    let black: UInt32
    let cache: GlyphCache
    private var tables: [Colour: [UInt32]] = [:]
    /// How far the night dims pictures in their own colours (letters come in dimmed colours).
    var shade = 0.0
    /// Where the colour channels sit, to compare and mix device pixels without unpacking them
    /// (three fields, not an array: read for every pixel laid over another).
    private let channels: (PixelFormat.Channel, PixelFormat.Channel, PixelFormat.Channel)

    init(format: PixelFormat, cacheBudget: Int) {
        self.format = format
        black = format.pack(Colour(red: 0, green: 0, blue: 0))
        cache = GlyphCache(budget: cacheBudget)
        channels = (format.red, format.green, format.blue)
    }

    /// Device pixels for coverage 0…255 of `colour` over black.
    mutating func table(for colour: Colour) -> [UInt32] {
        if let known = tables[colour] { return known }
        if tables.count > 512 { tables = [:] }
        func linear(_ value: UInt8) -> Double { pow(Double(value) / 255, 2.2) }
        func encoded(_ value: Double) -> UInt8 { UInt8((pow(value, 1 / 2.2) * 255).rounded()) }
        let channels = (linear(colour.red), linear(colour.green), linear(colour.blue))
        let table = (0..<256).map { level -> UInt32 in
            let share = Double(level) / 255
            return format.pack(Colour(red: encoded(channels.0 * share), green: encoded(channels.1 * share),
                                      blue: encoded(channels.2 * share)))
        }
        tables[colour] = table
        return table
    }

    /// The glyph `key` of `fonts` ready to paint in `colour` (an emoji in its own, dimmed by
    /// `shade` at night): from the cache, else tinted from its rasterized coverage (kept too,
    /// for the next colour).
    mutating func ink(_ key: GlyphKey, colour: Colour, from fonts: FontStack) -> Ink? {
        let tint = fonts.drawsInOwnColours(key) ? nil : colour
        if let known = cache.ink(key, colour: tint, shade: shade) { return known }
        let image: GlyphImage
        if let known = cache.coverage(key) {
            image = known
        } else {
            guard let made = fonts.rasterize(key) else { return nil }
            cache.keep(made, for: key)
            image = made
        }
        let ink = Ink(image, format: format, table: tint.map { table(for: $0) } ?? [], shade: shade)
        cache.keep(ink, for: key, colour: tint, shade: shade)
        return ink
    }

    /// Starts a picture on a surface that shows the one `extents` tracked: black again, and
    /// nothing of the new one drawn yet.
    func begin(_ extents: RowExtents, on surface: PixelSurface) {
        cache.nextPicture()
        let bytes = format.bytesPerPixel
        for y in extents.inkedUpTo.indices where extents.inkedUpTo[y] > 0 {
            if black == 0 {
                (surface.base + y &* surface.bytesPerRow).initializeMemory(as: UInt8.self, repeating: 0,
                                                                            count: extents.inkedUpTo[y] &* bytes)
            } else {
                for x in 0..<extents.inkedUpTo[y] { surface.set(x: x, y: y, to: black) }
            }
        }
        extents.drawnUpTo.update(repeating: 0)
    }

    /// Ends a picture: how far it has ink is what the next one clears.
    func finish(_ extents: RowExtents) {
        _ = extents.inkedUpTo.update(fromContentsOf: extents.drawnUpTo)
    }

    /// Draws the glyph `key` of `fonts` in `colour` with its pen at pixel `x` on the baseline
    /// row `baseline` of `surface`, clipped to the surface, as part of the picture `extents`
    /// tracks.
    mutating func draw(_ key: GlyphKey, from fonts: FontStack, x: Int, baseline: Int, colour: Colour,
                       into surface: PixelSurface, _ extents: RowExtents) {
        guard let ink = ink(key, colour: colour, from: fonts) else { return }
        let left = x + ink.left, top = baseline - ink.top
        let firstColumn = max(0, -left), endColumn = min(ink.width, surface.width - left)
        let firstRow = max(0, -top), endRow = min(ink.height, surface.height - top)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        // Every number below is within the surface and the picture (clipped above), so the
        // arithmetic of this loop, run for every row of every glyph, goes unchecked.
        let bytes = format.bytesPerPixel
        let start = left &+ firstColumn, stop = left &+ endColumn, count = endColumn &- firstColumn
        for row in firstRow..<endRow {
            // The whole row of the picture, its black too: laid over what this picture has left
            // of it, copied onto black right of that.
            let y = top &+ row
            let overlap = min(max(0, extents.drawnUpTo[y] &- start), count)
            extents.drawnUpTo[y] = max(extents.drawnUpTo[y], stop)
            let source = ink.pixels + (row &* ink.width &+ firstColumn) &* bytes
            let target = surface.base + (y &* surface.bytesPerRow &+ start &* bytes)
            if overlap < count {
                (target + overlap &* bytes).copyMemory(from: source + overlap &* bytes, byteCount: (count &- overlap) &* bytes)
            }
            guard overlap > 0 else { continue }
            let alpha = ink.alpha.map { $0 + row * ink.width + firstColumn }
            switch bytes {
            case 4: lay(source, over: target, alpha: alpha, count: overlap, as: UInt32.self)
            case 2: lay(source, over: target, alpha: alpha, count: overlap, as: UInt16.self)
            default:
                let pixels = PixelSurface(base: ink.pixels, width: ink.width, height: ink.height,
                                          bytesPerRow: ink.width * bytes, format: format)
                for column in 0..<overlap {
                    let old = surface.pixel(x: start + column, y: y)
                    surface.set(x: start + column, y: y,
                                to: blend(pixels.pixel(x: firstColumn + column, y: row), over: old, alpha: alpha?[column]))
                }
            }
        }
    }

    /// `count` device pixels laid over those at `target`.
    @inline(__always)
    private func lay<Stored: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafeMutableRawPointer, over target: UnsafeMutableRawPointer, alpha: UnsafeMutablePointer<UInt8>?,
        count: Int, as: Stored.Type
    ) {
        let source = source.assumingMemoryBound(to: Stored.self), target = target.assumingMemoryBound(to: Stored.self)
        for index in 0..<count {
            let value = UInt32(source[index])
            target[index] = Stored(truncatingIfNeeded: blend(value, over: UInt32(target[index]), alpha: alpha?[index]))
        }
    }

    /// A device pixel of a glyph laid over one on the surface: a one-colour glyph's brighter
    /// channels win; a colour picture's pixel (premultiplied) covers the one below by `alpha`.
    @inline(__always)
    private func blend(_ value: UInt32, over old: UInt32, alpha: UInt8?) -> UInt32 {
        guard let alpha else {
            if value == black { return old }
            if old == black { return value }
            func brighter(_ channel: PixelFormat.Channel) -> UInt32 { max(value & channel.mask, old & channel.mask) }
            return format.alpha.mask | brighter(channels.0) | brighter(channels.1) | brighter(channels.2)
        }
        if alpha == 0 { return old }
        let keep = UInt32(255 - alpha)
        func over(_ channel: PixelFormat.Channel) -> UInt32 {
            let mask = channel.mask, shift = UInt32(channel.offset)
            let below = (old & mask) >> shift, own = (value & mask) >> shift
            return min(mask >> shift, own + (below * keep + 127) / 255) << shift
        }
        return format.alpha.mask | over(channels.0) | over(channels.1) | over(channels.2)
    }
}
