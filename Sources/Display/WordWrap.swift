import Marquee

/// Greedy word wrap of laid glyphs into lines no wider than `width`.
func wrapWords(_ glyphs: [LaidGlyph], width: Int) -> [[LaidGlyph]] {
    var lines: [[LaidGlyph]] = [[]]
    var lineWidth = 0
    var word: [LaidGlyph] = []
    var wordWidth = 0
    func flushWord() {
        if lineWidth + wordWidth > width, !lines[lines.count - 1].isEmpty {
            while lines[lines.count - 1].last?.character == " " { lines[lines.count - 1].removeLast() }
            lines.append([])
            lineWidth = 0
            word = Array(word.drop { $0.character == " " })
            wordWidth = word.reduce(0) { $0 + $1.advance }
        }
        lines[lines.count - 1] += word
        lineWidth += wordWidth
        word = []
        wordWidth = 0
    }
    for glyph in glyphs {
        if glyph.character == " " { flushWord() }
        word.append(glyph)
        wordWidth += glyph.advance
    }
    flushWord()
    return lines
}
