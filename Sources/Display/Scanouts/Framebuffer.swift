import CLinux
import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The framebuffer could not be used.
package struct FramebufferError: Error, CustomStringConvertible {
    package var description: String
}

/// Pixels that end up on a screen: a Linux framebuffer device (`/dev/fb0`) mapped into
/// memory, a file laid out like one (tests), or plain memory (snapshots). Geometry and
/// pixel layout come from the driver; the stride may be wider than the visible width. It
/// draws into the very memory scanned out, right after the vertical blank where the device
/// can wait for it: a fallback where there is no KMS.
package final class Framebuffer: Scanout {
    /// How frames are paced on this device, as measured when it was opened.
    package enum Pacing: Sendable, Hashable, CustomStringConvertible {
        /// FBIO_WAITFORVSYNC really waits for the vertical blank.
        case verticalBlank(hertz: Double)
        /// Absolute deadlines at the display's rate (no usable vsync wait).
        case timer(hertz: Double)

        var hertz: Double {
            switch self {
            case .verticalBlank(let hertz), .timer(let hertz): hertz
            }
        }

        package var description: String {
            switch self {
            case .verticalBlank(let hertz): "vsync wait, \(Int(hertz.rounded())) Hz"
            case .timer(let hertz): "timer at \(Int(hertz.rounded())) Hz (no vsync)"
            }
        }
    }

    /// The visible screen.
    package let surface: PixelSurface
    let pacing: Pacing
    /// "vesafb", "bochs-drmdrmfb"…, or what the memory stands for.
    package let name: String
    /// The device's path ("/dev/fb0"), the file's, or "memory".
    let path: String
    private let fd: Int32
    /// What the buffer shows of the screen's picture.
    private var contents = BufferContents()
    /// The mode as opened: name, size, depth and stride ("" for files and memory).
    private let mode: String
    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int

    /// Opens and maps a framebuffer device, and makes its mode the one on the display (a DRM
    /// driver that just replaced the firmware framebuffer has not programmed it yet).
    package init(device path: String) throws(FramebufferError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw FramebufferError(description: "\(path): \(String(cString: strerror(errno)))") }
        _ = mq_fb_activate(fd)
        var info = mq_fb_info()
        guard mq_fb_info(fd, &info) == 0 else {
            close(fd)
            throw FramebufferError(description: "\(path): not a framebuffer device")
        }
        let format = PixelFormat(
            bitsPerPixel: Int(info.bits_per_pixel), red: .init(offset: Int(info.red_offset), length: Int(info.red_length)),
            green: .init(offset: Int(info.green_offset), length: Int(info.green_length)),
            blue: .init(offset: Int(info.blue_offset), length: Int(info.blue_length)),
            alpha: .init(offset: Int(info.alpha_offset), length: Int(info.alpha_length)))
        if let reason = format.unsupportedReason {
            close(fd)
            throw FramebufferError(description: "\(path): unsupported pixel layout: \(reason)")
        }
        let length = Int(info.line_length) * Int(info.virtual_height)
        guard info.visual == 2, info.width > 0, info.height > 0, length > 0,
              Int(info.line_length) >= Int(info.width) * format.bytesPerPixel,
              length <= Int(info.memory_length) || info.memory_length == 0 else {
            close(fd)
            throw FramebufferError(description: "\(path): unusable mode (\(info.width)x\(info.height), visual \(info.visual), line \(info.line_length) bytes)")
        }
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            close(fd)
            throw FramebufferError(description: "\(path): cannot map its memory: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.path = path
        mapping = mapped
        mappingLength = length
        name = Self.id(info)
        mode = Self.mode(info)
        surface = PixelSurface(
            base: mapped + Int(info.y_offset) * Int(info.line_length) + Int(info.x_offset) * format.bytesPerPixel,
            width: Int(info.width), height: Int(info.height), bytesPerRow: Int(info.line_length), format: format)
        let hertz = Self.refreshRate(info)
        pacing = Self.vsyncWaits(fd) ? .verticalBlank(hertz: hertz) : .timer(hertz: hertz)
    }

    /// A framebuffer in a file (created or resized to `bytesPerRow · height`), shared with
    /// whoever else maps it.
    package init(file path: String, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat) throws(FramebufferError) {
        let length = bytesPerRow * height
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0, ftruncate(fd, off_t(length)) == 0,
              let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            if fd >= 0 { close(fd) }
            throw FramebufferError(description: "\(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.path = path
        mapping = mapped
        mappingLength = length
        name = "file"
        mode = ""
        surface = PixelSurface(base: mapped, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        pacing = .timer(hertz: 60)
    }

    /// A framebuffer in memory (snapshots).
    package init(width: Int, height: Int, format: PixelFormat = .xrgb8888) {
        let bytesPerRow = width * format.bytesPerPixel
        mappingLength = max(1, bytesPerRow * height)
        mapping = UnsafeMutableRawPointer.allocate(byteCount: mappingLength, alignment: 16)
        mapping.initializeMemory(as: UInt8.self, repeating: 0, count: mappingLength)
        fd = -1
        path = "memory"
        name = "memory"
        mode = ""
        surface = PixelSurface(base: mapping, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        pacing = .timer(hertz: 60)
    }

    deinit {
        if fd >= 0 {
            munmap(mapping, mappingLength)
            close(fd)
        } else {
            mapping.deallocate()
        }
    }

    /// Why this mapping no longer is the screen, or nil while it is: the driver let go of the
    /// device (a DRM driver took over from efifb/vesafb/simplefb: the old device answers no
    /// more), or its mode changed. Then the device must be opened again.
    package func replacement() -> String? {
        guard !mode.isEmpty else { return nil }
        var info = mq_fb_info()
        guard mq_fb_info(fd, &info) == 0 else {
            return "\(path): \(name) is gone (\(String(cString: strerror(errno))))"
        }
        let now = Self.mode(info)
        return now == mode ? nil : "\(path): the mode changed from \(mode) to \(now)"
    }

    private static func mode(_ info: mq_fb_info) -> String {
        "\(id(info)) \(info.width)x\(info.height) \(info.bits_per_pixel) bpp, \(info.line_length) bytes a row"
    }

    /// The driver's name for the device ("VESA VGA", "bochs-drmdrmfb").
    private static func id(_ info: mq_fb_info) -> String {
        withUnsafeBytes(of: info.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// From the mode's timings; 60 Hz when the driver gives none (DRM emulation).
    static func refreshRate(_ info: mq_fb_info) -> Double {
        let lines = Double(info.upper_margin + info.lower_margin + info.height + info.vsync_len)
        let columns = Double(info.left_margin + info.right_margin + info.width + info.hsync_len)
        guard info.pixclock > 0, lines > 0, columns > 0 else { return 60 }
        let hertz = 1e12 / (lines * columns * Double(info.pixclock))
        return (30...240).contains(hertz) ? hertz : 60
    }

    /// Some drivers answer FBIO_WAITFORVSYNC at once without waiting; time 20 calls and
    /// trust it only if they take a few milliseconds on average.
    static func vsyncWaits(_ fd: Int32) -> Bool {
        let start = readClock(CLOCK_MONOTONIC)
        for _ in 0..<20 where mq_fb_wait_for_vsync(fd) != 0 { return false }
        return (readClock(CLOCK_MONOTONIC) - start) / 20 >= 5_000_000
    }

    // MARK: - Scanout

    package var width: Int { surface.width }
    package var height: Int { surface.height }
    package var format: PixelFormat { surface.format }
    package var refreshPeriod: Nanoseconds { Nanoseconds((1e9 / pacing.hertz).rounded()) }
    package var description: String { "framebuffer \(path) (\(name)) \(width)x\(height) \(format), \(pacing)" }
    /// Drawn where the display reads: no page flips.
    package var pageFlips: PageFlipFigures? { nil }
    /// Whether it is seen is the console's business.
    package var isShowing: Bool { true }

    /// The frame is copied right after its deadline (and the vertical blank, where there is a
    /// wait that works): it is seen then.
    package func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant { due }

    /// Copies the layers the screen lacks, right after the vertical blank where the device can
    /// wait for it.
    package func show(_ picture: ScanoutPicture) {
        guard contents.lacks(picture) else { return }
        if case .verticalBlank = pacing { _ = mq_fb_wait_for_vsync(fd) }
        contents.update(surface, to: picture)
    }

    /// Checked by `replacement()` when it is next asked.
    package func deviceChanged() {}

    /// The console repaints its text while away; the screen's next picture is drawn in full.
    package func consoleShown(_ shown: Bool) {}

    /// FBIOBLANK: a DRM driver's framebuffer powers the display (DPMS); firmware framebuffers
    /// (efifb, vesafb, simplefb), files and memory cannot.
    package func setPowered(_ powered: Bool) throws(ScreenPowerError) -> String {
        guard mq_fb_blank(fd, powered ? 0 : 1) == 0 else {
            throw ScreenPowerError("\(path) (\(name)) cannot be blanked: \(String(cString: strerror(errno)))")
        }
        if powered { contents.invalidate() }
        return "FBIOBLANK"
    }
}
