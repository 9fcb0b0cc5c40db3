import Support

/// One message to put on the tape.
package struct MarqueeMessage: Hashable, Sendable {
    package var text: String
    package var colour: Colour?
    package var effect: MessageEffect

    package init(text: String, colour: Colour? = nil, effect: MessageEffect = .scroll) {
        self.text = text
        self.colour = colour
        self.effect = effect
    }
}

/// How wide each character is on a display, in the display's own units (terminal cells,
/// or sub-pixels on a framebuffer), measured once when a message is laid on the tape.
package protocol GlyphMetrics {
    /// The advance of one grapheme cluster; 0 drops it (control characters).
    func advance(of character: Character) -> Int
    /// What "one character" is for speeds given in characters per second.
    var unitsPerCharacter: Int { get }
    /// How much closer (negative) or further apart two neighbouring characters sit than
    /// their advances say (a font's kerning).
    func kerning(between left: Character, and right: Character) -> Int
    /// `text` laid out as it is seen, left to right: its grapheme clusters with their places
    /// and advances, those with nothing to show left out. A display that shapes text (joins
    /// letters, orders right-to-left runs, takes each script from a font that has it) lays it
    /// out itself; the others measure each character.
    func layout(_ text: String) -> [LaidGlyph]
}

extension GlyphMetrics {
    /// No kerning: terminals and monospaced displays.
    package func kerning(between left: Character, and right: Character) -> Int { 0 }

    /// Each character at its advance, kerned against the one before, in the text's order.
    package func layout(_ text: String) -> [LaidGlyph] {
        var glyphs: [LaidGlyph] = []
        var offset = 0
        var previous: Character?
        for character in text where !character.isControl {
            let advance = advance(of: character)
            guard advance > 0 else { continue }
            if let previous { offset += kerning(between: previous, and: character) }
            glyphs.append(LaidGlyph(character: character, offset: offset, advance: advance))
            offset += advance
            previous = character
        }
        return glyphs
    }
}

/// The settings of the motion.
package struct MarqueeConfiguration: Sendable, Hashable {
    /// Scrolling speed in characters per second (reading research: 3–7 is comfortable).
    package var charactersPerSecond: Double = 5
    package var separator = " • "
    /// Typewriter: time per letter.
    var typewriterLetter: Nanoseconds = 30_000_000
    /// Typewriter: how long a fully typed announcement stays, per character (reading at the
    /// scrolling speed), and at least.
    var minimumReadingPause: Nanoseconds = 3_000_000_000
    /// Applies this effect to every message (`nil`: each message's own).
    package var effectForAll: MessageEffect?

    package init() {}

    package init(charactersPerSecond: Double, separator: String = " • ") {
        self.charactersPerSecond = charactersPerSecond
        self.separator = separator
    }
}

/// A glyph laid on the tape: its character and advance, measured once.
package struct LaidGlyph: Hashable, Sendable {
    package var character: Character
    /// Where it starts within its piece, in display units.
    package var offset: Int
    package var advance: Int
    /// Which of the display's own forms draws it (a shaped group of glyphs); 0: the character.
    package var form: Int
    /// Its embedding level in the Unicode Bidirectional Algorithm: odd where it is read right to
    /// left. The lowest of a text's glyphs is its paragraph's.
    package var level: UInt8

    package init(character: Character, offset: Int, advance: Int, form: Int = 0, level: UInt8 = 0) {
        self.character = character
        self.offset = offset
        self.advance = advance
        self.form = form
        self.level = level
    }
}

extension [LaidGlyph] {
    /// How far laid text reaches, in display units: to the end of its last glyph.
    package var width: Int { last.map { $0.offset + $0.advance } ?? 0 }
}

/// What is visible at one instant: the ticker band and the announcement box.
package struct Frame: Sendable {
    /// The glyphs in the band, positioned relative to the window's left edge.
    package var glyphs: [FrameGlyph]
    package var announcement: Announcement?
    /// The tape position of the window's left edge, in display units (fractional).
    package var position: Double
    package var isMoving: Bool
    /// The texts of the messages with a letter in the window, in the order they stand.
    package var textsInView: [String] = []
}

/// One visible glyph of the band.
package struct FrameGlyph: Hashable, Sendable {
    package var character: Character
    /// The display's form of it (see `LaidGlyph.form`).
    package var form: Int
    /// Left edge relative to the window, in display units; fully inside the window unless the
    /// frame was asked for partial glyphs (then it may start left of 0 or end right of the width).
    package var x: Int
    package var advance: Int
    package var colour: Colour?
    /// Dance: 0 (resting) … 1 (lifted), and gentle sway/tilt/scale/hue around 0.
    package var lift: Double
    package var tilt: Double
    package var scale: Double
    package var hueShift: Double
}

/// How a screen's announcement box holds text: the glyphs of each page (the lines that fit in
/// the box at once, wrapped at words), so a long announcement is typed page by page, each page
/// read before the next. Spaces where pages break belong to no page.
package protocol AnnouncementBox {
    func pages(of glyphs: [LaidGlyph]) -> [Range<Int>]
}

/// A box that holds any announcement on one page (no screen said otherwise).
package struct OnePageBox: AnnouncementBox {
    package init() {}

    package func pages(of glyphs: [LaidGlyph]) -> [Range<Int>] { [glyphs.indices] }
}

/// The announcement box: a typewriter message being typed or read.
package struct Announcement: Hashable, Sendable {
    /// The page shown: a long announcement is shown a page at a time.
    package var glyphs: [LaidGlyph]
    package var colour: Colour?
    /// How many glyphs are typed so far (the layout of all of them is fixed from the start).
    package var visibleCount: Int
    /// The "more" arrow ▶ once a page that another follows is typed: 0 … 1, how far it has
    /// bobbed to the right.
    package var arrowBob: Double?
    /// One page of several: the box keeps the height of a full page for the whole
    /// announcement, so it never shrinks between pages.
    package var isPaged = false
    /// How strongly the page is drawn: 1, falling to 0 over the moment before the next page
    /// of the same announcement is typed (the page fades rather than vanishing in a frame).
    package var opacity = 1.0
}
