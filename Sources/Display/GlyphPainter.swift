import Marquee

#if canImport(Glibc)
    import Glibc
#endif

/// Where a surface's rows stand, so a new picture writes each pixel about once instead of
/// clearing everything first: per row, the columns already final in the picture being drawn
/// (from the left edge), and the column past which the row is black from before.
struct RowExtents {
    fileprivate var final: [Int]
    fileprivate var inkedUpTo: [Int]

    /// A surface of `height` rows that is black.
    init(height: Int) {
        final = [Int](repeating: 0, count: height)
        inkedUpTo = final
    }

    /// The surface was filled black.
    mutating func blank() {
        for row in inkedUpTo.indices { inkedUpTo[row] = 0 }
    }
}

/// Puts glyph images on a surface in the device's own format, on black: coverage is turned
/// into device pixels through a 256-entry table per colour (blended in linear light). An
/// upright glyph is kept tinted, in device pixels, so drawing a row of it where nothing else
/// is yet is one `memcpy`. Rows are drawn left to right: what lies between glyphs is cleared
/// as the pen passes (only as far as earlier ink reached), the rest of a row when the picture
/// is finished. Where two glyphs overlap, the brighter wins.
struct GlyphPainter {
    /// Tinted glyphs are kept up to this many bytes, then forgotten together.
    static let tintedLimit = 16 << 20

    let format: PixelFormat
    let black: UInt32
    private var tables: [Colour: [UInt32]] = [:]
    private struct TintKey: Hashable {
        var image: Int
        var colour: Colour
    }
    private var tinted = BoundedCache<TintKey, [UInt8]>(limit: GlyphPainter.tintedLimit)
    /// Bytes held by tinted glyphs.
    var tintedBytes: Int { tinted.bytes }

    init(format: PixelFormat) {
        self.format = format
        black = format.pack(Colour(red: 0, green: 0, blue: 0))
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

    /// `image` in `colour` as device pixels, row after row (made on first use, then kept).
    private mutating func tint(_ image: GlyphImage, _ colour: Colour, _ table: [UInt32]) -> [UInt8] {
        let key = TintKey(image: image.id, colour: colour)
        if let known = tinted[key] { return known }
        guard case .coverage(let coverage) = image.pixels else { return [] }
        let bytesPerRow = image.width * format.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * image.height)
        pixels.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let rows = PixelSurface(base: base, width: image.width, height: image.height, bytesPerRow: bytesPerRow,
                                    format: format)
            for y in 0..<image.height {
                for x in 0..<image.width { rows.set(x: x, y: y, to: table[Int(coverage[y * image.width + x])]) }
            }
        }
        tinted.insert(pixels, bytes: pixels.count, for: key)
        return pixels
    }

    /// Starts a picture: nothing of it is drawn yet.
    func begin(_ extents: inout RowExtents) {
        for row in extents.final.indices { extents.final[row] = 0 }
    }

    /// Ends a picture: what earlier pictures left right of the new one's last pixel is cleared.
    func finish(_ extents: inout RowExtents, on surface: PixelSurface) {
        for y in extents.final.indices {
            settle(y, upTo: extents.inkedUpTo[y], &extents, surface)
            extents.inkedUpTo[y] = extents.final[y]
        }
    }

    /// Makes the columns of row `y` up to `column` final: black where earlier ink may be.
    private func settle(_ y: Int, upTo column: Int, _ extents: inout RowExtents, _ surface: PixelSurface) {
        let from = extents.final[y]
        guard from < column else { return }
        let to = min(column, extents.inkedUpTo[y])
        if from < to {
            if black == 0 {
                (surface.base + y * surface.bytesPerRow + from * format.bytesPerPixel)
                    .initializeMemory(as: UInt8.self, repeating: 0, count: (to - from) * format.bytesPerPixel)
            } else {
                for x in from..<to { surface.set(x: x, y: y, to: black) }
            }
        }
        extents.final[y] = column
    }

    /// Draws `image` in `colour` with its pen at pixel `x` on the baseline row `baseline` of
    /// `surface`, clipped to the surface, as part of the picture `extents` tracks. `keep`: the
    /// image will be drawn again (not a passing dance pose), so keep it tinted.
    mutating func draw(_ image: GlyphImage, x: Int, baseline: Int, colour: Colour, keep: Bool, into surface: PixelSurface,
                       _ extents: inout RowExtents) {
        let table = table(for: colour)
        let tinted = keep ? tint(image, colour, table) : []
        let left = x + image.left, top = baseline - image.top
        let firstColumn = max(0, -left), endColumn = min(image.width, surface.width - left)
        let firstRow = max(0, -top), endRow = min(image.height, surface.height - top)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        // Per row: the inked columns within the surface, whether nothing of this picture lies
        // right of their start yet (then coverage is written without reading), the row made
        // final up to where the writing starts (up to its end when the pixels are blended).
        func span(_ row: Int, blended: Bool) -> (y: Int, columns: Range<Int>, fresh: Bool)? {
            let y = top + row
            let inked = image.inked[row]
            let first = max(firstColumn, Int(inked.lowerBound)), end = min(endColumn, Int(inked.upperBound))
            guard first < end else { return nil }
            let fresh = extents.final[y] <= left + first
            settle(y, upTo: fresh && !blended ? left + first : left + end, &extents, surface)
            extents.final[y] = max(extents.final[y], left + end)
            return (y, first..<end, fresh)
        }
        switch image.pixels {
        case .coverage(let coverage):
            coverage.withUnsafeBufferPointer { coverage in
                table.withUnsafeBufferPointer { table in
                    for row in firstRow..<endRow {
                        guard let (y, columns, fresh) = span(row, blended: false) else { continue }
                        let bytes = format.bytesPerPixel
                        if fresh, !tinted.isEmpty {
                            tinted.withUnsafeBytes { pixels in
                                (surface.base + y * surface.bytesPerRow + (left + columns.lowerBound) * bytes).copyMemory(
                                    from: pixels.baseAddress! + (row * image.width + columns.lowerBound) * bytes,
                                    byteCount: columns.count * bytes)
                            }
                            continue
                        }
                        let source = coverage.baseAddress! + row * image.width
                        switch bytes {
                        case 4: paint(source, columns, left, y, table, surface, fresh: fresh, as: UInt32.self)
                        case 2: paint(source, columns, left, y, table, surface, fresh: fresh, as: UInt16.self)
                        default:
                            for column in columns where fresh || source[column] != 0 {
                                let old = fresh ? black : surface.pixel(x: left + column, y: y)
                                let value = table[Int(source[column])]
                                surface.set(x: left + column, y: y, to: old == black ? value : brighter(old, value))
                            }
                        }
                    }
                }
            }
        case .colour(let pixels):
            for row in firstRow..<endRow {
                guard let (y, columns, _) = span(row, blended: true) else { continue }
                for column in columns {
                    let source = pixels[row * image.width + column]
                    let alpha = source >> 24
                    guard alpha != 0 else { continue }
                    let old = format.unpack(surface.pixel(x: left + column, y: y))
                    func over(_ shift: UInt32, _ below: UInt8) -> UInt8 {
                        UInt8(min(255, (source >> shift) & 0xFF + UInt32(below) * (255 - alpha) / 255))
                    }
                    surface.set(x: left + column, y: y, to: format.pack(
                        Colour(red: over(16, old.red), green: over(8, old.green), blue: over(0, old.blue))))
                }
            }
        }
    }

    /// One row of coverage into a 16- or 32-bit surface row: on a fresh row a plain look-up
    /// and store per pixel, else blended with what is there.
    @inline(__always)
    private func paint<Stored: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafePointer<UInt8>, _ columns: Range<Int>, _ left: Int, _ y: Int, _ table: UnsafeBufferPointer<UInt32>,
        _ surface: PixelSurface, fresh: Bool, as: Stored.Type
    ) {
        let line = (surface.base + y * surface.bytesPerRow).assumingMemoryBound(to: Stored.self) + left
        let table = table.baseAddress!
        if fresh {
            for column in columns { line[column] = Stored(truncatingIfNeeded: table[Int(source[column])]) }
            return
        }
        let black = Stored(truncatingIfNeeded: self.black)
        for column in columns where source[column] != 0 {
            let value = Stored(truncatingIfNeeded: table[Int(source[column])])
            let old = line[column]
            line[column] = old == black ? value : Stored(truncatingIfNeeded: brighter(UInt32(old), UInt32(value)))
        }
    }

    private func brighter(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let first = format.unpack(a), second = format.unpack(b)
        return format.pack(Colour(red: max(first.red, second.red), green: max(first.green, second.green),
                                  blue: max(first.blue, second.blue)))
    }
}
