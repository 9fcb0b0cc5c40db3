import CLinux
import Marquee

/// Character widths in terminal cells, as the C library's `wcwidth` (UTF-8 locale) counts
/// them: East Asian wide characters and emoji take 2 cells, combining marks ride along with
/// their base character, controls take none.
public struct TerminalMetrics: GlyphMetrics {
    public var unitsPerCharacter: Int { 1 }

    public init() {}

    public func advance(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.generalCategory == .control { return 0 }
        // Emoji presentation (VS16), ZWJ sequences and flags are drawn 2 cells wide.
        if scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D })
            || first.properties.isEmojiPresentation || (0x1F1E6...0x1F1FF).contains(first.value)
        {
            return 2
        }
        let width = Int(mq_cell_width(first.value))
        if width < 0 { return first.properties.generalCategory == .format ? 0 : 1 }
        return width
    }
}
