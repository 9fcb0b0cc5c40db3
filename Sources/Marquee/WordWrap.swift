extension [LaidGlyph] {
    /// Whether the text is read right to left: its paragraph's direction (the lowest level).
    package var readsRightToLeft: Bool { (self.lazy.map(\.level).min() ?? 0) % 2 == 1 }
}

/// Where a line of text may break: for each glyph (in reading order), whether a line may begin
/// with it. The screens give Unicode's line breaking (UAX #14, through ICU); `SpaceBreaking`
/// stands in where none is given.
package protocol LineBreaking: Sendable {
    func opportunities(_ glyphs: [LaidGlyph]) -> [Bool]
}

/// After spaces, and around ideographs, kana and Hangul (which are written without spaces),
/// but never before the CJK punctuation that closes a phrase.
package struct SpaceBreaking: LineBreaking {
    package init() {}

    package func opportunities(_ glyphs: [LaidGlyph]) -> [Bool] {
        glyphs.indices.map { index in
            guard index > 0 else { return false }
            let before = glyphs[index - 1].character, here = glyphs[index].character
            if here == " " { return false }
            if before == " " { return true }
            if Self.isClosing(here) { return false }
            return Self.isWrittenWithoutSpaces(before) || Self.isWrittenWithoutSpaces(here)
        }
    }

    private static func isWrittenWithoutSpaces(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first?.value else { return false }
        return (0x3040...0x30FF).contains(scalar) || (0x3400...0x9FFF).contains(scalar) || (0xAC00...0xD7AF).contains(scalar)
            || (0xF900...0xFAFF).contains(scalar) || (0x20000...0x3FFFF).contains(scalar)
    }

    private static func isClosing(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first?.value else { return false }
        return (0x3000...0x303F).contains(scalar) || (0xFF00...0xFF0F).contains(scalar) || "、。，．！？）」』".contains(character)
    }
}

/// Greedy line wrap of laid glyphs (the announcement box, and the band while it stands still),
/// in the order they are seen, into lines no wider than `width`, breaking where `breaking`
/// allows (a word wider than a line is broken anywhere), first line first: text read right to
/// left fills its lines from the right end, where it begins.
package func wrapWords(_ glyphs: [LaidGlyph], width: Int, breaking: any LineBreaking = SpaceBreaking()) -> [[LaidGlyph]] {
    wrapRanges(glyphs, width: width, breaking: breaking).map { Array(glyphs[$0]) }
}

/// The lines of `wrapWords` as ranges of `glyphs`: spaces where a line breaks belong to no line.
package func wrapRanges(_ glyphs: [LaidGlyph], width: Int, breaking: any LineBreaking = SpaceBreaking()) -> [Range<Int>] {
    guard glyphs.readsRightToLeft else { return wrapFromTheLeft(glyphs, width: width, breaking: breaking) }
    let count = glyphs.count
    return wrapFromTheLeft(Array(glyphs.reversed()), width: width, breaking: breaking)
        .map { (count - $0.upperBound)..<(count - $0.lowerBound) }
}

private func wrapFromTheLeft(_ glyphs: [LaidGlyph], width: Int, breaking: any LineBreaking) -> [Range<Int>] {
    let opportunities = breaking.opportunities(glyphs)
    var lines: [Range<Int>] = []
    var lineStart = 0
    var lineEnd = 0
    var lineWidth = 0
    func isSpace(_ index: Int) -> Bool { glyphs[index].character == " " }
    func closeLine() {
        var end = lineEnd
        while end > lineStart, isSpace(end - 1) { end -= 1 }
        lines.append(lineStart..<end)
    }
    /// Adds the piece between two break opportunities (a word and the spaces after it).
    func add(_ piece: Range<Int>) {
        var start = piece.lowerBound
        var visibleEnd = piece.upperBound
        while visibleEnd > start, isSpace(visibleEnd - 1) { visibleEnd -= 1 }
        var visible = glyphs[start..<visibleEnd].reduce(0) { $0 + $1.advance }
        if lineEnd > lineStart, lineWidth + visible > width {
            closeLine()
            while start < visibleEnd, isSpace(start) { start += 1 }
            (lineStart, lineEnd, lineWidth) = (start, start, 0)
            visible = glyphs[start..<visibleEnd].reduce(0) { $0 + $1.advance }
        }
        // Wider than a whole line: broken anywhere, as much on each line as fits.
        while lineEnd == lineStart, visible > width, visibleEnd - start > 1 {
            var end = start + 1
            var taken = glyphs[start].advance
            while end < visibleEnd, taken + glyphs[end].advance <= width {
                taken += glyphs[end].advance
                end += 1
            }
            lineEnd = end
            closeLine()
            visible -= taken
            (start, lineStart, lineEnd, lineWidth) = (end, end, end, 0)
        }
        lineEnd = piece.upperBound
        lineWidth += glyphs[start..<piece.upperBound].reduce(0) { $0 + $1.advance }
    }
    var pieceStart = 0
    for index in glyphs.indices where index > 0 && opportunities[index] {
        add(pieceStart..<index)
        pieceStart = index
    }
    add(pieceStart..<glyphs.count)
    lines.append(lineStart..<lineEnd)
    return lines
}

/// The pages of a box `linesPerPage` lines high holding `glyphs` wrapped at `width`. A page that
/// another follows ends after a whole word where one fits (not after the hyphen inside
/// "Müller-Lüdenscheidt"), with `endRoom` left on its last line for the ▶ that says more follows.
package func pageRanges(
    _ glyphs: [LaidGlyph], width: Int, linesPerPage: Int, breaking: any LineBreaking = SpaceBreaking(), endRoom: Int = 0
) -> [Range<Int>] {
    guard glyphs.readsRightToLeft else {
        return pagesFromTheLeft(glyphs, width: width, linesPerPage: linesPerPage, breaking: breaking, endRoom: endRoom)
    }
    let count = glyphs.count
    return pagesFromTheLeft(Array(glyphs.reversed()), width: width, linesPerPage: linesPerPage, breaking: breaking,
                            endRoom: endRoom)
        .map { (count - $0.upperBound)..<(count - $0.lowerBound) }
}

private func pagesFromTheLeft(
    _ glyphs: [LaidGlyph], width: Int, linesPerPage: Int, breaking: any LineBreaking, endRoom: Int
) -> [Range<Int>] {
    let perPage = max(1, linesPerPage)
    let opportunities = breaking.opportunities(glyphs)
    var pages: [Range<Int>] = []
    var offset = 0
    while true {
        let lines = wrapFromTheLeft(Array(glyphs[offset...]), width: width, breaking: breaking)
            .map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
        guard lines.count > perPage else {
            pages.append(lines.map(\.lowerBound).min()!..<lines.map(\.upperBound).max()!)
            return pages
        }
        let end = followedPageEnd(glyphs, lastLine: lines[perPage - 1], width: width - endRoom, opportunities: opportunities)
        pages.append(lines[0].lowerBound..<end)
        offset = end
        while offset < glyphs.count, glyphs[offset].character == " " { offset += 1 }
        if offset == glyphs.count { return pages }
    }
}

/// Where the last line of a page that another follows ends: at the latest break within `width`
/// after a whole word, else at the latest break within it, else as many glyphs as fit.
private func followedPageEnd(_ glyphs: [LaidGlyph], lastLine line: Range<Int>, width: Int, opportunities: [Bool]) -> Int {
    guard !line.isEmpty else { return line.upperBound }
    func visibleEnd(_ end: Int) -> Int {
        var end = end
        while end > line.lowerBound, glyphs[end - 1].character == " " { end -= 1 }
        return end
    }
    func fits(_ end: Int) -> Bool { glyphs[line.lowerBound..<end].reduce(0) { $0 + $1.advance } <= width }
    func endsAWord(_ end: Int) -> Bool {
        end == glyphs.count || glyphs[end].character == " " || !"-‐/\u{AD}".contains(glyphs[end - 1].character)
    }
    let breaks = (line.lowerBound + 1...line.upperBound).reversed()
        .filter { $0 == line.upperBound || opportunities[$0] }
        .map(visibleEnd)
        .filter { $0 > line.lowerBound && fits($0) }
    if let end = breaks.first(where: endsAWord) ?? breaks.first { return end }
    var end = line.lowerBound + 1
    while end < line.upperBound, fits(end + 1) { end += 1 }
    return end
}
