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
