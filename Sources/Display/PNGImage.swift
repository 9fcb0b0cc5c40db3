import CZlib

/// A picture of a framebuffer as a PNG file (8-bit RGB): what `marquee snapshot` writes.
package enum PNGImage {
    /// The pixels of `surface`, read through its format.
    package static func encode(_ surface: PixelSurface) -> [UInt8] {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(surface.width * 3 * surface.height)
        for y in 0..<surface.height {
            for x in 0..<surface.width {
                let colour = surface.format.unpack(surface.pixel(x: x, y: y))
                rgb += [colour.red, colour.green, colour.blue]
            }
        }
        return encode(ScreenImage(width: surface.width, height: surface.height, rgb: rgb))
    }

    /// An image's pixels.
    package static func encode(_ image: ScreenImage) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((image.width * 3 + 1) * image.height)
        for y in 0..<image.height {
            raw.append(0)
            raw += image.rgb[(y * image.width * 3)..<((y + 1) * image.width * 3)]
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compress2(&compressed, &compressedLength, raw, uLong(raw.count), 6)
        precondition(status == Z_OK, "zlib could not compress \(raw.count) bytes")
        var header: [UInt8] = []
        append(UInt32(image.width), to: &header)
        append(UInt32(image.height), to: &header)
        header += [8, 2, 0, 0, 0]
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", header, into: &file)
        chunk("IDAT", Array(compressed[0..<Int(compressedLength)]), into: &file)
        chunk("IEND", [], into: &file)
        return file
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8], into file: inout [UInt8]) {
        append(UInt32(data.count), to: &file)
        let body = Array(type.utf8) + data
        file += body
        append(UInt32(crc32(0, body, uInt(body.count))), to: &file)
    }
}

/// A picture of the screen, red, green and blue bytes row by row.
package struct ScreenImage: Sendable, Hashable {
    package var width: Int
    package var height: Int
    package var rgb: [UInt8]

    package init(width: Int, height: Int, rgb: [UInt8]) {
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// A `width`-wide picture of a `screenWidth`x`screenHeight` screen: the same shape.
    package static func size(width: Int, ofScreen screenWidth: Int, _ screenHeight: Int) -> (width: Int, height: Int) {
        let width = max(1, min(width, screenWidth))
        return (width, max(1, (screenHeight * width + screenWidth / 2) / max(1, screenWidth)))
    }
}

/// A pixel screen's picture as it was drawn: its layers' rows (the band, the box, the line) on
/// black, copied in a moment on the display loop and scaled later elsewhere.
package struct ScreenCopy: Sendable {
    struct Layer: Sendable {
        var rows: Range<Int>
        var bytesPerRow: Int
        var bytes: [UInt8]
    }

    let width: Int
    let height: Int
    let format: PixelFormat
    let black: UInt32
    let layers: [Layer]

    init(width: Int, height: Int, format: PixelFormat, black: UInt32, layers: [Layer]) {
        (self.width, self.height, self.format, self.black, self.layers) = (width, height, format, black, layers)
    }

    /// The same screen all black (it is dark).
    package var darkened: ScreenCopy { ScreenCopy(width: width, height: height, format: format, black: 0, layers: []) }

    /// A screen that is `image` (a screen drawn some other way).
    package init(_ image: ScreenImage) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(image.width * image.height * 4)
        for at in stride(from: 0, to: image.rgb.count, by: 3) {
            bytes += [image.rgb[at + 2], image.rgb[at + 1], image.rgb[at], 0]
        }
        self.init(width: image.width, height: image.height, format: .xrgb8888, black: 0,
                  layers: [Layer(rows: 0..<image.height, bytesPerRow: image.width * 4, bytes: bytes)])
    }

    /// `width` pixels wide, the screen's shape kept: each pixel the average of the screen's
    /// pixels it covers.
    package func picture(width pictureWidth: Int) -> ScreenImage {
        let (outWidth, outHeight) = ScreenImage.size(width: pictureWidth, ofScreen: width, height)
        let black = format.unpack(self.black)
        let bytesPerPixel = format.bytesPerPixel
        /// The screen's pixels that picture pixel `index` of `count` covers along `length`.
        func covered(_ index: Int, of count: Int, along length: Int) -> Range<Int> {
            let start = index * length / count
            return start..<max(start + 1, (index + 1) * length / count)
        }
        var rgb = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        for py in 0..<outHeight {
            let rows = covered(py, of: outHeight, along: height)
            for px in 0..<outWidth {
                let columns = covered(px, of: outWidth, along: width)
                var sum = (red: 0, green: 0, blue: 0)
                for y in rows {
                    guard let layer = layers.first(where: { $0.rows.contains(y) }) else {
                        sum = (sum.red + Int(black.red) * columns.count, sum.green + Int(black.green) * columns.count,
                               sum.blue + Int(black.blue) * columns.count)
                        continue
                    }
                    layer.bytes.withUnsafeBytes { bytes in
                        let row = (y - layer.rows.lowerBound) * layer.bytesPerRow
                        for x in columns {
                            let at = row + x * bytesPerPixel
                            let pixel = bytesPerPixel == 4 ? bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
                                                           : UInt32(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
                            let colour = format.unpack(pixel)
                            sum = (sum.red + Int(colour.red), sum.green + Int(colour.green), sum.blue + Int(colour.blue))
                        }
                    }
                }
                let count = rows.count * columns.count
                let at = (py * outWidth + px) * 3
                rgb[at] = UInt8(sum.red / count)
                rgb[at + 1] = UInt8(sum.green / count)
                rgb[at + 2] = UInt8(sum.blue / count)
            }
        }
        return ScreenImage(width: outWidth, height: outHeight, rgb: rgb)
    }
}
