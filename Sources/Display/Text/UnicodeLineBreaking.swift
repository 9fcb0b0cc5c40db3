import CICU
import Marquee

/// Unicode's line breaking (UAX #14) through ICU: after spaces, between ideographs, Thai, Lao,
/// Khmer and Burmese words by ICU's dictionaries, never before closing punctuation. The screens
/// wrap the announcement box, and the band that stands still, with it.
package struct UnicodeLineBreaking: LineBreaking {
    package init() {}

    package func opportunities(_ glyphs: [LaidGlyph]) -> [Bool] {
        var text: [UInt16] = []
        var starts: [Int32] = []
        for glyph in glyphs {
            starts.append(Int32(text.count))
            text += glyph.character.utf16
        }
        var offsets = [Int32](repeating: 0, count: text.count + 2)
        let count = mq_icu_line_breaks(text, Int32(text.count), &offsets, Int32(offsets.count))
        guard count > 0 else { return SpaceBreaking().opportunities(glyphs) }
        let breaks = Set(offsets.prefix(Int(min(count, Int32(offsets.count)))))
        return starts.enumerated().map { index, start in index > 0 && breaks.contains(start) }
    }
}
