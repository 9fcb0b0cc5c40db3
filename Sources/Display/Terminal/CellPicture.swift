/// A terminal's cells drawn in pixels, for the carers' picture: the same grid the terminal
/// shows, each cell's character in its colour on black, in marquee's own fonts (the terminal's
/// font is the terminal's; the layout is the one on the glass).
final class CellPicture {
    private let fonts: FontStack
    private var painter: GlyphPainter
    private var placements: [GlyphPlacement] = []
    /// The grid's width it was made for.
    let columns: Int
    let cellWidth: Int
    let cellHeight: Int

    /// A terminal's kind of font: every letter a cell wide (fonts-dejavu-core has it).
    static let monospaced = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"

    /// For a grid `columns` wide drawn about `width` pixels wide.
    init(columns: Int, width: Int) throws(FontError) {
        self.columns = columns
        cellWidth = max(2, width / max(1, columns))
        cellHeight = 2 * cellWidth
        fonts = try FontStack(paths: [Self.monospaced] + FontStack.defaultPaths, pixelSize: max(4, cellHeight * 3 / 4))
        painter = GlyphPainter(format: .xrgb8888, cacheBudget: 4 << 20)
    }

    /// The cells, row by row (`nil`: a row marquee does not draw, left black).
    func draw(_ rows: [[TerminalScreen.Cell]?]) -> ScreenCopy {
        let columns = rows.compactMap { $0?.count }.max() ?? 0
        let width = max(1, columns * cellWidth), height = max(1, rows.count * cellHeight)
        let bytesPerRow = width * 4
        let base = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * height, alignment: 64)
        defer { base.deallocate() }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerRow * height)
        let surface = PixelSurface(base: base, width: width, height: height, bytesPerRow: bytesPerRow, format: .xrgb8888)
        let extents = RowExtents(height: height)
        painter.begin(extents, on: surface)
        let baselineInCell = (cellHeight + fonts.ascender - fonts.descender) / 2
        for (row, cells) in rows.enumerated() {
            guard let cells else { continue }
            for (column, cell) in cells.enumerated() where !cell.isContinuation {
                guard let character = cell.text.first, character != " " else { continue }
                placements.removeAll(keepingCapacity: true)
                fonts.place(character, form: 0, at: column * cellWidth * FontStack.unitsPerPixel, into: &placements)
                for placed in placements {
                    painter.draw(placed.key, from: fonts, x: placed.x, baseline: row * cellHeight + baselineInCell - placed.rise,
                                 colour: cell.ink ?? .plainText, into: surface, extents)
                }
            }
        }
        painter.finish(extents)
        let bytes = Array(UnsafeRawBufferPointer(start: base, count: bytesPerRow * height))
        return ScreenCopy(width: width, height: height, format: .xrgb8888, black: 0,
                          layers: [ScreenCopy.Layer(rows: 0..<height, bytesPerRow: bytesPerRow, bytes: bytes)])
    }
}
