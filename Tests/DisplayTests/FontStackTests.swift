import Marquee
import Testing

@testable import Display

/// FreeType through the font stack: fallbacks, colour emoji, kerning, quarter pixels.
@Suite struct FontStackTests {
    static let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    static let emoji = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"

    /// 🎂 comes from Noto Color Emoji as a colour picture about the text's size.
    @Test func emojiComeInColourAtTheTextSize() throws {
        let fonts = try FontStack(paths: [Self.bold, Self.emoji], pixelSize: 96)
        let images = fonts.pictures(of: "🎂", phase: 0)
        #expect(images.count == 1)
        guard let cake = images.first, case .colour(let pixels) = cake.pixels else {
            Issue.record("the cake is not a colour image")
            return
        }
        #expect((80...130).contains(cake.height), "cake \(cake.width)x\(cake.height)")
        #expect(pixels.contains { $0 >> 24 == 255 && $0 & 0xFF_FFFF != 0xFF_FFFF })
        #expect((80 * 64...130 * 64).contains(fonts.advance(of: "🎂")))
    }

    /// A character the text font lacks comes from the next font, or from the font for its
    /// script (Chinese from Noto Sans CJK); one no font has is left out (advance 0), never
    /// drawn as an empty box, and noted to be told once.
    @Test func missingCharactersFallBackOrAreLeftOut() throws {
        let textOnly = try FontStack(paths: [Self.bold], pixelSize: 48)
        #expect(textOnly.advance(of: "🎂") == 0)
        #expect(textOnly.pictures(of: "🎂", phase: 0).isEmpty)
        let withEmoji = try FontStack(paths: [Self.bold, Self.emoji], pixelSize: 48)
        #expect(withEmoji.advance(of: "🎂") > 0)
        #expect(withEmoji.advance(of: "中") > 0)
        #expect(withEmoji.advance(of: "é") > 0)
        #expect(withEmoji.advance(of: "e\u{301}") == withEmoji.advance(of: "e"))
        #expect(withEmoji.layout("a\u{E000}b").map(\.character) == ["a", "b"])
        #expect(withEmoji.takeMissing() == ["\u{E000}"])
        _ = withEmoji.layout("\u{E000} again")
        #expect(withEmoji.takeMissing().isEmpty)
    }

    /// Text is shaped: right-to-left runs are laid in the order they are seen, Arabic letters
    /// take their joined forms, a Devanagari conjunct is one shape, emoji sequences (a ZWJ
    /// family, a skin tone, a keycap) are one picture each, CJK comes from Noto Sans CJK.
    @Test func textIsShaped() throws {
        let fonts = try FontStack(pixelSize: 48)
        func characters(_ text: String) -> String { String(fonts.layout(text).map(\.character)) }
        #expect(characters("שלום") == "םולש")
        #expect(characters("abc שלום 12 def") == "abc 12 םולש def")
        #expect(characters("مرحبا") == "ابحرم")
        // Lam and alef make one ligature: "سلام" is three shapes.
        #expect(characters("سلام") == "ملس")
        // Joined Arabic letters are other glyphs than the same letters alone.
        func glyphs(_ text: String) -> [UInt32] {
            fonts.layout(text).flatMap { ShapedForm.form(numbered: $0.form)?.glyphs.map(\.id) ?? [] }
        }
        #expect(glyphs("مرحبا") != "مرحبا".reversed().flatMap { glyphs(String($0)) })
        for sequence in ["👨‍👩‍👧", "👍🏽", "1️⃣", "क्षि"] {
            let laid = fonts.layout(sequence)
            #expect(laid.count == 1, "\(sequence)")
        }
        #expect(glyphs("👨‍👩‍👧").count == 1)
        #expect(glyphs("👍🏽") != glyphs("👍"))
        #expect(glyphs("1️⃣").count == 1)
        let cjk = fonts.layout("今日")
        #expect(cjk.count == 2 && cjk.allSatisfy { ShapedForm.form(numbered: $0.form)?.fontPath.contains("CJK") == true })
        #expect(fonts.takeMissing().isEmpty)
    }

    /// A font that cannot be opened is reported and skipped; with no text font at all the
    /// stack refuses to start.
    @Test func unusableFontsAreReported() throws {
        let fonts = try FontStack(paths: ["/nonexistent.ttf", "/etc/hostname", Self.bold], pixelSize: 32)
        #expect(fonts.unusable.count == 2)
        #expect(fonts.unusable[0].description.contains("/nonexistent.ttf"))
        #expect(throws: FontError.self) { try FontStack(paths: ["/nonexistent.ttf", Self.emoji], pixelSize: 32) }
    }

    /// A character of another script opens only the font that has it (Noto Sans Thai for
    /// Thai, not the fonts before it in the list), and a script Noto has only in a regular cut
    /// (Runic) is drawn from that.
    @Test func aScriptOpensOnlyItsOwnFont() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 48)
        #expect(fonts.advance(of: "ส") > 0)
        #expect(fonts.summary.hasSuffix("(+1 fallbacks)"), "\(fonts.summary)")
        #expect(fonts.facePath(try #require(fonts.face(for: "ส"))).hasSuffix("NotoSansThai-Bold.ttf"))
        #expect(fonts.facePath(try #require(fonts.face(for: "\u{16A0}"))).hasSuffix("NotoSansRunic-Regular.ttf"))
        #expect(fonts.summary.hasSuffix("(+2 fallbacks)"), "\(fonts.summary)")
        #expect(FontCoverage.of(fontAt: "/usr/share/fonts/truetype/noto/NotoSansThai-Bold.ttf").contains(0x0E2A))
        #expect(!FontCoverage.of(fontAt: "/usr/share/fonts/truetype/noto/NotoSansThai-Bold.ttf").contains(0x4E2D))
    }

    /// "AV" sits closer than its advances say (the font's kern table), in 1/64 pixel.
    @Test func kerningBringsPairsCloser() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 135)
        #expect(fonts.kerning(between: "A", and: "V") < -64)
        #expect(fonts.kerning(between: "o", and: "o") == 0)
        #expect(fonts.kerning(between: "A", and: "🎂") == 0)
    }

    /// Advances are unhinted 1/64 pixels, and the four quarter-pixel phases of a letter are
    /// four different pictures (text can stand between pixels).
    @Test func quarterPixelPhasesDiffer() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 24)
        #expect(fonts.advance(of: "W") % 64 != 0)
        var pictures: [[UInt8]] = []
        for phase in 0..<4 {
            guard case .coverage(let coverage) = fonts.pictures(of: "W", phase: phase).first?.pixels else {
                Issue.record("no picture of W")
                return
            }
            pictures.append(coverage)
        }
        #expect(Set(pictures).count == 4)
    }

    /// A dancing letter turned and sized is a different picture from the upright one.
    @Test func posesTurnAndSizeTheLetter() throws {
        let fonts = try FontStack(paths: [Self.bold], pixelSize: 64)
        let upright = fonts.pictures(of: "H", phase: 0)[0]
        let turned = fonts.pictures(of: "H", phase: 0, pose: GlyphPose(tilt: 0.12, scale: 1.06))[0]
        #expect(turned.width > upright.width)
        #expect(turned.height > upright.height)
    }

    /// Glyph keys tell font stacks apart: the band's and the box's fonts share one cache.
    @Test func keysOfDifferentStacksAreToldApart() throws {
        let band = try FontStack(paths: [Self.bold], pixelSize: 64)
        let box = try FontStack(paths: [Self.bold], pixelSize: 44)
        let keys = [band.keys(of: "A", phase: 0), box.keys(of: "A", phase: 0), band.keys(of: "A", phase: 1),
                    box.keys(of: "B", phase: 0)]
        #expect(Set(keys).count == 4)
        #expect(band.keys(of: "A", phase: 0) == keys[0])
    }

    /// An upright letter stands at quarter pixels; a dancing one and a colour emoji at whole
    /// pixels (four times fewer pictures to keep).
    @Test func posedLettersAndEmojiStandOnWholePixels() throws {
        let fonts = try FontStack(paths: [Self.bold, Self.emoji], pixelSize: 64)
        let pose = GlyphPose(tilt: 0.1, scale: 1)
        #expect(Set((0..<4).map { fonts.keys(of: "H", phase: $0) }).count == 4)
        #expect(Set((0..<4).map { fonts.keys(of: "H", phase: $0, pose: pose) }).count == 1)
        #expect(Set((0..<4).map { fonts.keys(of: "🎂", phase: $0) }).count == 1)
    }
}

extension FontStack {
    /// The keys of the pictures drawing `character` with its pen `phase` quarter pixels right of
    /// pixel 0.
    func keys(of character: Character, phase: Int, pose: GlyphPose = .upright) -> [GlyphKey] {
        var placements: [GlyphPlacement] = []
        place(character, form: 0, at: phase * 16, pose: pose, into: &placements)
        return placements.map(\.key)
    }

    /// Those pictures, rasterized.
    func pictures(of character: Character, phase: Int, pose: GlyphPose = .upright) -> [GlyphImage] {
        keys(of: character, phase: phase, pose: pose).compactMap(rasterize)
    }
}
