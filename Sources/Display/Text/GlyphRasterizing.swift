import CFreeType

#if canImport(Glibc)
    import Glibc
#endif

/// Glyph pictures: FreeType renders an outline at its quarter-pixel phase and pose, or
/// resamples a colour emoji's bitmap to the text size.
extension FontStack {
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
