import CLinux
import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal went away (hang-up, closed pipe): stop drawing.
package struct TerminalGone: Error {}

/// A terminal that shows the ticker: takes it over (alternate screen where there is one,
/// cursor hidden, autowrap off), draws frames as cheaply as possible — only what changed,
/// one character shift plus the new cell when the line just moved on, in one `write` — and
/// gives it back as it was. Never clears the screen while running.
package final class TerminalScreen {
    package struct Capabilities: Sendable, Hashable {
        var isLinuxConsole: Bool
        var hasAlternateScreen: Bool
        var colourDepth: ColourDepth
        /// DEC mode 2026 (synchronized output), as the terminal answered the probe.
        var synchronizedOutput: Bool
        /// What the Linux console's font has (nil: not a console, or it would not say).
        var consoleFont: Set<UInt32>? = nil

        /// What `TERM` and `COLORTERM` say (and whether the fd is a Linux console, and its font).
        package static func detect(fd: Int32, environment: [String: String]) -> Capabilities {
            let term = environment["TERM"] ?? ""
            let linux = term == "linux" || mq_is_linux_console(fd) == 1
            let colourTerm = (environment["COLORTERM"] ?? "").lowercased()
            let depth: ColourDepth =
                linux ? .basic8 : (colourTerm == "truecolor" || colourTerm == "24bit") ? .trueColour : .palette256
            var font: Set<UInt32>?
            if linux {
                var codes = [UInt32](repeating: 0, count: 65_535)
                let count = mq_console_font_map(fd, &codes, Int32(codes.count))
                if count > 0 { font = Set(codes.prefix(Int(count))) }
            }
            return Capabilities(isLinuxConsole: linux, hasAlternateScreen: !linux, colourDepth: depth,
                                synchronizedOutput: false, consoleFont: font)
        }
    }

    /// One cell of the screen as last written.
    struct Cell: Equatable {
        var text: String
        var sgr: String
        /// The right half of a wide glyph.
        var isContinuation: Bool
        /// The colour its letter shows in (nil: the terminal's own), for the carers' picture.
        var ink: Colour?

        /// Equal when the terminal shows them alike: what is written decides (the ink is a
        /// picture's, and on an 8-colour console many inks are one attribute).
        static func == (left: Cell, right: Cell) -> Bool {
            left.text == right.text && left.sgr == right.sgr && left.isContinuation == right.isContinuation
        }

        static let blank = Cell(text: " ", sgr: "", isContinuation: false)
        /// What an unknown screen holds: equal to no cell marquee draws, so every cell is written.
        static let unknown = Cell(text: "", sgr: "unknown", isContinuation: false)
    }

    /// How a letter is written: the terminal's attributes, and the colour they show.
    private struct Pen {
        var sgr: String
        var ink: Colour?
    }

    package private(set) var rows = 24
    package private(set) var columns = 80
    package private(set) var capabilities: Capabilities
    /// Bytes and `write` calls so far (for the benchmark and status).
    private(set) var bytesWritten = 0
    private(set) var frameWrites = 0
    private let fd: Int32
    private var lastRows: [Int: [Cell]] = [:]
    /// Draws the carers' picture of the cells (made when first asked, anew for a new width).
    private var cellPicture: CellPicture?
    /// Shown on the bottom rows, in amber (see `TickerScreen.showProblems`).
    var problems: [String] = []
    /// The orientation line, two rows below the band (see `TickerScreen.showOrientation`).
    var orientation: String?
    /// How far colours are dimmed for the night (see `TickerScreen.setShade`).
    var shade = 0.0
    private var currentSGR = ""
    private var savedTerminal: termios?

    package init(fd: Int32 = STDOUT_FILENO, capabilities: Capabilities) {
        self.fd = fd
        self.capabilities = capabilities
        _ = refreshSize()
    }

    /// The size changed since the last frame (the next one clears and repaints).
    private(set) var sizeChanged = false
    /// Whether the next frame is drawn in full (see `TickerScreen`).
    private(set) var mustRepaint = true
    /// When everything was last drawn again (see `checkInterval`), and whether the last frame moved.
    var lastFullRepaint: SteadyInstant?
    var lastFrameMoved = false

    /// Reads the size again; true if it changed (then the next frame repaints fully).
    func refreshSize() -> Bool {
        var height: UInt16 = 0
        var width: UInt16 = 0
        guard mq_terminal_size(fd, &height, &width) == 0, height > 0, width > 0 else { return false }
        let changed = Int(height) != rows || Int(width) != columns
        rows = Int(height)
        columns = Int(width)
        if changed {
            lastRows = [:]
            sizeChanged = true
        }
        return changed
    }

    /// The width the ticker band has, in cells.
    package var bandWidth: Int { columns }

    // MARK: - Taking over and giving back

    /// Resets what an earlier, killed run may have left, then takes the terminal over.
    func enter(input: Int32 = STDIN_FILENO) throws(TerminalGone) {
        if isatty(input) == 1 {
            var settings = termios()
            if tcgetattr(input, &settings) == 0 {
                savedTerminal = settings
                settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
                tcsetattr(input, TCSANOW, &settings)
                capabilities.synchronizedOutput = probeSynchronizedOutput(input: input)
            }
        }
        var setup = "\u{1B}[0m"
        if capabilities.hasAlternateScreen { setup += "\u{1B}[?1049h" }
        setup += capabilities.isLinuxConsole ? "\u{1B}[?25l\u{1B}[?1c" : "\u{1B}[?25l"
        setup += "\u{1B}[?7l\u{1B}[2J"
        try send(Array(setup.utf8))
        lastRows = [:]
        currentSGR = ""
    }

    /// The terminal as it was: cursor, autowrap, main screen, echo.
    package func leave(input: Int32 = STDIN_FILENO) {
        var restore = "\u{1B}[0m\u{1B}[?7h"
        restore += capabilities.isLinuxConsole ? "\u{1B}[?25h\u{1B}[?0c" : "\u{1B}[?25h"
        restore += capabilities.hasAlternateScreen ? "\u{1B}[?1049l" : "\u{1B}[2J\u{1B}[H"
        try? send(Array(restore.utf8))
        if var saved = savedTerminal { tcsetattr(input, TCSANOW, &saved) }
        savedTerminal = nil
    }

    /// Asks for DEC mode 2026 (DECRQM) followed by DA1, which every terminal answers, so the
    /// probe never hangs: a reply `CSI ?2026;1$y` or `;2$y` before the DA1 reply means yes.
    private func probeSynchronizedOutput(input: Int32) -> Bool {
        guard (try? send(Array("\u{1B}[?2026$p\u{1B}[c".utf8))) != nil else { return false }
        var reply: [UInt8] = []
        let deadline = readClock(CLOCK_MONOTONIC) + 300_000_000
        while readClock(CLOCK_MONOTONIC) < deadline {
            var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[0..<count]
            if containsDA1Reply(reply) { break }
        }
        let text = String(decoding: reply, as: UTF8.self)
        return text.contains("\u{1B}[?2026;1$y") || text.contains("\u{1B}[?2026;2$y")
    }

    // MARK: - Drawing

    /// Draws a frame: the band in the middle row, dancing words lifted into the row above,
    /// the announcement box above that. Writes only what changed, in one `write`.
    package func draw(_ frame: Frame, clearFirst: Bool = false, fullRepaint: Bool = false) throws(TerminalGone) {
        let newRows = compose(frame)
        var out: [UInt8] = []
        // On a full repaint the screen may hold anything (a kernel message, text another program
        // wrote): every cell of the rows the ticker owns is written again and every other row is
        // erased, line by line (a whole-screen clear would flash).
        var unknown: [Cell]?
        if fullRepaint {
            lastRows = [:]
            if !clearFirst {
                unknown = [Cell](repeating: .unknown, count: columns)
                setSGR("", into: &out)
                for row in 0..<rows where newRows[row] == nil { out += Array("\u{1B}[\(row + 1);1H\u{1B}[2K".utf8) }
            }
        }
        if clearFirst {
            setSGR("", into: &out)
            out += Array("\u{1B}[2J".utf8)
            sizeChanged = false
        }
        for row in newRows.keys.sorted() {
            let new = newRows[row]!
            let old = lastRows[row] ?? unknown ?? [Cell](repeating: .blank, count: columns)
            guard new != old else { continue }
            if let shift = singleShift(from: old, to: new) {
                emitShift(row: row, by: shift, new: new, into: &out)
            } else {
                emitChanges(row: row, old: old, new: new, into: &out)
            }
        }
        lastRows = newRows
        guard !out.isEmpty else { return }
        if capabilities.synchronizedOutput {
            out = Array("\u{1B}[?2026h".utf8) + out + Array("\u{1B}[?2026l".utf8)
        }
        try send(out)
        frameWrites += 1
    }

    /// The rows the ticker owns, as cells.
    func compose(_ frame: Frame) -> [Int: [Cell]] {
        let band = rows / 2
        let owned = rows >= 7 ? (band - 4)...band : band...band
        var result: [Int: [Cell]] = [:]
        for row in owned { result[row] = [Cell](repeating: .blank, count: columns) }
        // In cells a letter is up a row or not: each bobbing on its own would split a word
        // across two rows, hard to read. A word moves as one, up while its first letter is.
        var wordIsUp = false
        var inWord = false
        for glyph in frame.glyphs {
            if glyph.character.isWhitespace {
                inWord = false
            } else if !inWord {
                inWord = true
                wordIsUp = glyph.lift > 0.8
            }
            guard glyph.x >= 0, glyph.x + glyph.advance <= columns,
                  glyph.x + glyph.advance < columns || !joinsCodePoints(glyph.character) else { continue }
            let row = inWord && wordIsUp && rows >= 7 ? band - 1 : band
            put(glyph.character, at: glyph.x, advance: glyph.advance, pen: pen(glyph.colour, hueShift: glyph.hueShift),
                row: row, into: &result)
        }
        if let announcement = frame.announcement, rows >= 7 {
            placeAnnouncement(announcement, top: band - 4, into: &result)
        }
        // The line's row is the ticker's even without a line: turned off, it is blanked.
        let lineRow = band + 2
        if lineRow < rows {
            result[lineRow] = [Cell](repeating: .blank, count: columns)
            if let orientation {
                placeCentred(orientation, row: lineRow, pen: pen(.orientationLine, hueShift: 0), into: &result)
            }
        }
        placeProblems(below: orientation == nil ? band : lineRow, into: &result)
        return result
    }

    /// `text` centred on `row` (cut at the right edge if it is wider than the row).
    private func placeCentred(_ text: String, row: Int, pen: Pen, into rows: inout [Int: [Cell]]) {
        let laid = cellMetrics.layout(text)
        let left = max(0, (columns - laid.width) / 2)
        for glyph in laid where left + glyph.offset + glyph.advance < columns {
            put(glyph.character, at: left + glyph.offset, advance: glyph.advance, pen: pen, row: row, into: &rows)
        }
    }

    /// The problems on the last rows, one row each, as many as fit at least one row below
    /// the band; a line too long for the row ends in "…".
    private func placeProblems(below band: Int, into rows: inout [Int: [Cell]]) {
        let fitting = min(problems.count, self.rows - band - 2)
        guard fitting > 0 else { return }
        let amber = pen(.problemText, hueShift: 0)
        let metrics = cellMetrics
        for (index, line) in problems.prefix(fitting).enumerated() {
            let row = self.rows - fitting + index
            rows[row] = [Cell](repeating: .blank, count: columns)
            let shown = line.map { ($0, metrics.advance(of: $0)) }.filter { $0.1 > 0 }
            let room = columns - 1
            let fits = shown.reduce(0) { $0 + $1.1 } <= room
            var column = 0
            for (character, advance) in shown {
                guard column + advance <= (fits ? room : room - 1) else {
                    put("…", at: column, advance: 1, pen: amber, row: row, into: &rows)
                    break
                }
                put(character, at: column, advance: advance, pen: amber, row: row, into: &rows)
                column += advance
            }
        }
    }

    /// Whether a cluster is written as more than one code point. Such a cluster is never put
    /// in the last column: with autowrap off the cursor stays there after the base letter, and
    /// the terminal adds the accent or vowel sign that follows to the cell on its left ("Caf́e").
    func joinsCodePoints(_ character: Character) -> Bool {
        cellMetrics.terminalText(of: character).unicodeScalars.count > 1
    }

    /// How this terminal places text: the Linux console by its font, others by `wcwidth`.
    var cellMetrics: TerminalMetrics { TerminalMetrics(consoleFont: capabilities.consoleFont) }

    /// The SGR sequence for text in `colour` (nil: the terminal's own, or warm white when it
    /// must be turned or dimmed), dimmed for the night; the Linux console's 8 colours cannot be
    /// dimmed, so they are drawn half bright (SGR 2) at night instead.
    private func sgr(_ colour: Colour?, hueShift: Double) -> String {
        let basic = capabilities.colourDepth == .basic8
        let faint = basic && shade >= 0.5
        guard var colour = colour ?? (!basic && (hueShift != 0 || shade > 0) ? Colour.plainText : nil) else {
            return faint ? "2" : ""
        }
        if hueShift != 0, !basic { colour = colour.hueRotated(by: hueShift) }
        let foreground = capabilities.colourDepth.foreground(basic ? colour.readable() : colour.readable().dimmed(shade))
        return faint ? "2;" + foreground : foreground
    }

    /// `sgr` with the colour it shows.
    private func pen(_ colour: Colour?, hueShift: Double) -> Pen {
        var ink = colour ?? .plainText
        if hueShift != 0 { ink = ink.hueRotated(by: hueShift) }
        return Pen(sgr: sgr(colour, hueShift: hueShift), ink: ink.readable().dimmed(shade))
    }

    private func put(
        _ character: Character, at column: Int, advance: Int, pen: Pen, row: Int, into rows: inout [Int: [Cell]]
    ) {
        guard var cells = rows[row], column >= 0, column + advance <= cells.count else { return }
        cells[column] = Cell(text: cellMetrics.terminalText(of: character), sgr: pen.sgr, isContinuation: false, ink: pen.ink)
        for extra in 1..<max(1, advance) {
            cells[column + extra] = Cell(text: "", sgr: pen.sgr, isContinuation: true, ink: pen.ink)
        }
        rows[row] = cells
    }

    /// The announcement box: two lines, centred, at most 64 cells wide (nil: too narrow a terminal).
    var announcementBoxWidth: Int? {
        let width = min(columns - 4, 64)
        return width > 8 ? width : nil
    }

    static let announcementLines = 2

    /// The page shown wrapped (at word boundaries, fixed before the first letter shows) into
    /// the box's lines; the typed letters, then the bobbing ▶.
    private func placeAnnouncement(_ announcement: Announcement, top: Int, into rows: inout [Int: [Cell]]) {
        guard let boxWidth = announcementBoxWidth else { return }
        let lines = wrapWords(announcement.glyphs, width: boxWidth - 2, breaking: UnicodeLineBreaking()).prefix(Self.announcementLines)
        let pen = pen(announcement.colour, hueShift: 0)
        let left = (columns - boxWidth) / 2
        var shown = 0
        var arrowPosition: (row: Int, column: Int)?
        for (lineIndex, line) in lines.enumerated() {
            var column = left
            for glyph in line {
                if shown < announcement.visibleCount {
                    put(glyph.character, at: column, advance: glyph.advance, pen: pen, row: top + lineIndex, into: &rows)
                }
                shown += 1
                column += glyph.advance
            }
            arrowPosition = (top + lineIndex, column + 1)
        }
        if let bob = announcement.arrowBob, let arrow = arrowPosition {
            put("▶", at: arrow.column + (bob > 0.5 ? 1 : 0), advance: 1, pen: pen, row: arrow.row, into: &rows)
        }
    }

    /// The number of cells `new` is `old` moved left by, if that is all that changed.
    func singleShift(from old: [Cell], to new: [Cell]) -> Int? {
        let count = old.count
        guard count == new.count, count > 4 else { return nil }
        for shift in 1...3 where !old[shift].isContinuation && !new[count - shift].isContinuation {
            if new[0..<(count - shift)] == old[shift..<count] { return shift }
        }
        return nil
    }

    private func emitShift(row: Int, by shift: Int, new: [Cell], into out: inout [UInt8]) {
        setSGR("", into: &out)
        out += Array("\u{1B}[\(row + 1)H\u{1B}[\(shift == 1 ? "" : String(shift))P".utf8)
        let from = columns - shift
        out += Array("\u{1B}[\(row + 1);\(from + 1)H".utf8)
        for cell in new[from...] { emit(cell, into: &out) }
    }

    private func emitChanges(row: Int, old: [Cell], new: [Cell], into out: inout [UInt8]) {
        guard var first = (0..<columns).first(where: { old[$0] != new[$0] }),
            var last = (0..<columns).last(where: { old[$0] != new[$0] })
        else { return }
        while first > 0, new[first].isContinuation || old[first].isContinuation { first -= 1 }
        while last + 1 < columns, new[last + 1].isContinuation || old[last + 1].isContinuation { last += 1 }
        out += Array("\u{1B}[\(row + 1);\(first + 1)H".utf8)
        for cell in new[first...last] { emit(cell, into: &out) }
    }

    private func emit(_ cell: Cell, into out: inout [UInt8]) {
        guard !cell.isContinuation else { return }
        setSGR(cell.sgr, into: &out)
        out += Array(cell.text.utf8)
    }

    private func setSGR(_ sgr: String, into out: inout [UInt8]) {
        guard sgr != currentSGR else { return }
        out += Array((sgr.isEmpty ? "\u{1B}[0m" : "\u{1B}[0;\(sgr)m").utf8)
        currentSGR = sgr
    }

    private func send(_ bytes: [UInt8]) throws(TerminalGone) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 100)
                    continue
                }
                throw TerminalGone()
            }
            offset += written
        }
        bytesWritten += bytes.count
    }
}

/// Whether `bytes` hold a complete DA1 reply: `CSI ?` digits and semicolons, then `c`.
func containsDA1Reply(_ bytes: [UInt8]) -> Bool {
    var index = 0
    while index + 2 < bytes.count {
        if bytes[index] == 0x1B, bytes[index + 1] == UInt8(ascii: "["), bytes[index + 2] == UInt8(ascii: "?") {
            var end = index + 3
            while end < bytes.count, bytes[end] == UInt8(ascii: ";") || (0x30...0x39).contains(bytes[end]) { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "c") { return true }
        }
        index += 1
    }
    return false
}

extension TerminalScreen: TickerScreen {
    package var metrics: any GlyphMetrics { cellMetrics }
    /// Drawn when the picture changes, whole cells at a time; effects step ten times a second.
    package var pacing: ScreenPacing {
        ScreenPacing(framePeriod: nil, checkInterval: checkInterval, effectStep: 100_000_000, drawsPartialGlyphs: false)
    }
    package var figures: ScreenFigures { ScreenFigures() }
    package var isShowing: Bool { true }
    /// A terminal draws whatever it is sent (its font decides).
    package func takeMissingCharacters() -> [Character] { [] }

    /// A terminal's cells are drawn by the terminal, in its font: it has no picture of its own.
    /// The cells as last drawn, in pixels: the grid on the glass (in marquee's fonts, not the
    /// terminal's). Rows marquee does not draw are black.
    package func copyForPicture() -> ScreenCopy? {
        if cellPicture?.columns != columns {
            cellPicture = try? CellPicture(columns: columns, width: Self.pictureWidth)
        }
        return cellPicture?.draw((0..<rows).map { lastRows[$0] })
    }

    /// About how wide the carers' picture of a terminal is drawn.
    static let pictureWidth = 640

    package func showOrientation(_ text: String?) {
        orientation = text
    }

    package func setShade(_ shade: Double) {
        guard shade != self.shade else { return }
        self.shade = shade
        mustRepaint = true
    }

    package var announcementBox: any AnnouncementBox {
        guard let width = announcementBoxWidth else { return OnePageBox() }
        return LineBox(width: width - 2, lines: Self.announcementLines)
    }
    /// Something else may write to a terminal: everything is drawn again this often while the
    /// line moves; on a Linux console (kernel messages, a stray `echo`) also while it stands still.
    package var checkInterval: Nanoseconds? {
        capabilities.isLinuxConsole ? 2_000_000_000 : lastFrameMoved ? 10_000_000_000 : nil
    }

    package var outputDescription: String {
        let colours = switch capabilities.colourDepth {
        case .trueColour: "24-bit colour"
        case .palette256: "256 colours"
        case .basic8: "8 colours"
        }
        let kind = capabilities.isLinuxConsole ? "Linux console" : "terminal"
        let sync = capabilities.synchronizedOutput ? ", synchronized output" : ""
        return "\(kind) \(columns)x\(rows), \(colours)\(sync)"
    }

    package func takeOver() throws {
        try enter()
        mustRepaint = true
    }
    package func giveBack() { leave() }

    /// A terminal shows what it is sent as it arrives.
    package func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant { due }

    /// A terminal draws text cells: there is nothing to make ready and no glyph pictures.
    package func prepare(_ frame: Frame) {}

    package func noticeChanges(at now: SteadyInstant) {
        guard let interval = checkInterval, lastFullRepaint.map({ now - $0 >= interval }) ?? true else { return }
        lastFullRepaint = now
        mustRepaint = true
    }

    package func notice(_ change: ScreenChange) {
        switch change {
        case .resized: if refreshSize() { mustRepaint = true }
        case .consoleSwitchRequested, .deviceChanged: break
        }
    }

    package func show(_ frame: Frame) throws {
        lastFrameMoved = frame.isMoving
        try draw(frame, clearFirst: mustRepaint && sizeChanged, fullRepaint: mustRepaint)
        mustRepaint = false
    }

    /// A terminal cannot be powered down: it is cleared.
    package func setDark(_ dark: Bool) -> String {
        mustRepaint = true
        guard dark else { return "" }
        lastRows = [:]
        var out: [UInt8] = []
        setSGR("", into: &out)
        try? send(out + Array("\u{1B}[2J".utf8))
        return "cleared (a terminal cannot be powered down)"
    }

    package func showProblems(_ lines: [String]) {
        guard lines != problems else { return }
        problems = lines
        mustRepaint = true
    }
}

/// A box of `lines` lines `width` units wide, measuring glyphs as they were laid (a terminal's
/// cells).
struct LineBox: AnnouncementBox {
    let width: Int
    let lines: Int

    func pages(of glyphs: [LaidGlyph]) -> [Range<Int>] {
        pageRanges(glyphs, width: width, linesPerPage: lines, breaking: UnicodeLineBreaking())
    }
}
