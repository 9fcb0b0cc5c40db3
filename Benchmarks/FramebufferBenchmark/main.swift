// The pixel display's cost on a 1920x1080 screen with 135 px text (release build):
//   swift run -c release framebuffer-benchmark [--size WxH]
// 1. Rendering one frame of the band (glyphs at quarter-pixel positions, in the device's
//    format) against a plain memcpy of a band of the same size, in the same run; the frame's
//    glyphs are made ready before (as the display loop does ahead of the deadline), which is
//    timed on its own.
// 2. CPU used when frames are drawn at 60 per second for 10 s at absolute deadlines (making
//    ready, render and copy to an in-memory screen), as a share of one core.
// 3. The glyph cache (budget 4 MB) while 200 distinct characters scroll past: its size and
//    how often it had what a frame needed.
// 4. (Printed first.) The memory of a 1024x768 RGB565 display (a kiosk's vesafb) of its own, from before its
//    fonts are opened to after 10 minutes of frames of every script, emoji and a dance (a
//    simulated clock: 36,000 frames drawn as fast as they go). The installed service's whole
//    peak memory is measured on a real kernel: scripts/kiosk-system-test --variants soak.
// 5. (Printed last.) The KMS screen at 800x480 to 3840x2160 (or the --size given), text 1/8 of
//    the height: a frame rendered and copied into a back buffer the size of a dumb buffer
//    (what each page flip costs) against a memcpy of the band, and its glyph cache while
//    every script and emoji scroll past.
import Display
import Foundation
import Marquee
import Support

let origin = SteadyInstant(sinceOrigin: 1_800_000_000 * 1_000_000_000)
let frameNanoseconds: Nanoseconds = 16_666_667

func nanoseconds() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

func cpuNanoseconds() -> Int64 {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func ns(_ time: timeval) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_usec) * 1000 }
    return ns(usage.ru_utime) + ns(usage.ru_stime)
}

func display(_ format: PixelFormat, messages: [MarqueeMessage], width: Int = 1920, height: Int = 1080) throws
    -> (Framebuffer, PixelScreen, MarqueeController)
{
    let framebuffer = Framebuffer(width: width, height: height, format: format)
    let screen = try PixelScreen(scanout: framebuffer)
    let controller = MarqueeController(metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 5),
                                       origin: origin)
    controller.update(messages: messages, at: origin, width: screen.bandWidth)
    return (framebuffer, screen, controller)
}

let scrolling = [
    MarqueeMessage(text: "It's night-time right now. You should be in bed."),
    MarqueeMessage(text: "Christmas Eve: the family comes for dinner at 6."),
]
let dancing = scrolling + [MarqueeMessage(text: "🎂 It's Johnny's birthday! He turns 37 today.",
                                          colour: Colour(red: 255, green: 105, blue: 180), effect: .dance)]

/// Every script a family may write in, shaped (HarfBuzz, FriBidi, Noto's fonts).
let scripts = ["Doctor 今天下午三点 at ten", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "Family 👨‍👩‍👧 visit 👍🏽 1️⃣",
               "日本語のテスト"].map { MarqueeMessage(text: $0) }

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Shaping happens once, when a message is laid on the tape: how long that takes.
func shapingOnce() throws {
    let (_, screen, _) = try display(.xrgb8888, messages: scripts)
    var times: [Double] = []
    for _ in 0..<50 {
        for message in scripts {
            let start = nanoseconds()
            _ = screen.fonts.layout(message.text)
            times.append(Double(nanoseconds() - start) / 1000)
        }
    }
    print(String(format: "shaping a message (mixed scripts, once when it is laid on the tape): median %.0f µs, max %.0f µs",
                 median(times), times.max() ?? 0))
}

func renderVersusCopy(_ format: PixelFormat, _ messages: [MarqueeMessage], label: String) throws {
    let (_, screen, controller) = try display(format, messages: messages)
    let bandBytes = 1920 * screen.bandHeight * format.bytesPerPixel
    let source = UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64)
    let target = UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64)
    source.initializeMemory(as: UInt8.self, repeating: 1, count: bandBytes)
    target.initializeMemory(as: UInt8.self, repeating: 0, count: bandBytes)
    var renders: [Double] = [], presents: [Double] = [], copies: [Double] = [], preparations: [Double] = []
    // Warm the glyph cache over one full pass of the tape, as a running display has.
    for step in 0..<3000 {
        let frame = controller.frame(at: origin + Nanoseconds(step) * frameNanoseconds, width: screen.bandWidth,
                                     includingPartialGlyphs: true)
        screen.prepare(frame)
        _ = screen.render(frame)
    }
    for step in 3000..<4200 {
        let frame = controller.frame(at: origin + Nanoseconds(step) * frameNanoseconds, width: screen.bandWidth,
                                     includingPartialGlyphs: true)
        var start = nanoseconds()
        screen.prepare(frame)
        preparations.append(Double(nanoseconds() - start) / 1000)
        start = nanoseconds()
        screen.render(frame)
        renders.append(Double(nanoseconds() - start) / 1000)
        start = nanoseconds()
        screen.present()
        presents.append(Double(nanoseconds() - start) / 1000)
        start = nanoseconds()
        target.copyMemory(from: source, byteCount: bandBytes)
        copies.append(Double(nanoseconds() - start) / 1000)
    }
    let render = median(renders), copy = median(copies)
    func p99(_ values: [Double]) -> Double { values.sorted()[values.count * 99 / 100] }
    let cache = screen.glyphCache!
    print(String(format: "%@ %@: band 1920x%d (%d KB): render %.0f µs (p99 %.0f, max %.0f), copy to screen %.0f µs, plain memcpy %.0f µs -> render = %.2f x memcpy; made ready before: median %.0f µs, p99 %.0f, max %.0f; cache %.1f MB, %.1f %% found",
                 label, format.description, screen.bandHeight, bandBytes / 1024, render, p99(renders), renders.max() ?? 0,
                 median(presents), copy, render / copy, median(preparations), p99(preparations), preparations.max() ?? 0,
                 Double(cache.bytes) / 1_048_576, Double(cache.found) / Double(max(1, cache.lookups)) * 100))
    source.deallocate()
    target.deallocate()
}

func cpuAtSixtyFramesPerSecond(_ format: PixelFormat, _ messages: [MarqueeMessage], label: String) throws {
    let (_, screen, controller) = try display(format, messages: messages)
    let seconds = 10
    let wallStart = nanoseconds(), cpuStart = cpuNanoseconds()
    var late = 0
    for frame in 0..<(60 * seconds) {
        let deadline = wallStart + Int64(frame) * frameNanoseconds
        var wait = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wait, nil)
        if nanoseconds() - deadline > frameNanoseconds / 2 { late += 1 }
        let t = origin + Nanoseconds(frame) * frameNanoseconds
        screen.show(controller.frame(at: t, width: screen.bandWidth, includingPartialGlyphs: true))
        screen.prepare(controller.frame(at: t + frameNanoseconds, width: screen.bandWidth, includingPartialGlyphs: true))
    }
    let wall = Double(nanoseconds() - wallStart), cpu = Double(cpuNanoseconds() - cpuStart)
    print(String(format: "%@ %@: 60 frames/s for %d s: CPU %.1f %% of one core, %d of %d frames late by more than half a frame",
                 label, format.description, seconds, cpu / wall * 100, late, 60 * seconds))
}

/// A message of 200 distinct characters scrolled past completely, so each was drawn at every
/// quarter-pixel phase it met.
func glyphCacheFor200Characters(_ format: PixelFormat) throws {
    let characters = (0x21...0x7E).map { Character(Unicode.Scalar($0)!) }
        + (0xC0...0xFF).map { Character(Unicode.Scalar($0)!) }
        + (0x410...0x44F).map { Character(Unicode.Scalar($0)!) }
    let chosen = String(characters.prefix(200))
    let (_, screen, controller) = try display(format, messages: [MarqueeMessage(text: chosen)])
    // 200 characters at 5 per second pass in 40 s; 60 s of frames covers them and the seam.
    var largest = 0
    for step in 0..<3600 {
        let frame = controller.frame(at: origin + Nanoseconds(step) * frameNanoseconds, width: screen.bandWidth,
                                     includingPartialGlyphs: true)
        screen.prepare(frame)
        _ = screen.render(frame)
        largest = max(largest, screen.glyphCache!.bytes)
    }
    let cache = screen.glyphCache!
    print(String(format: "glyph cache %@, 200 distinct characters scrolled past at 135 px: %.1f MB at the end, %.1f MB at most (budget %.1f MB), %.1f %% of %d look-ups found",
                 format.description, Double(cache.bytes) / 1_048_576, Double(largest) / 1_048_576,
                 Double(cache.budget) / 1_048_576, Double(cache.found) / Double(max(1, cache.lookups)) * 100, cache.lookups))
}

// First, while the process has allocated nothing yet that a display could reuse.
try memoryAfterTenMinutes()
for format in [PixelFormat.xrgb8888, .rgb565] {
    try renderVersusCopy(format, scrolling, label: "scrolling")
    try renderVersusCopy(format, dancing, label: "with dance")
    try renderVersusCopy(format, scripts, label: "every script")
}
try shapingOnce()
for format in [PixelFormat.xrgb8888, .rgb565] {
    try cpuAtSixtyFramesPerSecond(format, scrolling, label: "scrolling")
    try cpuAtSixtyFramesPerSecond(format, dancing, label: "with dance")
}
for format in [PixelFormat.xrgb8888, .rgb565] { try glyphCacheFor200Characters(format) }
let sizes = CommandLine.arguments.firstIndex(of: "--size").flatMap { index -> [(Int, Int)]? in
    let parts = CommandLine.arguments.dropFirst(index + 1).first?.split(separator: "x").compactMap { Int($0) } ?? []
    return parts.count == 2 ? [(parts[0], parts[1])] : nil
} ?? [(800, 480), (1024, 768), (1280, 800), (1920, 1080), (2560, 1440), (3840, 2160)]
for (width, height) in sizes { try kmsFrames(width: width, height: height) }
for (width, height) in sizes { try carersPicture(width: width, height: height) }
try carersPictureOfATerminal()

/// A terminal's picture is its grid drawn in pixels on the loop's turn (80x24 at 8x16).
func carersPictureOfATerminal() throws {
    let output = Pipe()
    let capabilities = TerminalScreen.Capabilities.detect(
        fd: output.fileHandleForWriting.fileDescriptor, environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"])
    let screen = TerminalScreen(fd: output.fileHandleForWriting.fileDescriptor, capabilities: capabilities)
    let controller = MarqueeController(metrics: TerminalMetrics(), origin: origin)
    controller.update(messages: scripts + scrolling, at: origin, width: 80)
    screen.showOrientation("Monday morning · 23 November 2026")
    try screen.show(controller.frame(at: origin, width: 80))
    _ = output.fileHandleForReading.availableData
    var drawing: [Double] = []
    for _ in 0..<30 {
        let start = nanoseconds()
        guard screen.copyForPicture() != nil else { return }
        drawing.append(Double(nanoseconds() - start) / 1000)
    }
    print(String(format: "carers' picture of an 80x24 terminal: drawn on the loop's turn in median %.0f µs (max %.0f, the first %.0f with the fonts opened)",
                 median(drawing), drawing.max() ?? 0, drawing[0]))
}

/// The carers' picture is taken on the display loop's turn, between two frames: how long it
/// holds the loop (copying the screen's own buffers), and what scaling them to 640 pixels and
/// encoding the PNG costs on the MQTT task.
func carersPicture(width: Int, height: Int) throws {
    let (_, screen, controller) = try display(.xrgb8888, messages: scrolling, width: width, height: height)
    screen.show(controller.frame(at: origin, width: screen.bandWidth, includingPartialGlyphs: true))
    var taking: [Double] = []
    var encoding: [Double] = []
    var size = (0, 0, 0)
    for _ in 0..<30 {
        let start = nanoseconds()
        guard let copy = screen.copyForPicture() else { return }
        let taken = nanoseconds()
        let image = copy.picture(width: 640)
        let png = PNGImage.encode(image)
        taking.append(Double(taken - start) / 1000)
        encoding.append(Double(nanoseconds() - taken) / 1000)
        size = (image.width, image.height, png.count)
    }
    print(String(format: "carers' picture of %dx%d: %dx%d, %d KB PNG; copied on the loop's turn in median %.0f µs (max %.0f), scaled and encoded on the MQTT task in median %.0f µs",
                 width, height, size.0, size.1, size.2 / 1024, median(taking), taking.max() ?? 0, median(encoding)))
}

/// A card on which every flip lands on the next vertical blank of a 60 Hz grid at once: what is
/// left is the KMS screen's own drawing.
final class InstantCard: PageFlipper {
    private var vblank = SteadyInstant(sinceOrigin: 0)
    private var queued = false
    func setMode(showing index: Int) {}
    func flip(to index: Int) { queued = true }
    func waitForFlip(timeout: Nanoseconds) -> SteadyInstant? {
        guard queued else { return nil }
        queued = false
        vblank += frameNanoseconds
        return vblank
    }
    func takeMaster() -> Bool { true }
    func dropMaster() {}
    func setPower(_ on: Bool) {}
}

func kmsFrames(width: Int, height: Int) throws {
    let bytesPerRow = width * 4
    let buffers = (0..<2).map { _ in
        PixelSurface(base: UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * height, alignment: 64), width: width,
                     height: height, bytesPerRow: bytesPerRow, format: .xrgb8888)
    }
    defer { buffers.forEach { $0.base.deallocate() } }
    let scanout = KMSScanout(name: "benchmark", buffers: buffers, refreshPeriod: frameNanoseconds, flipper: InstantCard())
    let screen = try PixelScreen(scanout: scanout)
    let controller = MarqueeController(metrics: screen.metrics, configuration: MarqueeConfiguration(charactersPerSecond: 5),
                                       origin: origin)
    controller.update(messages: scripts + scrolling, at: origin, width: screen.bandWidth)
    let bandBytes = bytesPerRow * screen.bandHeight
    let source = UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64)
    let target = UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64)
    defer { source.deallocate(); target.deallocate() }
    source.initializeMemory(as: UInt8.self, repeating: 1, count: bandBytes)
    target.initializeMemory(as: UInt8.self, repeating: 0, count: bandBytes)
    var frames: [Double] = [], copies: [Double] = [], preparations: [Double] = []
    var warmed: GlyphCacheFigures?
    // Two passes of the tape: the first warms the cache as a running display's is; the second is measured.
    for step in 0..<10_800 {
        let t = origin + Nanoseconds(step) * frameNanoseconds
        let frame = controller.frame(at: screen.presentationTime(ofFrameDueAt: t, now: t), width: screen.bandWidth,
                                     includingPartialGlyphs: true)
        var start = nanoseconds()
        screen.prepare(frame)
        let prepared = nanoseconds() - start
        start = nanoseconds()
        screen.show(frame)
        let shown = nanoseconds() - start
        if step == 5_400 { warmed = screen.glyphCache }
        guard step >= 5_400, step % 4 == 0 else { continue }
        preparations.append(Double(prepared) / 1000)
        frames.append(Double(shown) / 1000)
        start = nanoseconds()
        target.copyMemory(from: source, byteCount: bandBytes)
        copies.append(Double(nanoseconds() - start) / 1000)
    }
    let frame = median(frames), copy = median(copies)
    let cache = screen.glyphCache!, flips = screen.figures.pageFlips!
    let lookups = cache.lookups - (warmed?.lookups ?? 0), found = cache.found - (warmed?.found ?? 0)
    print(String(format: "KMS %dx%d XRGB8888, text %d px, band %d KB: frame (render + copy into the back buffer + flip) %.0f µs (p99 %.0f), band memcpy %.0f µs -> %.2f x memcpy; made ready before: median %.1f µs, p99 %.0f; glyph cache %.1f of %.1f MB, %.2f %% of look-ups found once warm; %d flips",
                 width, height, Int((Double(height) / 8).rounded()), bandBytes / 1024, frame, frames.sorted()[frames.count * 99 / 100],
                 copy, frame / copy, median(preparations), preparations.sorted()[preparations.count * 99 / 100],
                 Double(cache.bytes) / 1_048_576, Double(cache.budget) / 1_048_576,
                 Double(found) / Double(max(1, lookups)) * 100, flips.shown))
}

/// Resident memory of the process's own (not mapped from files), in bytes.
func anonymousResidentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

func memoryAfterTenMinutes() throws {
    let before = anonymousResidentBytes()
    let (framebuffer, screen, controller) = try display(.rgb565, messages: scripts + dancing, width: 1024, height: 768)
    var largest = 0
    for step in 0..<36_000 {
        let t = origin + Nanoseconds(step) * frameNanoseconds
        screen.show(controller.frame(at: t, width: screen.bandWidth, includingPartialGlyphs: true))
        screen.prepare(controller.frame(at: t + frameNanoseconds, width: screen.bandWidth, includingPartialGlyphs: true))
        if step % 600 == 0 { largest = max(largest, anonymousResidentBytes() - before) }
    }
    largest = max(largest, anonymousResidentBytes() - before)
    let surface = framebuffer.surface
    let screenBytes = surface.width * surface.height * surface.format.bytesPerPixel
    print(String(format: "own memory of a 1024x768 RGB565 display after 10 minutes of every script, emoji and a dance: %.1f MB at most (the screen's own %.1f MB of it, glyph cache %.1f MB at the end)",
                 Double(largest) / 1_048_576, Double(screenBytes) / 1_048_576, Double(screen.glyphCache!.bytes) / 1_048_576))
}
