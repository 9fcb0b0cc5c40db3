import Marquee

/// A terminal's measure: one cell per character, two for CJK ideographs and emoji, none for
/// controls; each cell `unitsPerCharacter` units wide (another screen's measure).
package struct CellMetrics: GlyphMetrics {
    package let unitsPerCharacter: Int

    package init(unitsPerCharacter: Int = 1) {
        self.unitsPerCharacter = unitsPerCharacter
    }

    package func advance(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .control { return 0 }
        if (0x4E00...0x9FFF).contains(scalar.value) || scalar.properties.isEmojiPresentation { return 2 * unitsPerCharacter }
        return unitsPerCharacter
    }
}
