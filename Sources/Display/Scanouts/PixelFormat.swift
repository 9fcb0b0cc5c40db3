import Marquee
import Support

/// How a framebuffer stores one pixel, as its driver describes it (bits per pixel and where
/// each colour channel sits). Nothing is assumed: RGB565, XRGB8888, 24-bit and BGR orders
/// all come out of the same bitfields.
package struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    package struct Channel: Hashable, Sendable {
        package var offset: Int
        package var length: Int

        package init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }

        var mask: UInt32 { length == 0 ? 0 : (UInt32(1) << UInt32(length) - 1) << UInt32(offset) }

        func encode(_ value: UInt8) -> UInt32 {
            guard length > 0 else { return 0 }
            return (UInt32(value) >> UInt32(8 - length)) << UInt32(offset)
        }

        func decode(_ pixel: UInt32) -> UInt8 {
            guard length > 0 else { return 0 }
            let raw = (pixel >> UInt32(offset)) & (UInt32(1) << UInt32(length) - 1)
            return UInt8(raw * 255 / (UInt32(1) << UInt32(length) - 1))
        }
    }

    var bitsPerPixel: Int
    package var red: Channel
    package var green: Channel
    package var blue: Channel
    /// Set to all ones in every pixel drawn (some scanouts honour it).
    package var alpha: Channel

    package init(bitsPerPixel: Int, red: Channel, green: Channel, blue: Channel, alpha: Channel = .init(offset: 0, length: 0)) {
        self.bitsPerPixel = bitsPerPixel
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    package static let xrgb8888 = PixelFormat(bitsPerPixel: 32, red: .init(offset: 16, length: 8),
                                             green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
    package static let rgb565 = PixelFormat(bitsPerPixel: 16, red: .init(offset: 11, length: 5),
                                           green: .init(offset: 5, length: 6), blue: .init(offset: 0, length: 5))

    /// Why marquee cannot draw in this format, or nil if it can.
    var unsupportedReason: String? {
        guard [16, 24, 32].contains(bitsPerPixel) else { return "\(bitsPerPixel) bits per pixel (need 16, 24 or 32)" }
        for channel in [red, green, blue] where channel.length < 1 || channel.length > 8
            || channel.offset + channel.length > bitsPerPixel {
            return "a colour channel of \(channel.length) bits at bit \(channel.offset)"
        }
        return nil
    }

    package var bytesPerPixel: Int { bitsPerPixel / 8 }

    /// The stored value of a colour.
    func pack(_ colour: Colour) -> UInt32 {
        red.encode(colour.red) | green.encode(colour.green) | blue.encode(colour.blue) | alpha.mask
    }

    func unpack(_ pixel: UInt32) -> Colour {
        Colour(red: red.decode(pixel), green: green.decode(pixel), blue: blue.decode(pixel))
    }

    /// "RGB565", "XRGB8888", "BGR888"…: the channels from the highest bit down.
    package var description: String {
        var channels = [("R", red), ("G", green), ("B", blue)]
        if alpha.length > 0 { channels.append(("A", alpha)) }
        let used = channels.reduce(0) { $0 + $1.1.length }
        if used < bitsPerPixel, alpha.length == 0 {
            let free = (0..<bitsPerPixel).filter { bit in channels.allSatisfy { $0.1.mask & (1 << UInt32(bit)) == 0 } }
            if let low = free.min() { channels.append(("X", Channel(offset: low, length: free.count))) }
        }
        channels.sort { $0.1.offset > $1.1.offset }
        return channels.map(\.0).joined() + channels.map { String($0.1.length) }.joined()
    }
}

/// A rectangle of pixels in a device's format, rows `bytesPerRow` apart.
package struct PixelSurface {
    package var base: UnsafeMutableRawPointer
    package var width: Int
    package var height: Int
    var bytesPerRow: Int
    package var format: PixelFormat

    package init(base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat) {
        self.base = base
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
    }

    @inline(__always) func pixel(x: Int, y: Int) -> UInt32 {
        let address = base + y * bytesPerRow + x * format.bytesPerPixel
        switch format.bytesPerPixel {
        case 2: return UInt32(address.loadUnaligned(as: UInt16.self))
        case 3: return UInt32(address.load(as: UInt8.self)) | UInt32(address.load(fromByteOffset: 1, as: UInt8.self)) << 8
            | UInt32(address.load(fromByteOffset: 2, as: UInt8.self)) << 16
        default: return address.loadUnaligned(as: UInt32.self)
        }
    }

    @inline(__always) func set(x: Int, y: Int, to value: UInt32) {
        let address = base + y * bytesPerRow + x * format.bytesPerPixel
        switch format.bytesPerPixel {
        case 2: address.storeBytes(of: UInt16(truncatingIfNeeded: value), as: UInt16.self)
        case 3:
            address.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            address.storeBytes(of: UInt8(truncatingIfNeeded: value >> 8), toByteOffset: 1, as: UInt8.self)
            address.storeBytes(of: UInt8(truncatingIfNeeded: value >> 16), toByteOffset: 2, as: UInt8.self)
        default: address.storeBytes(of: value, as: UInt32.self)
        }
    }

    /// Every pixel of rows `rows` set to `value`.
    func fill(rows: Range<Int>, with value: UInt32) {
        guard !rows.isEmpty else { return }
        if value == 0 {
            for y in rows { (base + y * bytesPerRow).initializeMemory(as: UInt8.self, repeating: 0, count: width * format.bytesPerPixel) }
            return
        }
        for y in rows { for x in 0..<width { set(x: x, y: y, to: value) } }
    }

    /// Copies `source` (same format and width) to rows starting at `top`, one `memcpy` per row.
    func copy(_ source: PixelSurface, toRow top: Int) {
        let rowBytes = min(width, source.width) * format.bytesPerPixel
        for row in 0..<source.height where top + row >= 0 && top + row < height {
            (base + (top + row) * bytesPerRow).copyMemory(from: source.base + row * source.bytesPerRow, byteCount: rowBytes)
        }
    }
}
