import CLinux
import Marquee

/// Character widths in terminal cells. Terminals place text code point by code point, each as
/// wide as the C library's `wcwidth` (UTF-8 locale) says: tmux, xterm and the Linux console
/// do, so a cluster takes the sum of its code points' cells (a Devanagari conjunct 2, a
/// decomposed "é" 1). Clusters that terminals draw at different widths are sent in a form that
/// every terminal draws alike (`terminalText`), and are measured in that form.
package struct TerminalMetrics: GlyphMetrics {
    package var unitsPerCharacter: Int { 1 }
    /// The code points the Linux console's font has (nil: a terminal emulator, whose fonts have
    /// what they have). The console draws nothing for what its font lacks, in fewer cells than
    /// `wcwidth` says, and joins no accents: there a cluster is its first code point, one cell,
    /// if the font has it (or a plain stand-in: "·" for "•"), and is left out otherwise.
    let consoleFont: Set<UInt32>?

    package init(consoleFont: Set<UInt32>? = nil) {
        self.consoleFont = consoleFont
    }

    package func advance(of character: Character) -> Int {
        Self.cells(of: terminalText(of: character))
    }

    /// What is written for a cluster: on the Linux console, what its font has; elsewhere the
    /// cluster without what terminals draw at different widths (`terminalText(of:)`).
    package func terminalText(of character: Character) -> String {
        guard let font = consoleFont else { return Self.terminalText(of: character) }
        guard let base = character.unicodeScalars.first else { return "" }
        if font.contains(base.value), mq_cell_width(base.value) == 1 { return String(base) }
        let standIn = Self.consoleStandIns[base.value]?.first { $0.unicodeScalars.allSatisfy { font.contains($0.value) } }
        return standIn ?? ""
    }

    /// Plain stand-ins for punctuation console fonts often lack, the first the font has.
    private static let consoleStandIns: [UInt32: [String]] = [
        0x2022: ["·", "-"], 0x00B7: ["-"], 0x2026: ["..."], 0x2013: ["-"], 0x2014: ["-"], 0x2018: ["'"], 0x2019: ["'"],
        0x201C: ["\""], 0x201D: ["\""],
    ]

    /// What any terminal emulator is sent for a cluster. Left out, because terminals disagree
    /// about their width: variation selectors (a VS16 emoji is 1 cell in one terminal and 2 in
    /// the next), zero width joiners (a ZWJ family is 2 cells or 6: its members are shown side
    /// by side), skin tone modifiers, the keycap mark, tag characters, other invisible format
    /// characters, and code points the C library does not know.
    package static func terminalText(of character: Character) -> String {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first, scalar.value < 0x300 {
            return String(character)
        }
        var kept = String.UnicodeScalarView()
        for scalar in scalars where isShown(scalar) { kept.append(scalar) }
        return String(kept)
    }

    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE00...0xFE0F, 0x200D, 0x1F3FB...0x1F3FF, 0x20E3, 0xE0000...0xE007F: return false
        default:
            if scalar.properties.generalCategory == .format { return false }
            return mq_cell_width(scalar.value) >= 0
        }
    }

    /// Cells `text` takes on a terminal.
    static func cells(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + max(0, Int(mq_cell_width($1.value))) }
    }
}
