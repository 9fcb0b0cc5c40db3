import Marquee

#if canImport(Glibc)
    import Glibc
#endif

/// Puts glyph images on a black surface in the device's own format: coverage is turned into
/// device pixels through a 256-entry table per colour (blended in linear light), so drawing a
/// pixel is one table look-up and one store. Where two glyphs overlap, the brighter wins.
struct GlyphPainter {
    let format: PixelFormat
    let black: UInt32
    private var tables: [Colour: [UInt32]] = [:]

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

    /// Draws `image` with its pen at pixel `x` on the baseline row `baseline` of `surface`,
    /// clipped to the surface.
    func draw(_ image: GlyphImage, x: Int, baseline: Int, table: [UInt32], into surface: PixelSurface) {
        let left = x + image.left, top = baseline - image.top
        let firstColumn = max(0, -left), endColumn = min(image.width, surface.width - left)
        let firstRow = max(0, -top), endRow = min(image.height, surface.height - top)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        let columns = firstColumn..<endColumn, rows = firstRow..<endRow
        switch image.pixels {
        case .coverage(let coverage):
            coverage.withUnsafeBufferPointer { coverage in
                table.withUnsafeBufferPointer { table in
                    switch format.bytesPerPixel {
                    case 4: paint(coverage, image.width, left, top, rows, columns, table, surface, as: UInt32.self)
                    case 2: paint(coverage, image.width, left, top, rows, columns, table, surface, as: UInt16.self)
                    default:
                        for row in rows {
                            for column in columns {
                                let level = coverage[row * image.width + column]
                                guard level != 0 else { continue }
                                let old = surface.pixel(x: left + column, y: top + row)
                                surface.set(x: left + column, y: top + row,
                                            to: old == black ? table[Int(level)] : brighter(old, table[Int(level)]))
                            }
                        }
                    }
                }
            }
        case .colour(let pixels):
            for row in rows {
                for column in columns {
                    let source = pixels[row * image.width + column]
                    let alpha = source >> 24
                    guard alpha != 0 else { continue }
                    let old = format.unpack(surface.pixel(x: left + column, y: top + row))
                    func over(_ shift: UInt32, _ below: UInt8) -> UInt8 {
                        UInt8(min(255, (source >> shift) & 0xFF + UInt32(below) * (255 - alpha) / 255))
                    }
                    surface.set(x: left + column, y: top + row, to: format.pack(
                        Colour(red: over(16, old.red), green: over(8, old.green), blue: over(0, old.blue))))
                }
            }
        }
    }

    @inline(__always)
    private func paint<Stored: FixedWidthInteger & UnsignedInteger>(
        _ coverage: UnsafeBufferPointer<UInt8>, _ width: Int, _ left: Int, _ top: Int, _ rows: Range<Int>,
        _ columns: Range<Int>, _ table: UnsafeBufferPointer<UInt32>, _ surface: PixelSurface, as: Stored.Type
    ) {
        let black = Stored(truncatingIfNeeded: self.black)
        for row in rows {
            let line = (surface.base + (top + row) * surface.bytesPerRow).assumingMemoryBound(to: Stored.self) + left
            let source = row * width
            for column in columns {
                let level = coverage[source + column]
                guard level != 0 else { continue }
                let value = Stored(truncatingIfNeeded: table[Int(level)])
                let old = line[column]
                line[column] = old == black ? value : Stored(truncatingIfNeeded: brighter(UInt32(old), UInt32(value)))
            }
        }
    }

    private func brighter(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let first = format.unpack(a), second = format.unpack(b)
        return format.pack(Colour(red: max(first.red, second.red), green: max(first.green, second.green),
                                  blue: max(first.blue, second.blue)))
    }
}
