extension [LaidGlyph] {
    /// Whether the text is read right to left: its paragraph's direction (the lowest level).
    public var readsRightToLeft: Bool { (self.lazy.map(\.level).min() ?? 0) % 2 == 1 }
}

/// Greedy word wrap of laid glyphs (the announcement box, and the band while it stands still) (in the order they are seen) into lines no wider than
/// `width` (a word wider than a line gets a line of its own), first line first: text read right
/// to left fills its lines from the right end, where it begins.
public func wrapWords(_ glyphs: [LaidGlyph], width: Int) -> [[LaidGlyph]] {
    wrapRanges(glyphs, width: width).map { Array(glyphs[$0]) }
}

/// The lines of `wrapWords` as ranges of `glyphs`: spaces where a line breaks belong to no line.
public func wrapRanges(_ glyphs: [LaidGlyph], width: Int) -> [Range<Int>] {
    guard glyphs.readsRightToLeft else { return wrapFromTheLeft(glyphs, width: width) }
    let count = glyphs.count
    return wrapFromTheLeft(Array(glyphs.reversed()), width: width).map { (count - $0.upperBound)..<(count - $0.lowerBound) }
}

private func wrapFromTheLeft(_ glyphs: [LaidGlyph], width: Int) -> [Range<Int>] {
    var lines: [Range<Int>] = []
    var line = 0..<0
    var lineWidth = 0
    var wordStart = 0
    var wordWidth = 0
    func flushWord(upTo end: Int) {
        if lineWidth + wordWidth > width, !line.isEmpty {
            var lineEnd = line.upperBound
            while lineEnd > line.lowerBound, glyphs[lineEnd - 1].character == " " { lineEnd -= 1 }
            lines.append(line.lowerBound..<lineEnd)
            while wordStart < end, glyphs[wordStart].character == " " {
                wordWidth -= glyphs[wordStart].advance
                wordStart += 1
            }
            line = wordStart..<wordStart
            lineWidth = 0
        }
        line = line.lowerBound..<end
        lineWidth += wordWidth
        wordStart = end
        wordWidth = 0
    }
    for (index, glyph) in glyphs.enumerated() {
        if glyph.character == " " { flushWord(upTo: index) }
        wordWidth += glyph.advance
    }
    flushWord(upTo: glyphs.count)
    lines.append(line)
    return lines
}

/// The pages of a box `linesPerPage` lines high holding `glyphs` wrapped at `width`.
public func pageRanges(_ glyphs: [LaidGlyph], width: Int, linesPerPage: Int) -> [Range<Int>] {
    let lines = wrapRanges(glyphs, width: width)
    let perPage = max(1, linesPerPage)
    return stride(from: 0, to: lines.count, by: perPage).map { first in
        let page = lines[first..<min(first + perPage, lines.count)]
        return page.map(\.lowerBound).min()!..<page.map(\.upperBound).max()!
    }
}
