import CFreeType
import CHarfBuzz
import Marquee
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A font that could not be used, or no usable font at all.
public struct FontError: Error, CustomStringConvertible {
    public var description: String
}

/// One rasterized glyph, placed relative to its pen position on the baseline.
struct GlyphImage {
    enum Pixels {
        /// Coverage 0…255 per pixel (outline fonts), drawn in the message's colour.
        case coverage([UInt8])
        /// Premultiplied 0xAARRGGBB per pixel (colour emoji), drawn as they are.
        case colour([UInt32])
    }

    var width: Int
    var height: Int
    /// From the pen to the bitmap's left edge, in pixels.
    var left: Int
    /// From the baseline up to the bitmap's top row, in pixels.
    var top: Int
    var pixels: Pixels

    init(width: Int, height: Int, left: Int, top: Int, pixels: Pixels) {
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.pixels = pixels
    }

    var byteCount: Int {
        switch pixels {
        case .coverage(let values): values.count
        case .colour(let values): values.count * 4
        }
    }
}

/// Which picture of a glyph: the font stack (its size), the font, the glyph, the quarter-pixel
/// phase of its pen and its pose, turned about `centre` (1/64 pixel right of the pen; 0 when
/// upright). What the glyph cache keeps pictures under.
struct GlyphKey: Hashable {
    var stack: Int32
    var face: Int16
    var phase: UInt8
    var pose: GlyphPose
    var glyph: UInt32
    var centre: Int32

    /// Looked up for every glyph of every frame: hashed as two words, not field by field.
    func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(glyph) | UInt64(UInt32(bitPattern: centre)) << 32)
        hasher.combine(UInt64(UInt32(bitPattern: stack)) | UInt64(UInt16(bitPattern: face)) << 32
            | UInt64(phase) << 48 | UInt64(UInt8(bitPattern: pose.tiltSteps ^ pose.scaleSteps << 4)) << 56)
    }
}

/// A glyph picture to draw and where: its pen's pixel and how far it is raised, in pixels.
struct GlyphPlacement {
    var key: GlyphKey
    var x: Int
    var rise: Int
}

/// How a dancing glyph is turned and sized, in steps small enough to look continuous
/// (tilt in 1/50 radian, scale in 1/50).
struct GlyphPose: Hashable {
    var tiltSteps: Int8
    var scaleSteps: Int8

    static let upright = GlyphPose(tiltSteps: 0, scaleSteps: 0)

    init(tiltSteps: Int8, scaleSteps: Int8) {
        self.tiltSteps = tiltSteps
        self.scaleSteps = scaleSteps
    }

    init(tilt: Double, scale: Double) {
        tiltSteps = Int8(clamping: Int((tilt * 50).rounded()))
        scaleSteps = Int8(clamping: Int(((scale - 1) * 50).rounded()))
    }

    var tilt: Double { Double(tiltSteps) / 50 }
    var scale: Double { 1 + Double(scaleSteps) / 50 }
}

/// The fonts the framebuffer draws with, in order: the text font first, then fallbacks for
/// the characters it lacks, colour emoji scaled to the text size, then (opened only when a
/// message needs one) a font for each script the others lack. A character none of them has is
/// left out rather than drawn as an empty box, and noted. Text is shaped (`layout`). Measures in
/// 1/64 pixel (FreeType's 26.6) so upright text can stand at quarter-pixel positions (a
/// dancing glyph stands on whole pixels). It rasterizes on request and keeps no pictures: the
/// painter's `GlyphCache` does, within its budget. Not thread-safe: the render thread owns it.
public final class FontStack: GlyphMetrics {
    /// DejaVu Sans Bold (fonts-dejavu-core), DejaVu Sans for what the bold cut lacks, Noto
    /// Color Emoji (fonts-noto-color-emoji).
    public static let defaultPaths = [
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
    public private(set) var unitsPerCharacter: Int
    /// Fonts in the list that could not be opened (the others are used).
    public let unusable: [FontError]

    private struct Face {
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
    private var faces: [Face] = []
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
    public init(paths: [String] = FontStack.defaultPaths, pixelSize: Int) throws(FontError) {
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
            throw FontError(description: "\(path): not a font FreeType can open")
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
        throw FontError(description: "\(path): has no size FreeType can draw")
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
    public var summary: String {
        let name = faces.first.map { String($0.path.split(separator: "/").last ?? "") } ?? "?"
        return "\(name) \(pixelSize) px" + (faces.count > 1 ? " (+\(faces.count - 1) fallbacks)" : "")
    }

    // MARK: - Measuring

    public func advance(of character: Character) -> Int {
        resolve(character)?.advance ?? 0
    }

    public func kerning(between left: Character, and right: Character) -> Int {
        guard let first = resolve(left), let second = resolve(right), first.face == second.face,
              let a = first.glyphs.first, let b = second.glyphs.first else { return 0 }
        let face = faces[first.face]
        guard face.bitmapScale == nil, mq_ft_has_kerning(face.handle) == 1 else { return 0 }
        var delta = FT_Vector()
        guard FT_Get_Kerning(face.handle, a, b, FT_UInt(FT_KERNING_UNFITTED.rawValue), &delta) == 0 else { return 0 }
        return Int(delta.x)
    }

    /// Whether a character has a glyph in some font of the stack.
    func canDraw(_ character: Character) -> Bool { resolve(character) != nil }

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
    public static func noFontHas(_ character: Character) -> String {
        let codes = character.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "no font has \"\(character)\" (\(codes.joined(separator: " ")))"
    }

    /// Characters no font has that were not told yet (each is told once).
    public func takeMissing() -> [Character] {
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

    // MARK: - Rasterizing

    /// The key of a glyph of `face` whose pen is at `pen` (1/64 pixel), and the pixel its picture
    /// stands at: a quarter-pixel phase for an upright outline, the nearest whole pixel for a
    /// posed one (a pose is a moment of the dance; phases would make four times the pictures)
    /// and for a colour emoji (a resampled bitmap, whose phases differ only in blur). A colour
    /// emoji is sized but not turned.
    func key(face: Int, glyph: UInt32, pen: Int, pose: GlyphPose, centre: Int) -> (key: GlyphKey, x: Int) {
        let outline = faces[face].bitmapScale == nil
        let pose = outline ? pose : GlyphPose(tiltSteps: 0, scaleSteps: pose.scaleSteps)
        let (x, phase) = outline && pose == .upright ? Self.pixelAndPhase(pen) : ((pen + Self.unitsPerPixel / 2) >> 6, 0)
        return (GlyphKey(stack: identity, face: Int16(face), phase: UInt8(phase), pose: pose, glyph: glyph,
                         centre: pose == .upright ? 0 : Int32(clamping: centre)), x)
    }

    /// Whether the glyphs of a key are drawn in their own colours (emoji), not in the ink's.
    func drawsInOwnColours(_ key: GlyphKey) -> Bool { faces[Int(key.face)].bitmapScale != nil }

    /// The picture of a glyph key of this stack (nil: the font cannot draw it).
    func rasterize(_ key: GlyphKey) -> GlyphImage? {
        precondition(key.stack == identity, "a glyph key of another font stack")
        return rasterize(faces[Int(key.face)], glyph: key.glyph, phase: Int(key.phase), pose: key.pose,
                         centre: Int(key.centre))
    }

    private func rasterize(_ face: Face, glyph: UInt32, phase: Int, pose: GlyphPose, centre: Int) -> GlyphImage? {
        if let scale = face.bitmapScale {
            return rasterizeColour(face, glyph: glyph, scale: scale * pose.scale)
        }
        // Turn about the centre (half the x-height up), then shift by the phase.
        let cosine = cos(pose.tilt) * pose.scale, sine = sin(pose.tilt) * pose.scale
        var matrix = FT_Matrix(xx: FT_Fixed(cosine * 65536), xy: FT_Fixed(-sine * 65536),
                               yx: FT_Fixed(sine * 65536), yy: FT_Fixed(cosine * 65536))
        let centreX = Double(centre), centreY = Double(pixelSize * 64) * 0.35
        var delta = FT_Vector(
            x: FT_Pos((centreX - (cosine * centreX - sine * centreY)).rounded()) + FT_Pos(phase * 16),
            y: FT_Pos((centreY - (sine * centreX + cosine * centreY)).rounded()))
        if pose == .upright {
            FT_Set_Transform(face.handle, nil, &delta)
        } else {
            FT_Set_Transform(face.handle, &matrix, &delta)
        }
        defer { FT_Set_Transform(face.handle, nil, nil) }
        guard FT_Load_Glyph(face.handle, glyph, mq_ft_load_light | mq_ft_load_render) == 0 else { return nil }
        let slot = face.handle.pointee.glyph.pointee
        let bitmap = slot.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        var coverage = [UInt8](repeating: 0, count: width * height)
        if let buffer = bitmap.buffer, width > 0 {
            for row in 0..<height {
                for column in 0..<width { coverage[row * width + column] = buffer[row * pitch + column] }
            }
        }
        return GlyphImage(width: width, height: height, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
                          pixels: .coverage(coverage))
    }

    /// A colour emoji from the font's one strike, resampled to the text size (bilinear, several
    /// samples per target pixel when shrinking), premultiplied.
    private func rasterizeColour(_ face: Face, glyph: UInt32, scale: Double) -> GlyphImage? {
        guard FT_Load_Glyph(face.handle, glyph, mq_ft_load_colour | mq_ft_load_render) == 0 else { return nil }
        let slot = face.handle.pointee.glyph.pointee
        let bitmap = slot.bitmap
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue), let buffer = bitmap.buffer else { return nil }
        let sourceWidth = Int(bitmap.width), sourceHeight = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        let width = Int((Double(sourceWidth) * scale).rounded(.up))
        let height = Int((Double(sourceHeight) * scale).rounded(.up))
        guard width > 0, height > 0 else { return nil }
        func sample(_ x: Double, _ y: Double, _ channel: Int) -> Double {
            let cx = min(max(x - 0.5, 0), Double(sourceWidth - 1)), cy = min(max(y - 0.5, 0), Double(sourceHeight - 1))
            let x0 = Int(cx), y0 = Int(cy), x1 = min(x0 + 1, sourceWidth - 1), y1 = min(y0 + 1, sourceHeight - 1)
            let fx = cx - Double(x0), fy = cy - Double(y0)
            func at(_ x: Int, _ y: Int) -> Double { Double(buffer[y * pitch + x * 4 + channel]) }
            return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy
        }
        let samples = max(1, Int((1 / scale).rounded(.up)))
        var pixels = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var sums = (0.0, 0.0, 0.0, 0.0)
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let px = (Double(x) + (Double(sx) + 0.5) / Double(samples)) / scale
                        let py = (Double(y) + (Double(sy) + 0.5) / Double(samples)) / scale
                        guard px >= 0, px < Double(sourceWidth) else { continue }
                        sums.0 += sample(px, py, 0)
                        sums.1 += sample(px, py, 1)
                        sums.2 += sample(px, py, 2)
                        sums.3 += sample(px, py, 3)
                    }
                }
                let n = Double(samples * samples)
                func byte(_ value: Double) -> UInt32 { UInt32(min(255, (value / n).rounded())) }
                pixels[y * width + x] = byte(sums.3) << 24 | byte(sums.2) << 16 | byte(sums.1) << 8 | byte(sums.0)
            }
        }
        return GlyphImage(width: width, height: height, left: Int((Double(slot.bitmap_left) * scale).rounded()),
                          top: Int((Double(slot.bitmap_top) * scale).rounded()), pixels: .colour(pixels))
    }
}

/// The characters a font file has, as ranges of code points, read from its character map once
/// per process (for every font stack) and kept: a few hundred bytes per font, where an open
/// font keeps its file mapped and its tables in memory.
struct FontCoverage: Sendable {
    private var ranges: [ClosedRange<UInt32>] = []

    func contains(_ value: UInt32) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(value)
    }

    private static let known = Mutex<[String: FontCoverage]>([:])

    /// The coverage of the font at `path` (none when FreeType cannot open it).
    static func of(fontAt path: String) -> FontCoverage {
        if let coverage = known.withLock({ $0[path] }) { return coverage }
        let coverage = read(path)
        known.withLock { $0[path] = coverage }
        return coverage
    }

    private static func read(_ path: String) -> FontCoverage {
        var coverage = FontCoverage()
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return coverage }
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else { return coverage }
        defer { FT_Done_Face(face) }
        var glyph: FT_UInt = 0
        var code = FT_Get_First_Char(face, &glyph)
        while glyph != 0 {
            let value = UInt32(truncatingIfNeeded: code)
            if let last = coverage.ranges.last, last.upperBound &+ 1 == value {
                coverage.ranges[coverage.ranges.count - 1] = last.lowerBound...value
            } else if coverage.ranges.last.map({ $0.upperBound < value }) ?? true {
                coverage.ranges.append(value...value)
            }
            code = FT_Get_Next_Char(face, code, &glyph)
        }
        return coverage
    }
}

/// A font file mapped into memory once per process, read-only, for every font stack and for
/// both FreeType and HarfBuzz: the band's, the box's and the line's fonts share its pages
/// (each stack opening the file itself kept up to six mappings of it). Never unmapped: a font
/// opened once is kept by the stacks that use it.
final class FontFile: @unchecked Sendable {
    /// Read-only memory that stays mapped: safe to read from any thread.
    let bytes: UnsafePointer<FT_Byte>
    let count: Int
    /// HarfBuzz's face of the file (nil: HarfBuzz cannot read it), shared by the stacks' fonts
    /// for shaping, so the tables HarfBuzz loads and the lookups it prepares are kept once, not
    /// once a stack. HarfBuzz's faces may be used from any thread.
    let harfBuzzFace: OpaquePointer?

    private init(bytes: UnsafePointer<FT_Byte>, count: Int) {
        self.bytes = bytes
        self.count = count
        let blob = hb_blob_create(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self),
                                  UInt32(truncatingIfNeeded: count), HB_MEMORY_MODE_READONLY, nil, nil)
        defer { hb_blob_destroy(blob) }
        harfBuzzFace = hb_face_create(blob, 0)
    }

    private static let files = Mutex<[String: FontFile]>([:])

    /// The file at `path` mapped (nil: it cannot be read).
    static func mapped(_ path: String) -> FontFile? {
        files.withLock { files in
            if let known = files[path] { return known }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_size > 0,
                  let mapping = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
                return nil
            }
            let file = FontFile(bytes: UnsafePointer(mapping.assumingMemoryBound(to: FT_Byte.self)), count: Int(status.st_size))
            files[path] = file
            return file
        }
    }
}
