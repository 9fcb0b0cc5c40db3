import Marquee
import Support
import Testing

@testable import Display

/// Pixel layouts from the driver's bitfields.
@Suite struct PixelFormatTests {
    static let bgr888 = PixelFormat(bitsPerPixel: 24, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
                                    blue: .init(offset: 16, length: 8))
    static let vfb = PixelFormat(bitsPerPixel: 32, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
                                 blue: .init(offset: 16, length: 8), alpha: .init(offset: 24, length: 8))

    @Test func packsByTheBitfields() {
        let orange = Colour(red: 255, green: 128, blue: 8)
        #expect(PixelFormat.rgb565.pack(orange) == 0b11111_100000_00001)
        #expect(PixelFormat.xrgb8888.pack(orange) == 0x00FF_8008)
        #expect(Self.bgr888.pack(orange) == 0x08_80FF)
        #expect(Self.vfb.pack(orange) == 0xFF08_80FF)
        #expect(PixelFormat.xrgb8888.unpack(0x00FF_8008) == orange)
        #expect(PixelFormat.rgb565.unpack(PixelFormat.rgb565.pack(orange)) == Colour(red: 255, green: 129, blue: 8))
    }

    @Test func describesItself() {
        #expect(PixelFormat.rgb565.description == "RGB565")
        #expect(PixelFormat.xrgb8888.description == "XRGB8888")
        #expect(Self.bgr888.description == "BGR888")
        #expect(Self.vfb.description == "ABGR8888")
    }

    @Test func refusesWhatItCannotDraw() {
        #expect(PixelFormat.rgb565.unsupportedReason == nil)
        #expect(PixelFormat(bitsPerPixel: 8, red: .init(offset: 5, length: 3), green: .init(offset: 2, length: 3),
                            blue: .init(offset: 0, length: 2)).unsupportedReason != nil)
        #expect(PixelFormat(bitsPerPixel: 16, red: .init(offset: 0, length: 0), green: .init(offset: 5, length: 6),
                            blue: .init(offset: 0, length: 5)).unsupportedReason != nil)
    }

    /// 24-bit pixels are stored as three bytes, low byte first, and read back the same.
    @Test func threeBytePixelsRoundTrip() {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 30, alignment: 4)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: 30)
        let surface = PixelSurface(base: memory, width: 3, height: 2, bytesPerRow: 15, format: Self.bgr888)
        surface.set(x: 1, y: 1, to: 0x0A_0B0C)
        #expect(memory.load(fromByteOffset: 18, as: UInt8.self) == 0x0C)
        #expect(memory.load(fromByteOffset: 20, as: UInt8.self) == 0x0A)
        #expect(surface.pixel(x: 1, y: 1) == 0x0A_0B0C)
        #expect(surface.pixel(x: 2, y: 1) == 0)
    }
}
