import Foundation
import Marquee
import Support
import Testing

@testable import Display

/// The terminal renderer against a pipe: what it writes, byte for byte.
@Suite struct TerminalScreenTests {
    let second: Nanoseconds = 1_000_000_000
    let t0 = SteadyInstant(sinceOrigin: 1_800_000_000 * 1_000_000_000)

    /// A screen (24×80: a pipe has no size) whose output is collected.
    func screen(depth: ColourDepth = .palette256, synchronized: Bool = false) -> (TerminalScreen, Pipe) {
        let pipe = Pipe()
        let capabilities = TerminalScreen.Capabilities(
            isLinuxConsole: depth == .basic8, hasAlternateScreen: depth != .basic8, colourDepth: depth,
            synchronizedOutput: synchronized)
        return (TerminalScreen(fd: pipe.fileHandleForWriting.fileDescriptor, capabilities: capabilities), pipe)
    }

    func written(_ pipe: Pipe) -> String {
        String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
    }

    /// In an 80x24 terminal the box, the row a dancing letter lifts into, the band and the
    /// orientation line each have rows of their own, and the problems stay below the line.
    @Test func rowsNeverOverlap() throws {
        let (screen, _) = screen(depth: .palette256)
        screen.showOrientation("Monday morning · 23 November 2026")
        screen.showProblems(["marquee: feeds/a.ics:3: error: broken"])
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Take your pills", effect: .typewriter),
                                  MarqueeMessage(text: "Happy birthday", effect: .dance)], at: t0, width: 80)
        let rows = screen.compose(marquee.frame(at: t0 + second, width: 80))
        func text(_ row: Int) -> String { (rows[row] ?? []).map(\.text).joined().trimmingCharacters(in: .whitespaces) }
        #expect(text(8).hasPrefix("Take your pills"))
        #expect(text(12).contains("Take your pills") || text(12).contains("H"))
        #expect(text(14) == "Monday morning · 23 November 2026")
        #expect(text(23).hasPrefix("marquee: feeds/a.ics:3"))
        #expect([13, 15, 16].allSatisfy { text($0).isEmpty })
    }

    /// A dancing message in cells (it fits, so it stands): over twenty seconds of its dance,
    /// every word is whole on one row at every moment (up a row or on the band), and words do
    /// go up now and then.
    @Test func aDancingWordMovesAsOne() {
        let (screen, output) = screen(depth: .palette256)
        defer { withExtendedLifetime(output) {} }
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        let text = "Happy birthday dear Johnny"
        marquee.update(messages: [MarqueeMessage(text: text, effect: .dance)], at: t0, width: 80)
        var wentUp: Set<String> = []
        for tenth in 20..<220 {
            let rows = screen.compose(marquee.frame(at: t0 + Nanoseconds(tenth) * second / 10, width: 80))
            let (up, band) = ((rows[11] ?? []).map(\.text).joined(), (rows[12] ?? []).map(\.text).joined())
            let upWords = up.split(separator: " ").map(String.init)
            let bandWords = band.split(separator: " ").map(String.init)
            #expect((upWords + bandWords).allSatisfy(text.split(separator: " ").map(String.init).contains),
                    "a word split across rows at \(tenth) tenths: \(upWords) / \(bandWords)")
            wentUp.formUnion(upWords)
        }
        #expect(wentUp.count >= 2, "\(wentUp)")
    }

    /// The carers' picture of a terminal is its grid as drawn, in pixels: letters lit in the
    /// cells where the terminal has them, in their colour, the rest black (it was a simulated
    /// frame of another layout).
    @Test func thePictureIsTheGridAsDrawn() throws {
        let (screen, output) = screen(depth: .trueColour)
        defer { withExtendedLifetime(output) {} }
        screen.showOrientation("Monday morning")
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Bins out", colour: Colour(red: 255, green: 140, blue: 0))],
                       at: t0, width: 80)
        marquee.pause(at: t0)
        try screen.show(marquee.frame(at: t0, width: 80))
        let copy = try #require(screen.copyForPicture())
        let image = copy.picture(width: 640)
        #expect(image.width == 640 && image.height == 24 * 16)
        func cellInk(row: Int, column: Int) -> (lit: Int, red: Int, blue: Int) {
            var lit = 0, red = 0, blue = 0
            for y in (row * 16)..<((row + 1) * 16) {
                for x in (column * 8)..<((column + 1) * 8) {
                    let at = (y * image.width + x) * 3
                    if image.rgb[at] > 100 || image.rgb[at + 2] > 100 { lit += 1 }
                    red = max(red, Int(image.rgb[at]))
                    blue = max(blue, Int(image.rgb[at + 2]))
                }
            }
            return (lit, red, blue)
        }
        let rows = screen.compose(marquee.frame(at: t0, width: 80))
        for row in 0..<24 {
            for column in 0..<80 {
                let text = rows[row]?[column].text ?? " "
                let ink = cellInk(row: row, column: column)
                #expect((ink.lit > 0) == (text != " " && !text.isEmpty), "row \(row) column \(column): \(text)")
            }
        }
        let bins = try #require(rows[12]?.firstIndex { $0.text == "B" })
        #expect(cellInk(row: 12, column: bins).red > 200 && cellInk(row: 12, column: bins).blue < 120, "orange, as on screen")
    }

    /// On a Linux console a still line is drawn again every 2 s, whatever wrote over it (a
    /// kernel message): its own rows in full, blanks included, every other row erased.
    @Test func linuxConsoleRepaintsAStillLine() throws {
        let (screen, output) = screen(depth: .basic8)
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Supper at six")], at: t0, width: 80)
        #expect(screen.checkInterval == 2 * second)
        screen.noticeChanges(at: t0)
        #expect(screen.mustRepaint)
        try screen.show(marquee.frame(at: t0, width: 80))
        _ = written(output)
        screen.noticeChanges(at: t0 + second)
        #expect(!screen.mustRepaint)
        let writes = screen.frameWrites
        try screen.show(marquee.frame(at: t0 + second, width: 80))
        #expect(screen.frameWrites == writes)
        screen.noticeChanges(at: t0 + 2 * second)
        #expect(screen.mustRepaint)
        try screen.show(marquee.frame(at: t0 + 2 * second, width: 80))
        let repaint = written(output)
        for row in [1, 7, 14, 24] { #expect(repaint.contains("\u{1B}[\(row);1H\u{1B}[2K")) }
        #expect(!repaint.contains("\u{1B}[13;1H\u{1B}[2K"))
        #expect(repaint.contains("\u{1B}[13;1H" + String(repeating: " ", count: 33) + "Supper at six"))
        #expect(!repaint.contains("\u{1B}[2J"))
    }

    /// Problems go on the last rows, one each, in amber; a line longer than the row ends in
    /// "…" one cell short of the corner (writing there would scroll some terminals); clearing
    /// them erases their rows.
    @Test func problemsAreOnTheLastRows() throws {
        let (screen, output) = screen()
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Supper at six")], at: t0, width: 80)
        try screen.show(marquee.frame(at: t0, width: 80))
        screen.showProblems(["marquee: /etc/marquee/feeds.d: cannot read: does not exist",
                             "marquee: " + String(repeating: "ab", count: 50)])
        #expect(screen.mustRepaint)
        let rows = screen.compose(marquee.frame(at: t0, width: 80))
        func text(_ row: Int) -> String { rows[row, default: []].map(\.text).joined() }
        #expect(text(22).hasPrefix("marquee: /etc/marquee/feeds.d: cannot read: does not exist   "))
        #expect(text(23) == "marquee: " + String(String(repeating: "ab", count: 35).prefix(69)) + "… ")
        #expect(rows[22]?.first?.sgr == ColourDepth.palette256.foreground(Colour(red: 255, green: 191, blue: 0)))
        #expect(text(12).contains("Supper at six"))
        try screen.show(marquee.frame(at: t0, width: 80))
        #expect(written(output).contains("\u{1B}[23;1H"))
        screen.showProblems(screen.problems)
        #expect(!screen.mustRepaint)
        screen.showProblems([])
        #expect(screen.mustRepaint)
        #expect(screen.compose(marquee.frame(at: t0, width: 80))[23] == nil)
        try screen.show(marquee.frame(at: t0, width: 80))
        #expect(written(output).contains("\u{1B}[24;1H\u{1B}[2K"))
    }

    /// Another terminal is drawn again only while the line moves (nothing else writes there).
    @Test func otherTerminalsRepaintOnlyWhileMoving() throws {
        let (screen, output) = screen()
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Supper at six")], at: t0, width: 80)
        try screen.show(marquee.frame(at: t0, width: 80))
        #expect(written(output).contains("Supper at six"))
        #expect(screen.checkInterval == nil)
        marquee.update(messages: [MarqueeMessage(text: String(repeating: "a long line ", count: 20))], at: t0, width: 80)
        try screen.show(marquee.frame(at: t0 + second, width: 80))
        #expect(screen.checkInterval == 10 * second)
    }

    /// One step of an ASCII line is one character deletion plus the new last cell.
    @Test func singleStepIsACharacterShift() throws {
        let (screen, output) = screen()
        let marquee = MarqueeController(metrics: TerminalMetrics(), configuration: MarqueeConfiguration(charactersPerSecond: 10), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: String(repeating: "abcdefghij ", count: 20))], at: t0, width: 80)
        try screen.draw(marquee.frame(at: t0, width: 80))
        _ = written(output)
        try screen.draw(marquee.frame(at: t0 + second / 10, width: 80))
        #expect(written(output) == "\u{1B}[13H\u{1B}[P\u{1B}[13;80Hd")
        #expect(screen.frameWrites == 2)
    }

    /// Where the terminal has DEC mode 2026, each frame is one synchronized update.
    @Test func framesAreSynchronizedWhereSupported() throws {
        let (screen, output) = screen(synchronized: true)
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Good morning!")], at: t0, width: 80)
        try screen.draw(marquee.frame(at: t0, width: 80))
        let bytes = written(output)
        #expect(bytes.hasPrefix("\u{1B}[?2026h\u{1B}[13;34H"))
        #expect(bytes.hasSuffix("Good morning!\u{1B}[?2026l"))
    }

    /// A still frame drawn again writes nothing.
    @Test func unchangedFrameWritesNothing() throws {
        let (screen, output) = screen()
        let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
        marquee.update(messages: [MarqueeMessage(text: "Good morning!")], at: t0, width: 80)
        try screen.draw(marquee.frame(at: t0, width: 80))
        _ = written(output)
        let before = screen.bytesWritten
        try screen.draw(marquee.frame(at: t0 + 30 * second, width: 80))
        #expect(screen.bytesWritten == before)
    }

    /// A wide glyph at the left edge cannot be shifted by one cell: the row is rewritten.
    @Test func wideGlyphAtTheEdgeRewritesTheRow() {
        let (screen, _) = screen()
        typealias Cell = TerminalScreen.Cell
        let wide = [Cell(text: "漢", sgr: "", isContinuation: false), Cell(text: "", sgr: "", isContinuation: true)]
        let rest = (0..<78).map { Cell(text: String($0 % 10), sgr: "", isContinuation: false) }
        let old = wide + rest
        let new = Array(old.dropFirst()) + [Cell.blank]
        #expect(screen.singleShift(from: old, to: new) == nil)
        let plain = rest + [Cell.blank, Cell.blank]
        #expect(screen.singleShift(from: plain, to: Array(plain.dropFirst(2)) + [Cell.blank, Cell.blank]) == 2)
    }

    /// A cluster takes the cells of its code points, as terminals place them; clusters that
    /// terminals draw at different widths are written in a form all draw alike.
    @Test(arguments: [
        ("a", "a", 1), ("é", "é", 1), ("e\u{301}", "e\u{301}", 1), ("漢", "漢", 2), ("🎂", "🎂", 2),
        ("स्ते", "स्ते", 2), ("ना", "ना", 2), ("👨‍👩‍👧", "👨👩👧", 6), ("❤️", "❤", 1), ("👍🏽", "👍", 2),
        ("1️⃣", "1", 1), ("🇩🇪", "🇩🇪", 2), ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🏴", 2), ("0\u{200D}", "0", 1), ("\u{1FAE8}", "", 0),
        ("\u{7}", "\u{7}", 0), ("\u{200B}", "", 0),
    ] as [(String, String, Int)])
    func cellWidths(text: String, written: String, cells: Int) {
        #expect(text.map(TerminalMetrics.terminalText).joined() == written)
        #expect(text.reduce(0) { $0 + TerminalMetrics().advance(of: $1) } == cells)
    }

    /// At night colours darken towards 7:1 on black, never below it, their hue kept; by day
    /// (shade 0) they are as they were.
    @Test func nightColoursStayReadable() {
        let colours = [Colour.plainText, Colour(red: 255, green: 215, blue: 0), Colour(red: 255, green: 105, blue: 180),
                       Colour(red: 0, green: 0, blue: 128).readable(), Colour(red: 200, green: 205, blue: 215)]
        for colour in colours.map({ $0.readable() }) {
            #expect(colour.dimmed(0) == colour)
            let night = colour.dimmed(1)
            #expect(night.contrastOnBlack >= 7 && night.contrastOnBlack <= 7.5, "\(colour) → \(night)")
            let steps = (0...16).map { colour.dimmed(Double($0) / 16).luminance }
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 >= $1 })
            // The hue stays: the channels keep their order.
            #expect((colour.red >= colour.green) == (night.red >= night.green) && (colour.green >= colour.blue) == (night.green >= night.blue))
        }
    }

    /// On the Linux console a cluster is what the console's font has, one cell each: accents
    /// it cannot join are dropped, scripts and emoji it has no glyphs for are left out (it drew
    /// them as nothing, in fewer cells than counted), punctuation gets plain stand-ins.
    @Test func theConsoleShowsWhatItsFontHas() {
        let latin = Set((0x20...0x7E).map(UInt32.init) + (0xA0...0xFF).map(UInt32.init))
        let metrics = TerminalMetrics(consoleFont: latin)
        let text = "Cafe\u{301} • नमस्ते 👍🏽 … ok"
        let laid = metrics.layout(text)
        #expect(laid.map { metrics.terminalText(of: $0.character) }.joined() == "Cafe ·   ... ok")
        #expect(laid.allSatisfy { $0.advance == metrics.terminalText(of: $0.character).count })
        #expect(TerminalMetrics().layout(text).count > laid.count)
        // A font without "·" either (the kernel's own) gets "-" for "•" and for "·".
        let ascii = TerminalMetrics(consoleFont: Set((0x20...0x7E).map(UInt32.init)))
        #expect(ascii.layout("a • b · c").map { ascii.terminalText(of: $0.character) }.joined() == "a - b - c")
    }

    /// At night a terminal's colours are dimmed; the Linux console, with 8 colours it cannot
    /// dim, draws half bright (SGR 2) instead.
    @Test func terminalsAreCalmerAtNight() throws {
        for (depth, night) in [(ColourDepth.basic8, "\u{1B}[0;2"), (.trueColour, "\u{1B}[0;38;2;")] {
            let (screen, output) = screen(depth: depth)
            let marquee = MarqueeController(metrics: TerminalMetrics(), origin: t0)
            marquee.update(messages: [MarqueeMessage(text: "Good night")], at: t0, width: 80)
            try screen.show(marquee.frame(at: t0, width: 80))
            #expect(!written(output).contains(night) || depth == .trueColour)
            screen.setShade(1)
            #expect(screen.mustRepaint)
            try screen.show(marquee.frame(at: t0, width: 80))
            #expect(written(output).contains(night), "\(depth)")
        }
    }

    /// Colours stay readable on black (7:1); the Linux console gets its 8 hues.
    @Test func coloursAreReadable() {
        let navy = Colour(red: 0, green: 0, blue: 128)
        #expect(navy.contrastOnBlack < 7)
        #expect(navy.readable().contrastOnBlack >= 7)
        #expect(Colour(red: 255, green: 215, blue: 0).readable() == Colour(red: 255, green: 215, blue: 0))
        #expect(ColourDepth.basic8.foreground(Colour(red: 255, green: 105, blue: 180)) == "1;35")
        #expect(ColourDepth.trueColour.foreground(Colour(red: 1, green: 2, blue: 3)) == "38;2;1;2;3")
        #expect(ColourDepth.palette256.foreground(Colour(red: 255, green: 0, blue: 0)) == "38;5;196")
    }

    /// In the 256-colour palette every colour made readable keeps 7:1: the nearest entry
    /// that reads as well, not the nearest level per channel (navy came out at 6.5:1, black
    /// at 5.9:1).
    @Test(arguments: [
        Colour(red: 0, green: 0, blue: 128), Colour(red: 0, green: 0, blue: 0), Colour(red: 128, green: 0, blue: 0),
        Colour(red: 0, green: 100, blue: 0), Colour(red: 75, green: 0, blue: 130), Colour(red: 255, green: 105, blue: 180),
        Colour(red: 255, green: 240, blue: 220), Colour(red: 70, green: 130, blue: 180),
    ])
    func paletteEntriesKeepTheContrast(colour: Colour) throws {
        let readable = colour.readable()
        let entry = ColourDepth.paletteEntry(nearest: readable)
        let shown = ColourDepth.paletteColour(of: entry)
        #expect(shown.contrastOnBlack >= 7, "\(readable) shown as entry \(entry), \(shown)")
        // Still near the colour asked for: no channel more than two cube levels away.
        #expect(abs(Int(shown.red) - Int(readable.red)) <= 80 && abs(Int(shown.green) - Int(readable.green)) <= 80
            && abs(Int(shown.blue) - Int(readable.blue)) <= 80, "\(readable) shown as \(shown)")
    }

    /// The announcement is wrapped at word boundaries before the first letter shows.
    @Test func announcementWrapIsFixed() {
        let glyphs = Array("Leave for the physiotherapist now please").enumerated().map {
            LaidGlyph(character: $1, offset: $0, advance: 1)
        }
        let lines = wrapWords(glyphs, width: 20).map { String($0.map(\.character)) }
        #expect(lines == ["Leave for the", "physiotherapist now", "please"])
    }

    /// A long announcement is cut into pages of whole lines; each page wrapped again on its
    /// own (as the screen shows it) gives the same lines, and the pages hold every glyph but
    /// the spaces where they break, in order.
    @Test func pagesAreWholeLines() {
        let text = "Please remember that the physiotherapist moved your appointment to Thursday at eleven, "
            + "take the blue folder with the letters and your walking stick, and call Anna when you are back home"
        let glyphs = Array(text).enumerated().map { LaidGlyph(character: $1, offset: $0, advance: 1) }
        for width in [12, 20, 33, 62] {
            let lines = wrapRanges(glyphs, width: width)
            #expect(lines.map { String(glyphs[$0].map(\.character)) } == wrapWords(glyphs, width: width).map { String($0.map(\.character)) })
            let pages = pageRanges(glyphs, width: width, linesPerPage: 2)
            #expect(pages.count == (lines.count + 1) / 2)
            for (index, page) in pages.enumerated() {
                let alone = wrapWords(Array(glyphs[page]), width: width).map { String($0.map(\.character)) }
                let expected = lines[(2 * index)..<min(2 * index + 2, lines.count)].map { String(glyphs[$0].map(\.character)) }
                #expect(alone == expected, "width \(width), page \(index)")
            }
            let kept = pages.map { String(glyphs[$0].map(\.character)) }.joined(separator: " ")
            // Every glyph but the spaces at breaks, in order; words whole where a line holds them
            // ("physiotherapist" is broken at 12 cells).
            #expect(kept.filter { $0 != " " } == text.filter { $0 != " " })
            if width >= 15 { #expect(kept.split(separator: " ") == text.split(separator: " ")) }
        }
    }

    /// A page that another follows ends after a whole word where one fits — not after the
    /// hyphen inside a name — and keeps room on its last line for the ▶; the last page, which
    /// has no ▶, fills the whole line.
    @Test func aFollowedPageEndsAfterAWholeWordWithRoomForItsArrow() {
        func pages(_ text: String, width: Int, endRoom: Int = 0) -> [String] {
            let glyphs = Array(text).enumerated().map { LaidGlyph(character: $1, offset: $0, advance: 1) }
            return pageRanges(glyphs, width: width, linesPerPage: 1, breaking: UnicodeLineBreaking(), endRoom: endRoom)
                .map { String(glyphs[$0].map(\.character)) }
        }
        #expect(pages("Frau Müller-Lüdenscheidt kommt", width: 14) == ["Frau", "Müller-", "Lüdenscheidt", "kommt"])
        #expect(pages("Take your evening pills", width: 20, endRoom: 3) == ["Take your evening", "pills"])
        #expect(pages("Take your evening pills", width: 20, endRoom: 4) == ["Take your", "evening pills"])
        #expect(pages("aaaa bbbbbbbb", width: 9, endRoom: 3) == ["aaaa", "bbbbbbbb"])
        #expect(pages("Donaudampfschifffahrt", width: 8, endRoom: 2) == ["Donaud", "ampfsc", "hifffa", "hrt"])
    }

    /// Text written without spaces wraps as Unicode's line breaking says: Chinese between
    /// ideographs (never before its closing punctuation), Thai between the words of ICU's
    /// dictionary, and a word longer than a line (a German compound) anywhere. Every line fits.
    @Test(arguments: [
        ("今天下午三点请记得去医院看医生，然后去超市买牛奶和面包。", 8),
        ("วันนี้ตอนบ่ายสามโมงอย่าลืมไปหาหมอแล้วไปซื้อนม", 12),
        ("Donaudampfschifffahrtsgesellschaftskapitänsmütze", 16),
    ])
    func textWithoutSpacesWrapsAsUnicodeSays(text: String, width: Int) {
        let glyphs = Array(text).enumerated().map { LaidGlyph(character: $1, offset: $0, advance: 1) }
        let breaking = UnicodeLineBreaking()
        let lines = wrapRanges(glyphs, width: width, breaking: breaking)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        #expect(lines.map { String(glyphs[$0].map(\.character)) }.joined() == text)
        let opportunities = breaking.opportunities(glyphs)
        if text.unicodeScalars.first!.properties.isAlphabetic, text.first!.isASCII {
            #expect(opportunities.dropFirst().allSatisfy { !$0 })
        } else {
            // Each line begins where a line may begin.
            #expect(lines.dropFirst().allSatisfy { opportunities[$0.lowerBound] }, "\(lines)")
            #expect(!lines.contains { glyphs[$0.lowerBound].character == "，" || glyphs[$0.lowerBound].character == "。" })
        }
        // "วัน" (day) is one word: no break inside it.
        if text.hasPrefix("วัน") { #expect(!opportunities[1]) }
    }

    /// The terminal's box holds two lines of at most 62 cells; a narrow terminal shows no box.
    @Test func theTerminalBoxPagesTwoLinesAtATime() {
        let text = String(repeating: "word ", count: 40)
        let glyphs = Array(text).enumerated().map { LaidGlyph(character: $1, offset: $0, advance: 1) }
        #expect(LineBox(width: 62, lines: 2).pages(of: glyphs).map(\.count) == [2 * 59 + 1, 80])
    }

    @Test func terminalReplies() {
        #expect(containsDA1Reply(Array("\u{1B}[?2026;2$y\u{1B}[?62;22c".utf8)))
        #expect(!containsDA1Reply(Array("\u{1B}[?2026;2$y".utf8)))
    }
}
