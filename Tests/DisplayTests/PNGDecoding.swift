import CZlib
import Marquee
import Support

/// Reads the PNG files marquee writes (8-bit RGB, filter type 0), for comparing with goldens.
func decodePNG(_ bytes: [UInt8]) throws -> (width: Int, height: Int, pixels: [Colour]) {
    struct NotOurPNG: Error {}
    guard bytes.count > 8, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw NotOurPNG() }
    func number(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
    var position = 8, width = 0, height = 0
    var compressed: [UInt8] = []
    while position + 8 <= bytes.count {
        let length = number(position)
        let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
        let body = Array(bytes[(position + 8)..<(position + 8 + length)])
        if type == "IHDR" {
            width = number(position + 8)
            height = number(position + 12)
            guard body[8] == 8, body[9] == 2 else { throw NotOurPNG() }
        } else if type == "IDAT" {
            compressed += body
        }
        position += 12 + length
    }
    let stride = width * 3 + 1
    var raw = [UInt8](repeating: 0, count: stride * height)
    var length = uLongf(raw.count)
    guard uncompress(&raw, &length, compressed, uLong(compressed.count)) == Z_OK, Int(length) == raw.count else {
        throw NotOurPNG()
    }
    var pixels: [Colour] = []
    pixels.reserveCapacity(width * height)
    for y in 0..<height {
        guard raw[y * stride] == 0 else { throw NotOurPNG() }
        for x in 0..<width {
            let at = y * stride + 1 + x * 3
            pixels.append(Colour(red: raw[at], green: raw[at + 1], blue: raw[at + 2]))
        }
    }
    return (width, height, pixels)
}
