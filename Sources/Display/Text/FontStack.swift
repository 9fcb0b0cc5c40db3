import CFreeType
import CHarfBuzz
import Marquee
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A font that could not be used, or no usable font at all.
package struct FontError: Error, CustomStringConvertible {
    package var description: String
    /// The font file it is about, if one.
    package var path: String?
}

/// The fonts the framebuffer draws with, in order: the text font first, then fallbacks for
/// the characters it lacks, colour emoji scaled to the text size, then (opened only when a
/// message needs one) a font for each script the others lack. A character none of them has is
/// left out rather than drawn as an empty box, and noted. Text is shaped (`layout`). Measures in
/// 1/64 pixel (FreeType's 26.6) so upright text can stand at quarter-pixel positions (a
/// dancing glyph stands on whole pixels). It rasterizes on request and keeps no pictures: the
/// painter's `GlyphCache` does, within its budget. Not thread-safe: the render thread owns it.
package final class FontStack: GlyphMetrics {
    /// DejaVu Sans Bold (fonts-dejavu-core), DejaVu Sans for what the bold cut lacks, Noto
    /// Color Emoji (fonts-noto-color-emoji).
    package static let defaultPaths = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
    ]
    /// Fonts for the scripts the fonts given lack, opened only when a message needs one:
    /// Noto's bold cut of each script (fonts-noto-core), its regular cut where the script has
    /// no bold one (Mongolian, N'Ko, Runic and some 70 more), then Noto Sans CJK (fonts-noto-cjk).
    static let scriptFallbackPaths: [String] = {
        let folder = "/usr/share/fonts/truetype/noto"
        var cuts: [String: Set<String>] = [:]
        if let directory = opendir(folder) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name.hasPrefix("NotoSans"), name.hasSuffix(".ttf"), !name.contains("Mono"), !name.contains("Display"),
                      let dash = name.firstIndex(of: "-") else { continue }
                cuts[String(name[..<dash]), default: []].insert(String(name[name.index(after: dash)...]))
            }
            closedir(directory)
        }
        // Noto Sans first (Latin, Greek and Cyrillic letters DejaVu lacks), then by name.
        let families = cuts.keys.sorted { $0 == "NotoSans" || ($1 != "NotoSans" && $0 < $1) }
        let chosen = families.compactMap { family in
            ["Bold.ttf", "Regular.ttf"].first { cuts[family]?.contains($0) == true }.map { "\(folder)/\(family)-\($0)" }
        }
        return chosen + ["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"]
    }()

    /// Display units per pixel.
    static let unitsPerPixel = 64

    /// The text size in pixels (the em square).
    let pixelSize: Int
    /// Above and below the baseline, in pixels (of the first font).
    let ascender: Int
    let descender: Int
    package private(set) var unitsPerCharacter: Int
    /// Fonts in the list that could not be opened (the others are used).
    package let unusable: [FontError]

    struct Face {
        var handle: FT_Face
        var path: String
        /// A colour bitmap font (CBDT): one fixed strike, scaled to the text size.
        var bitmapScale: Double?
        /// The font's design units per em (what HarfBuzz measures in).
        var unitsPerEm: Int
        /// HarfBuzz's font for shaping (made when first needed).
        var shaper: OpaquePointer?
    }

    /// What a character is drawn from: glyphs of one face (a base and its marks).
    struct Resolved {
        var face: Int
        var glyphs: [UInt32]
        var advance: Int
    }

    private var library: FT_Library?
    private(set) var faces: [Face] = []
    /// Script fonts not opened yet, in order.
    private var unopenedFallbacks = FontStack.scriptFallbackPaths
    /// Shaped forms this stack has drawn or measured, with the font each comes from: looked up
    /// here, not in the process's registry, for every frame.
    private var knownForms: [Int: (face: Int, form: ShapedForm)] = [:]
    /// Characters no font has, not told yet, and those told.
    private var missing: [Character] = []
    private var toldMissing: Set<Character> = []
    private var resolved: [Character: Resolved?] = [:]
    /// Tells this stack's glyph keys from other stacks' (a band and a box font share a cache).
    let identity = Int32(truncatingIfNeeded: FontStack.stackCount.add(1, ordering: .relaxed).newValue)
    private static let stackCount = Atomic<Int>(0)

    /// Opens the fonts at `paths` (missing ones are noted in `unusable`) at `pixelSize`.
    package init(paths: [String] = FontStack.defaultPaths, pixelSize: Int) throws(FontError) {
        self.pixelSize = max(4, pixelSize)
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw FontError(description: "FreeType did not start") }
        self.library = library
        var unusable: [FontError] = []
        for path in paths {
            do throws(FontError) {
                faces.append(try Self.open(path, library: library, pixelSize: self.pixelSize))
            } catch {
                unusable.append(error)
            }
        }
        self.unusable = unusable
        let given = Set(faces.map(\.path))
        unopenedFallbacks.removeAll { given.contains($0) }
        guard let text = faces.first(where: { $0.bitmapScale == nil }) else {
            FT_Done_FreeType(library)
            self.library = nil
            let reasons = unusable.map(\.description).joined(separator: "; ")
            throw FontError(description: "no usable text font (\(reasons.isEmpty ? "none given" : reasons))")
        }
        let metrics = text.handle.pointee.size.pointee.metrics
        ascender = Int((metrics.ascender + 63) >> 6)
        descender = Int((-metrics.descender + 63) >> 6)
        unitsPerCharacter = 0
        let sample = "abcdefghijklmnopqrstuvwxyz "
        let total = sample.reduce(0) { $0 + advance(of: $1) }
        unitsPerCharacter = max(Self.unitsPerPixel, total / sample.count)
    }

    deinit {
        for face in faces {
            if let shaper = face.shaper { hb_font_destroy(shaper) }
            FT_Done_Face(face.handle)
        }
        if let library { FT_Done_FreeType(library) }
    }

    /// A font at `pixelSize`: outlines scaled, a colour bitmap font's strike chosen.
    private static func open(_ path: String, library: FT_Library, pixelSize: Int) throws(FontError) -> Face {
        var handle: FT_Face?
        guard let file = FontFile.mapped(path),
              FT_New_Memory_Face(library, file.bytes, FT_Long(file.count), 0, &handle) == 0, let handle else {
            throw FontError(description: "\(path): not a font FreeType can open", path: path)
        }
        // A bitmap-only font has no em for FreeType; HarfBuzz measures it in the font's own.
        let unitsPerEm = handle.pointee.units_per_EM > 0 ? Int(handle.pointee.units_per_EM) : Self.unitsPerEm(ofFontAt: path)
        if mq_ft_is_scalable(handle) == 1 {
            FT_Set_Pixel_Sizes(handle, 0, FT_UInt(pixelSize))
            return Face(handle: handle, path: path, bitmapScale: nil, unitsPerEm: unitsPerEm)
        }
        if handle.pointee.num_fixed_sizes > 0, FT_Select_Size(handle, 0) == 0 {
            let strike = Double(handle.pointee.size.pointee.metrics.y_ppem)
            return Face(handle: handle, path: path, bitmapScale: Double(pixelSize) / max(1, strike), unitsPerEm: unitsPerEm)
        }
        FT_Done_Face(handle)
        throw FontError(description: "\(path): has no size FreeType can draw", path: path)
    }

    /// The design units per em a font's own tables give (HarfBuzz reads them).
    private static func unitsPerEm(ofFontAt path: String) -> Int {
        withHarfBuzzFace(at: path) { max(1, Int(hb_face_get_upem($0))) } ?? 1
    }

    /// `body` given HarfBuzz's face of the font file at `path` (nil: HarfBuzz cannot read it).
    private static func withHarfBuzzFace<Result>(at path: String, _ body: (OpaquePointer) -> Result) -> Result? {
        FontFile.mapped(path)?.harfBuzzFace.map(body)
    }

    /// Opens the script font at `position` of those not opened yet, which it leaves either way;
    /// its index in `faces`, or nil when it cannot be opened.
    private func openFallback(at position: Int) -> Int? {
        let path = unopenedFallbacks.remove(at: position)
        guard let library, let face = try? Self.open(path, library: library, pixelSize: pixelSize) else { return nil }
        faces.append(face)
        return faces.count - 1
    }

    /// Opens the first script font not opened yet that has `scalar` (its index in `faces`), or
    /// nil when none has. Which characters a font has is read once per process and kept, so a
    /// stack opens only the fonts its messages use: a Thai letter does not open the hundred
    /// fonts before Noto Sans Thai.
    private func openFallback(having scalar: Unicode.Scalar) -> Int? {
        while let position = unopenedFallbacks.firstIndex(where: { FontCoverage.of(fontAt: $0).contains(scalar.value) }) {
            if let index = openFallback(at: position) { return index }
        }
        return nil
    }

    /// Where the glyphs come from, for the status: "DejaVuSans-Bold.ttf 135 px (+2 fallbacks)".
    package var summary: String {
        let name = faces.first.map { String($0.path.split(separator: "/").last ?? "") } ?? "?"
        return "\(name) \(pixelSize) px" + (faces.count > 1 ? " (+\(faces.count - 1) fallbacks)" : "")
    }

    // MARK: - Measuring

    package func advance(of character: Character) -> Int {
        resolve(character)?.advance ?? 0
    }

    package func kerning(between left: Character, and right: Character) -> Int {
        guard let first = resolve(left), let second = resolve(right), first.face == second.face,
              let a = first.glyphs.first, let b = second.glyphs.first else { return 0 }
        let face = faces[first.face]
        guard face.bitmapScale == nil, mq_ft_has_kerning(face.handle) == 1 else { return 0 }
        var delta = FT_Vector()
        guard FT_Get_Kerning(face.handle, a, b, FT_UInt(FT_KERNING_UNFITTED.rawValue), &delta) == 0 else { return 0 }
        return Int(delta.x)
    }

    /// The font a character is drawn from (nil: none has it).
    func face(for character: Character) -> Int? { resolve(character)?.face }

    /// The font opened from `path`, opening it if it is a script font of this stack.
    func face(at path: String) -> Int? {
        if let index = faces.firstIndex(where: { $0.path == path }) { return index }
        return unopenedFallbacks.firstIndex(of: path).flatMap(openFallback(at:))
    }

    func facePath(_ face: Int) -> String { faces[face].path }

    /// A shaped form and the font of this stack it is drawn from (nil: not a form, or its font
    /// cannot be opened).
    func form(numbered number: Int) -> (face: Int, form: ShapedForm)? {
        guard number > 0 else { return nil }
        if let known = knownForms[number] { return known }
        guard let form = ShapedForm.form(numbered: number), let face = face(at: form.fontPath) else { return nil }
        knownForms[number] = (face, form)
        return (face, form)
    }

    /// HarfBuzz's font for a face, measuring in the font's own units.
    func shaper(of face: Int) -> OpaquePointer? {
        if let shaper = faces[face].shaper { return shaper }
        let font = Self.withHarfBuzzFace(at: faces[face].path) { hb_font_create($0) } ?? nil
        faces[face].shaper = font
        return font
    }

    /// Font units of `face` in 1/64 pixel at this size.
    func scaled(_ units: Int32, face: Int) -> Int {
        let perEm = faces[face].unitsPerEm
        let value = Int(units) * pixelSize * Self.unitsPerPixel
        return (value + (value >= 0 ? perEm / 2 : -perEm / 2)) / perEm
    }

    /// Notes a character no font has, to be told once.
    func noteMissing(_ character: Character) {
        guard !toldMissing.contains(character), !missing.contains(character) else { return }
        missing.append(character)
    }

    /// What is told of a character no font has: `no font has "𗀀" (U+17000)`.
    package static func noFontHas(_ character: Character) -> String {
        let codes = character.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "no font has \"\(character)\" (\(codes.joined(separator: " ")))"
    }

    /// Characters no font has that were not told yet (each is told once).
    package func takeMissing() -> [Character] {
        defer {
            toldMissing.formUnion(missing)
            missing = []
        }
        return missing
    }

    func resolve(_ character: Character) -> Resolved? {
        if let known = resolved[character] { return known }
        let result = lookUp(character)
        resolved[character] = result
        return result
    }

    /// The first font with the character's base scalar, emoji presentation preferring colour
    /// fonts; marks in the same cluster come from the same font. A ZWJ sequence shows its
    /// first emoji (joining them needs a shaper); selectors and skin tones are dropped.
    private func lookUp(_ character: Character) -> Resolved? {
        let scalars = Array(character.unicodeScalars.prefix { $0.value != 0x200D })
        guard let base = scalars.first, !base.properties.isDefaultIgnorableCodePoint else { return nil }
        let wantsColour = base.properties.isEmojiPresentation || scalars.contains { $0.value == 0xFE0F }
        let order = faces.indices.sorted { a, b in
            let colourA = faces[a].bitmapScale != nil, colourB = faces[b].bitmapScale != nil
            return colourA == colourB ? a < b : colourA == wantsColour
        }
        func found(in index: Int) -> Resolved? {
            let face = faces[index]
            let baseGlyph = FT_Get_Char_Index(face.handle, FT_ULong(base.value))
            guard baseGlyph != 0 else { return nil }
            var glyphs = [baseGlyph]
            for mark in scalars.dropFirst()
            where !mark.properties.isDefaultIgnorableCodePoint && !mark.properties.isEmojiModifier {
                let glyph = FT_Get_Char_Index(face.handle, FT_ULong(mark.value))
                if glyph != 0 { glyphs.append(glyph) }
            }
            guard let advance = measure(face, glyph: baseGlyph) else { return nil }
            return Resolved(face: index, glyphs: glyphs, advance: advance)
        }
        for index in order {
            if let resolved = found(in: index) { return resolved }
        }
        while let index = openFallback(having: base) {
            if let resolved = found(in: index) { return resolved }
        }
        return nil
    }

    /// The unhinted advance in 1/64 pixel (hinted advances are rounded to whole pixels,
    /// which would make the speed uneven across letters).
    private func measure(_ face: Face, glyph: UInt32) -> Int? {
        if let scale = face.bitmapScale {
            guard FT_Load_Glyph(face.handle, glyph, mq_ft_load_colour) == 0 else { return nil }
            return Int((Double(face.handle.pointee.glyph.pointee.advance.x) * scale).rounded())
        }
        FT_Set_Transform(face.handle, nil, nil)
        guard FT_Load_Glyph(face.handle, glyph, mq_ft_load_no_hinting) == 0 else { return nil }
        return Int((face.handle.pointee.glyph.pointee.linearHoriAdvance + 512) >> 10)
    }

}
