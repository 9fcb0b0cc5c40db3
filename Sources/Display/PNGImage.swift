import CZlib

/// A picture of a framebuffer as a PNG file (8-bit RGB): what `marquee snapshot` writes.
public enum PNGImage {
    /// The pixels of `surface`, read through its format.
    public static func encode(_ surface: PixelSurface) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((surface.width * 3 + 1) * surface.height)
        for y in 0..<surface.height {
            raw.append(0)
            for x in 0..<surface.width {
                let colour = surface.format.unpack(surface.pixel(x: x, y: y))
                raw += [colour.red, colour.green, colour.blue]
            }
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compress2(&compressed, &compressedLength, raw, uLong(raw.count), 6)
        precondition(status == Z_OK, "zlib could not compress \(raw.count) bytes")
        var header: [UInt8] = []
        append(UInt32(surface.width), to: &header)
        append(UInt32(surface.height), to: &header)
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
