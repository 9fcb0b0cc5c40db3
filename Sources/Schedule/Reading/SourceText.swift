#if canImport(Glibc)
    import Glibc
#endif

/// The raw bytes of a feed file and what one quick pass over its lines tells: where each
/// VEVENT begins (libical keeps no line numbers, so problems are located through this),
/// whether every BEGIN has its END, and where the first invalid UTF-8 is. A class: it is
/// handed to the work on every event, and a copy of its arrays would be retained each time.
final class SourceText {
    let bytes: [UInt8]
    private(set) var lineStarts: [Int] = []
    /// Line numbers of the `BEGIN:VEVENT` lines, in file order (libical keeps that order).
    private(set) var eventLines: [Int] = []
    /// Line numbers of the `BEGIN:VTIMEZONE` lines, in file order.
    private(set) var timeZoneLines: [Int] = []
    private(set) var structureProblems: [(line: Int, message: String)] = []
    private(set) var firstInvalidUTF8Line: Int?
    private(set) var calendarCount = 0
    /// Lines longer than this are folded before libical sees them: its line reader is
    /// quadratic in the physical line length (a single 10 MB line takes 9 s, folded 0.08 s).
    static let longLine = 4096
    private(set) var longLines: [Int] = []
    /// Components still open at the end of the file (it was cut off), outermost first.
    private(set) var unclosed: [(name: String, line: Int)] = []
    /// Deeper nesting than this is refused before libical sees it: its parser and its
    /// free recurse once per level, and 200,000 levels overflow the stack.
    static let maximumDepth = 64
    /// The first `BEGIN:` line deeper than `maximumDepth`.
    private(set) var tooDeepLine: Int?
    /// Lines holding a NUL byte, which would end libical's text early; it reads a space there.
    private(set) var nulLines: [Int] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
        scanLines()
        firstInvalidUTF8Line = firstInvalidUTF8()
    }

    /// Checked a run of lines at a time (a line break never splits a character): a copy of a
    /// whole big file as a String only to check it cost more than a tenth of libical's parse.
    private func firstInvalidUTF8() -> Int? {
        var first = 1
        while first <= lineStarts.count {
            var last = first
            while last < lineStarts.count, lineStarts[last] - lineStarts[first - 1] < 1 << 16 { last += 1 }
            let end = last < lineStarts.count ? lineStarts[last] : bytes.count
            if String(validating: bytes[lineStarts[first - 1]..<end], as: UTF8.self) == nil,
                let line = (first...last).first(where: { !isValidUnfolded($0) })
            {
                return line
            }
            first = last + 1
        }
        return nil
    }

    /// Whether the content line that physical line `line` belongs to is UTF-8 once unfolded:
    /// Google folds at 75 octets even inside a character, which libical joins again.
    private func isValidUnfolded(_ line: Int) -> Bool {
        guard String(validating: bytes[lineRange(line)], as: UTF8.self) == nil else { return true }
        func isContinuation(_ line: Int) -> Bool {
            let range = lineRange(line)
            return !range.isEmpty && (bytes[range.lowerBound] == 0x20 || bytes[range.lowerBound] == 0x09)
        }
        var first = line
        while first > 1, isContinuation(first) { first -= 1 }
        var last = line
        while last < lineStarts.count, isContinuation(last + 1) { last += 1 }
        var unfolded: [UInt8] = []
        for part in first...last {
            var range = lineRange(part)
            if part > first { range = range.dropFirst() }
            if range.last.map({ bytes[$0] == 0x0D }) == true { range = range.dropLast() }
            unfolded += bytes[range]
        }
        return String(validating: unfolded, as: UTF8.self) != nil
    }

    /// The text for libical, NUL-terminated, with over-long physical lines folded
    /// (RFC 5545 §3.1: unfolding gives back exactly the same bytes).
    /// A truncated file loses its incomplete component and has its calendar closed, so the
    /// complete events before the cut can still be read.
    func parserInput() -> [UInt8] {
        var text = foldedBytes()
        if !nulLines.isEmpty {
            for index in text.indices where text[index] == 0 { text[index] = 0x20 }
        }
        if let calendar = unclosed.first {
            if unclosed.count > 1 {
                text.removeSubrange(foldedOffset(ofLine: unclosed[1].line)...)
            }
            if text.last != 0x0A { text.append(contentsOf: [0x0D, 0x0A]) }
            text.append(contentsOf: Array("END:\(calendar.name)\r\n".utf8))
        }
        text.append(0)
        return text
    }

    /// Where a line starts in `foldedBytes()`.
    private func foldedOffset(ofLine line: Int) -> Int {
        let start = lineStarts[line - 1]
        let longBefore = longLines.filter { $0 < line }.map { (lineRange($0).count - 1) / Self.longLine * 3 }
        return start + longBefore.reduce(0, +)
    }

    private func foldedBytes() -> [UInt8] {
        guard !longLines.isEmpty else { return bytes }
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count + bytes.count / Self.longLine * 3 + 1)
        var previous = 0
        for line in longLines {
            let range = lineRange(line)
            text.append(contentsOf: bytes[previous..<range.lowerBound])
            var index = range.lowerBound
            while index < range.upperBound {
                let end = min(index + Self.longLine, range.upperBound)
                if index > range.lowerBound { text.append(contentsOf: [0x0D, 0x0A, 0x20]) }
                text.append(contentsOf: bytes[index..<end])
                index = end
            }
            previous = range.upperBound
        }
        text.append(contentsOf: bytes[previous...])
        return text
    }

    /// The bytes of a line (1-based), without its line break.
    func lineRange(_ line: Int) -> Range<Int> {
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] : bytes.count
        while end > start, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        return start..<end
    }

    /// A line's text (1-based).
    func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        return String(decoding: bytes[lineRange(line)], as: UTF8.self)
    }

    /// The first line at or after `startLine`, within its component, that holds the named
    /// property (`RRULE:…` or `RRULE;…`).
    func line(ofProperty name: String, from startLine: Int) -> Int? {
        let wanted = Array(name.uppercased().utf8)
        guard startLine >= 1, startLine <= lineStarts.count else { return nil }
        for line in startLine...lineStarts.count {
            let range = lineRange(line)
            if line > startLine, startsWith(range, Self.end) { return nil }
            guard range.count > wanted.count else { continue }
            let next = bytes[range.lowerBound + wanted.count]
            if next == UInt8(ascii: ":") || next == UInt8(ascii: ";"), startsWith(range, wanted) { return line }
        }
        return nil
    }

    /// The lines where the components named `name` (upper case) directly inside the one that
    /// begins at `startLine` begin (a VEVENT's VALARMs), in order.
    func childComponentLines(of startLine: Int, named name: String) -> [Int] {
        let wanted = Array(name.utf8)
        guard startLine >= 1, startLine < lineStarts.count else { return [] }
        var found: [Int] = []
        var depth = 0
        for line in startLine + 1...lineStarts.count {
            let range = lineRange(line)
            if let begun = componentName(range, keyword: Self.begin) {
                if depth == 0, isName(begun, wanted) { found.append(line) }
                depth += 1
            } else if componentName(range, keyword: Self.end) != nil {
                if depth == 0 { break }
                depth -= 1
            }
        }
        return found
    }

    private func scanLines() {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // Where component names are on their lines: compared as bytes, made text only for problems.
        var open: [(name: Range<Int>, line: Int)] = []
        lineStarts.reserveCapacity(bytes.count / 40)
        let hasNul = bytes.withUnsafeBytes { buffer in buffer.baseAddress.map { memchr($0, 0, buffer.count) != nil } ?? false }
        let count = bytes.count
        while start < count {
            lineStarts.append(start)
            let lineNumber = lineStarts.count
            let end = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress, let found = memchr(base + start, 0x0A, count - start) else { return count }
                return UnsafeRawPointer(found) - base
            }
            let range = start..<end
            start = end + 1
            if range.count > Self.longLine { longLines.append(lineNumber) }
            if hasNul, bytes[range].contains(0) { nulLines.append(lineNumber) }
            if let name = componentName(range, keyword: Self.begin) {
                if open.count == Self.maximumDepth, tooDeepLine == nil { tooDeepLine = lineNumber }
                open.append((name, lineNumber))
                if isName(name, Self.event) { eventLines.append(lineNumber) }
                if isName(name, Self.timeZone) { timeZoneLines.append(lineNumber) }
                if isName(name, Self.calendar) { calendarCount += 1 }
            } else if let name = componentName(range, keyword: Self.end) {
                if let top = open.last, sameName(top.name, name) {
                    open.removeLast()
                } else if let top = open.last {
                    structureProblems.append(
                        (lineNumber, "END:\(text(name)) does not close BEGIN:\(text(top.name)) of line \(top.line)"))
                    if let match = open.lastIndex(where: { sameName($0.name, name) }) { open.removeSubrange(match...) }
                } else {
                    structureProblems.append((lineNumber, "END:\(text(name)) without a BEGIN:\(text(name))"))
                }
            }
        }
        unclosed = open.map { (text($0.name), $0.line) }
        for unclosed in unclosed.reversed() {
            structureProblems.append(
                (unclosed.line,
                 "the file is truncated: BEGIN:\(unclosed.name) is never closed (the file ends at line \(lineStarts.count))"
                ))
        }
    }

    private static let begin = Array("BEGIN:".utf8)
    private static let end = Array("END:".utf8)
    private static let event = Array("VEVENT".utf8)
    private static let timeZone = Array("VTIMEZONE".utf8)
    private static let calendar = Array("VCALENDAR".utf8)

    /// Where the component name is on a `BEGIN:`/`END:` line (trailing CR and spaces left
    /// out), if the line is one.
    private func componentName(_ range: Range<Int>, keyword: [UInt8]) -> Range<Int>? {
        guard startsWith(range, keyword) else { return nil }
        var end = range.upperBound
        while end > range.lowerBound, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x20 { end -= 1 }
        let nameStart = range.lowerBound + keyword.count
        guard end > nameStart, end - nameStart < 64 else { return nil }
        return nameStart..<end
    }

    /// A component name as text, in upper case.
    private func text(_ name: Range<Int>) -> String {
        String(decoding: bytes[name].map(uppercased), as: UTF8.self)
    }

    /// Whether the name at `name` is `wanted` (upper case), in any case.
    private func isName(_ name: Range<Int>, _ wanted: [UInt8]) -> Bool {
        name.count == wanted.count && startsWith(name, wanted)
    }

    private func sameName(_ one: Range<Int>, _ other: Range<Int>) -> Bool {
        one.count == other.count && zip(bytes[one], bytes[other]).allSatisfy { uppercased($0) == uppercased($1) }
    }

    /// Whether the line in `range` starts with `keyword` (upper case), in any case.
    private func startsWith(_ range: Range<Int>, _ keyword: [UInt8]) -> Bool {
        guard range.count >= keyword.count else { return false }
        for (offset, byte) in keyword.enumerated() where uppercased(bytes[range.lowerBound + offset]) != byte {
            return false
        }
        return true
    }

    private func uppercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x61 && byte <= 0x7A) ? byte - 0x20 : byte
    }
}

extension SourceText {
    /// The text of a file as libical reads it, UTF-8 with line feeds, from what calendar files
    /// are found in: UTF-16 (with or without a byte-order mark; Outlook's "Unicode"), lines
    /// ended by CR alone (old Macs), or Windows-1252 / Latin-1 (a file with no UTF-8 character
    /// in it but bytes that are not UTF-8: "Fr\xFChst\xFCck"). Each is said, so the carer can
    /// save it as UTF-8; nil when the file is read as it is.
    static func readable(_ bytes: [UInt8]) -> (bytes: [UInt8], note: String)? {
        if let (text, name) = fromUTF16(bytes) {
            return (Array(text.utf8), "the file is \(name), not UTF-8; read as such (save it as UTF-8 to be sure)")
        }
        if !bytes.contains(0x0A), bytes.contains(0x0D) {
            return (bytes.flatMap { $0 == 0x0D ? [0x0D, 0x0A] : [$0] }, "lines end with CR alone (an old Mac's); read as lines")
        }
        return nil
    }

    /// `bytes` as Windows-1252 (Latin-1 with the printer's characters at 0x80–0x9F) when they
    /// are not UTF-8 and hold no UTF-8 character at all; nil otherwise (a UTF-8 file with a bad
    /// byte keeps its characters, the bad byte shown as U+FFFD).
    static func fromWindows1252(_ bytes: [UInt8]) -> [UInt8]? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded) where encoded.count > 1: return nil
            case .valid, .error: continue
            case .emptyInput: break loop
            }
        }
        var text = ""
        text.unicodeScalars.reserveCapacity(bytes.count)
        for byte in bytes {
            let value = (0x80...0x9F).contains(byte) ? windows1252[Int(byte) - 0x80] : UInt32(byte)
            text.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return Array(text.utf8)
    }

    /// Windows-1252's characters at 0x80–0x9F (the five it leaves undefined as U+FFFD).
    private static let windows1252: [UInt32] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
        0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    /// The text of a UTF-16 file (by its byte-order mark, or by the zero bytes beside the
    /// first ASCII letters) and the encoding's name; nil for any other file.
    private static func fromUTF16(_ bytes: [UInt8]) -> (String, String)? {
        guard bytes.count >= 2 else { return nil }
        let bigEndian: Bool
        var body = bytes[...]
        if bytes.starts(with: [0xFF, 0xFE]) {
            bigEndian = false
            body = bytes.dropFirst(2)
        } else if bytes.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
            body = bytes.dropFirst(2)
        } else if bytes[0] != 0, bytes[1] == 0 {
            bigEndian = false
        } else if bytes[0] == 0, bytes[1] != 0 {
            bigEndian = true
        } else {
            return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(body.count / 2)
        var index = body.startIndex
        while index + 1 < body.endIndex {
            let (high, low) = bigEndian ? (body[index], body[index + 1]) : (body[index + 1], body[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        return (String(decoding: units, as: UTF16.self), bigEndian ? "UTF-16 (big-endian)" : "UTF-16")
    }
}
