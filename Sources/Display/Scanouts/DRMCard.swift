import CDRM
import CLinux
import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// Which output of a card to drive, as the configuration names it (nil: the first connected
/// connector, its preferred mode).
package struct KMSChoice: Sendable, Hashable {
    /// "HDMI-A-2", "Virtual-1".
    package var connector: String?
    /// "1920x1080@60" or "1920x1080".
    package var mode: String?

    package init(connector: String? = nil, mode: String? = nil) {
        self.connector = connector
        self.mode = mode
    }
}

/// One DRM card's output driven through libdrm: a connector, the CRTC that feeds it, its mode,
/// and two dumb buffers in memory the display reads (XRGB8888, or RGB565 where the driver
/// takes only that). Opening the card as the first program makes marquee DRM master, which
/// no root is needed for; master is dropped for another console and taken back by the same
/// open file.
final class DRMCard: PageFlipper {
    private let fd: Int32
    let path: String
    let connectorName: String
    private let connectorID: UInt32
    private let crtcID: UInt32
    private var mode: drmModeModeInfo
    private(set) var buffers: [PixelSurface] = []
    private var framebufferIDs: [UInt32] = []
    private var handles: [UInt32] = []
    private var mappings: [(UnsafeMutableRawPointer, Int)] = []
    /// Where the page-flip handler writes each flip's vertical blank.
    private var flips = FlipSlots()

    /// The card's output, its buffers made; throws with what is wrong in words: no such card,
    /// not a KMS driver, no screen connected (`KMSError.noScreen`), no such connector or mode
    /// (with those it has).
    init(path: String, choice: KMSChoice) throws(KMSError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw KMSError("\(path): \(String(cString: strerror(errno)))", code: errno) }
        self.fd = fd
        self.path = path
        var capability: UInt64 = 0
        guard drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &capability) == 0, capability == 1 else {
            close(fd)
            throw KMSError("\(path): the driver has no dumb buffers (not a display controller)")
        }
        // The first program to open a card is its master; a card another program holds (a
        // display server, another marquee) cannot be drawn on.
        guard drmIsMaster(fd) != 0 else {
            close(fd)
            throw KMSError("\(path) is held by another program (it is the card's DRM master)", code: EBUSY)
        }
        let output: (connector: UInt32, name: String, crtc: UInt32, mode: drmModeModeInfo)
        do throws(KMSError) {
            output = try Self.findOutput(fd: fd, path: path, choice: choice)
        } catch {
            close(fd)
            throw error
        }
        connectorID = output.connector
        connectorName = output.name
        crtcID = output.crtc
        mode = output.mode
        // From here on the card is whole: a failure is cleaned up by deinit (Swift runs it for
        // an object that throws once initialized; closing here too closed the descriptor twice).
        try makeBuffers(count: 2)
    }

    deinit {
        releaseBuffers()
        flips.releaseAll()
        close(fd)
    }

    /// "1024x768@60".
    var modeName: String { Self.name(of: mode) }

    /// The refresh period from the mode's pixel clock and totals (59.94 Hz is not 60).
    var refreshPeriod: Nanoseconds {
        let pixels = Int64(mode.htotal) * Int64(mode.vtotal)
        guard mode.clock > 0, pixels > 0 else { return 16_666_667 }
        return pixels * 1_000_000 / Int64(mode.clock)
    }

    // MARK: - Finding the output

    static let noScreenCode: Int32 = -1

    /// The connector asked for (or the first connected one), its mode, and a CRTC that can
    /// feed it.
    private static func findOutput(fd: Int32, path: String, choice: KMSChoice) throws(KMSError)
        -> (connector: UInt32, name: String, crtc: UInt32, mode: drmModeModeInfo) {
        guard let resources = drmModeGetResources(fd) else {
            throw KMSError("\(path): not a KMS device (\(String(cString: strerror(errno))))")
        }
        defer { drmModeFreeResources(resources) }
        let crtcs = Array(UnsafeBufferPointer(start: resources.pointee.crtcs, count: Int(resources.pointee.count_crtcs)))
        var seen: [String] = []
        for id in UnsafeBufferPointer(start: resources.pointee.connectors, count: Int(resources.pointee.count_connectors)) {
            guard let connector = drmModeGetConnector(fd, id) else { continue }
            defer { drmModeFreeConnector(connector) }
            let name = connectorName(connector)
            let connected = connector.pointee.connection == DRM_MODE_CONNECTED && connector.pointee.count_modes > 0
            seen.append("\(name) \(connected ? "connected" : "disconnected")")
            if let wanted = choice.connector, wanted != name { continue }
            guard connected else { continue }
            let modes = Array(UnsafeBufferPointer(start: connector.pointee.modes, count: Int(connector.pointee.count_modes)))
            let mode: drmModeModeInfo
            if let wanted = choice.mode {
                guard let found = modes.first(where: { Self.name(of: $0) == wanted || Self.size(of: $0) == wanted }) else {
                    var names: [String] = []
                    for mode in modes where !names.contains(Self.name(of: mode)) { names.append(Self.name(of: mode)) }
                    throw KMSError("\(path) \(name): no mode \(wanted) (it has \(names.joined(separator: ", ")))")
                }
                mode = found
            } else {
                mode = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
            }
            guard let crtc = crtc(for: connector, fd: fd, crtcs: crtcs) else {
                throw KMSError("\(path) \(name): no display controller (CRTC) can drive it")
            }
            return (id, name, crtc, mode)
        }
        if let wanted = choice.connector, !seen.contains(where: { $0.hasPrefix(wanted + " ") }) {
            throw KMSError("\(path): no connector \(wanted) (it has \(seen.joined(separator: ", ")))")
        }
        guard !seen.isEmpty else { throw KMSError("\(path): no connectors (not a display controller)") }
        throw KMSError("\(path): no screen connected (\(seen.joined(separator: ", ")))", code: noScreenCode)
    }

    /// The CRTC the connector's encoder already uses, else the first its encoders can use.
    private static func crtc(for connector: UnsafeMutablePointer<drmModeConnector>, fd: Int32, crtcs: [UInt32]) -> UInt32? {
        if connector.pointee.encoder_id != 0, let encoder = drmModeGetEncoder(fd, connector.pointee.encoder_id) {
            defer { drmModeFreeEncoder(encoder) }
            if encoder.pointee.crtc_id != 0 { return encoder.pointee.crtc_id }
        }
        for id in UnsafeBufferPointer(start: connector.pointee.encoders, count: Int(connector.pointee.count_encoders)) {
            guard let encoder = drmModeGetEncoder(fd, id) else { continue }
            defer { drmModeFreeEncoder(encoder) }
            for (index, crtc) in crtcs.enumerated() where encoder.pointee.possible_crtcs & (1 << UInt32(index)) != 0 {
                return crtc
            }
        }
        return nil
    }

    /// "HDMI-A-2": the kernel's name for the connector's type, and its number among them.
    private static func connectorName(_ connector: UnsafeMutablePointer<drmModeConnector>) -> String {
        let type = drmModeGetConnectorTypeName(connector.pointee.connector_type).map { String(cString: $0) } ?? "Unknown"
        return "\(type)-\(connector.pointee.connector_type_id)"
    }

    private static func size(of mode: drmModeModeInfo) -> String { "\(mode.hdisplay)x\(mode.vdisplay)" }
    private static func name(of mode: drmModeModeInfo) -> String { "\(size(of: mode))@\(mode.vrefresh)" }

    /// Whether the connector driven is still connected and still has the mode: why the output
    /// must be opened again, or nil. Thorough: the driver asks the screen (after a hot-plug
    /// event); else what the kernel knows is read (cheap, for the periodic check: drivers
    /// without hot-plug interrupts poll their connectors themselves).
    func probe(thorough: Bool) -> String? {
        let found = thorough ? drmModeGetConnector(fd, connectorID) : drmModeGetConnectorCurrent(fd, connectorID)
        guard let connector = found else {
            return "\(path) \(connectorName) is gone (\(String(cString: strerror(errno))))"
        }
        defer { drmModeFreeConnector(connector) }
        guard connector.pointee.connection == DRM_MODE_CONNECTED else {
            return "\(path) \(connectorName) was disconnected"
        }
        let modes = UnsafeBufferPointer(start: connector.pointee.modes, count: Int(connector.pointee.count_modes))
        guard modes.contains(where: { Self.name(of: $0) == modeName && $0.hdisplay == mode.hdisplay }) else {
            return "\(path) \(connectorName) no longer has the mode \(modeName)"
        }
        return nil
    }

    /// Whether any connector of the card at `path` has a screen now (for an output that waits).
    static func anyScreenConnected(path: String, choice: KMSChoice) -> String? {
        do throws(KMSError) {
            let fd = open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            let output = try findOutput(fd: fd, path: path, choice: choice)
            return "\(path) \(output.name) was connected (\(name(of: output.mode)))"
        } catch {
            return nil
        }
    }

    // MARK: - Buffers

    private func makeBuffers(count: Int) throws(KMSError) {
        let width = Int(mode.hdisplay), height = Int(mode.vdisplay)
        for _ in 0..<count {
            var made: (handle: UInt32, framebuffer: UInt32, pitch: UInt32, size: UInt64, format: PixelFormat)?
            // XRGB8888 first; RGB565 where the driver takes only that.
            for (format, depth) in [(PixelFormat.xrgb8888, UInt8(24)), (.rgb565, 16)] {
                var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
                guard drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), UInt32(format.bitsPerPixel), 0, &handle,
                                              &pitch, &size) == 0 else { continue }
                var framebuffer: UInt32 = 0
                if drmModeAddFB(fd, UInt32(width), UInt32(height), depth, UInt8(format.bitsPerPixel), pitch, handle,
                                &framebuffer) == 0 {
                    made = (handle, framebuffer, pitch, size, format)
                    break
                }
                drmModeDestroyDumbBuffer(fd, handle)
            }
            guard let made else {
                throw KMSError("\(path): cannot make a \(width)x\(height) buffer: \(String(cString: strerror(errno)))", code: errno)
            }
            handles.append(made.handle)
            framebufferIDs.append(made.framebuffer)
            var offset: UInt64 = 0
            guard drmModeMapDumbBuffer(fd, made.handle, &offset) == 0,
                  let memory = mmap(nil, Int(made.size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)),
                  memory != MAP_FAILED else {
                throw KMSError("\(path): cannot map a buffer: \(String(cString: strerror(errno)))", code: errno)
            }
            mappings.append((memory, Int(made.size)))
            buffers.append(PixelSurface(base: memory, width: width, height: height, bytesPerRow: Int(made.pitch),
                                        format: made.format))
        }
    }

    private func releaseBuffers() {
        for (memory, size) in mappings { munmap(memory, size) }
        for id in framebufferIDs { drmModeRmFB(fd, id) }
        for handle in handles { drmModeDestroyDumbBuffer(fd, handle) }
        mappings = []
        framebufferIDs = []
        handles = []
        buffers = []
    }

    // MARK: - PageFlipper

    func setMode(showing index: Int) throws(KMSError) {
        var connector = connectorID
        guard drmModeSetCrtc(fd, crtcID, framebufferIDs[index], 0, 0, &connector, 1, &mode) == 0 else {
            let code = errno
            let held = code == EACCES || code == EPERM ? " (another program holds the display)" : ""
            throw KMSError("\(path) \(connectorName): cannot set the mode \(modeName): \(String(cString: strerror(code)))\(held)",
                           code: code)
        }
    }

    func flip(to index: Int) throws(KMSError) {
        let slot = flips.queue()
        guard drmModePageFlip(fd, crtcID, framebufferIDs[index], UInt32(DRM_MODE_PAGE_FLIP_EVENT), slot) == 0 else {
            let code = errno
            flips.cancelLast()
            throw KMSError("\(path) \(connectorName): page flip failed: \(String(cString: strerror(code)))", code: code)
        }
    }

    func waitForFlip(timeout: Nanoseconds) -> SteadyInstant? {
        let deadline = readClock(CLOCK_MONOTONIC) + timeout
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, data in
            data?.assumingMemoryBound(to: Int64.self).pointee = Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1000
        }
        let landed = flips.waitForLast { [fd] in
            let left = deadline - readClock(CLOCK_MONOTONIC)
            return left > 0 && mq_wait_readable(fd, left) > 0 && drmHandleEvent(fd, &context) == 0
        }
        return landed.map(SteadyInstant.init(sinceOrigin:))
    }

    func takeMaster() -> Bool { drmSetMaster(fd) == 0 }

    func dropMaster() { _ = drmDropMaster(fd) }

    func setPower(_ on: Bool) throws(KMSError) {
        guard let property = Self.propertyID(named: "DPMS", of: connectorID, fd: fd) else {
            throw KMSError("\(path) \(connectorName): the driver has no DPMS property")
        }
        let level = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        guard drmModeConnectorSetProperty(fd, connectorID, property, level) == 0 else {
            let code = errno
            throw KMSError("\(path) \(connectorName): cannot power the display \(on ? "up" : "down") (DPMS): "
                + String(cString: strerror(code)), code: code)
        }
    }

    /// The id of a connector's property by its name (nil: it has none of that name).
    private static func propertyID(named name: String, of connector: UInt32, fd: Int32) -> UInt32? {
        guard let properties = drmModeObjectGetProperties(fd, connector, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else { return nil }
        defer { drmModeFreeObjectProperties(properties) }
        for id in UnsafeBufferPointer(start: properties.pointee.props, count: Int(properties.pointee.count_props)) {
            guard let property = drmModeGetProperty(fd, id) else { continue }
            defer { drmModeFreeProperty(property) }
            let found = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if found == name { return id }
        }
        return nil
    }
}

/// One slot per page flip queued, handed to libdrm with the flip and written by the page-flip
/// handler with the vertical blank it landed on (-1 until then). A flip whose event comes late
/// (after its wait timed out) writes its own slot, so its time is never taken for the next
/// flip's (one shared slot put the vblank timeline a flip behind for good). A slot is freed
/// once its event came; one that never comes, with the card.
struct FlipSlots {
    private var slots: [UnsafeMutablePointer<Int64>] = []

    /// A slot for the flip about to be queued.
    mutating func queue() -> UnsafeMutablePointer<Int64> {
        let slot = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        slot.pointee = -1
        slots.append(slot)
        return slot
    }

    /// The flip was not queued after all.
    mutating func cancelLast() {
        slots.popLast()?.deallocate()
    }

    /// Handles events (`handleEvents`: one round; false when the wait is over) until the last
    /// flip queued has landed: its time, or nil when the wait ended first or none is queued.
    /// The slots of the flips that landed meanwhile are freed.
    mutating func waitForLast(handleEvents: () -> Bool) -> Int64? {
        guard let last = slots.last else { return nil }
        while last.pointee < 0 {
            guard handleEvents() else { return nil }
        }
        let landed = last.pointee
        slots.removeAll { slot in
            guard slot.pointee >= 0 else { return false }
            slot.deallocate()
            return true
        }
        return landed
    }

    mutating func releaseAll() {
        for slot in slots { slot.deallocate() }
        slots = []
    }
}

/// A KMS card with no screen connected (the television off or on another input at boot):
/// nothing is drawn, the schedule runs on, and the output is opened as soon as a screen is
/// plugged in (the device's hot-plug event, or the periodic check). Laid out for 1920x1080
/// meanwhile.
final class WaitingKMSOutput: Scanout {
    let width = 1920
    let height = 1080
    let format = PixelFormat.xrgb8888
    let refreshPeriod: Nanoseconds = 16_666_667
    let isShowing = false
    let pageFlips: PageFlipFigures? = nil
    private let path: String
    private let choice: KMSChoice

    init(path: String, choice: KMSChoice) {
        self.path = path
        self.choice = choice
    }

    var description: String { "KMS \(path): no screen connected" }

    func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant { due }
    func show(_ picture: ScanoutPicture) {}

    func replacement() -> String? {
        DRMCard.anyScreenConnected(path: path, choice: choice)
    }

    /// Looked at by `replacement()`, which the screen asks at once after a device event.
    func deviceChanged() {}

    func consoleShown(_ shown: Bool) {}

    /// Nothing is shown: there is no screen to power.
    func setPowered(_ powered: Bool) throws(ScreenPowerError) -> String { "no screen connected" }
}

/// Opens the KMS output for a pixel screen: the card at `path`, or the first of
/// `/dev/dri/card*` that is a display controller, with a screen connected if one is. A card
/// with nothing connected gives an output that waits for a screen.
package func openKMSOutput(path: String?, choice: KMSChoice) throws(KMSError) -> any Scanout {
    let candidates = path.map { [$0] } ?? drmCardPaths()
    guard !candidates.isEmpty else { throw KMSError("no DRM card (/dev/dri/card*)") }
    var problems: [String] = []
    var waiting: String?
    for candidate in candidates {
        do throws(KMSError) {
            let card = try DRMCard(path: candidate, choice: choice)
            return KMSScanout(name: "\(candidate) \(card.connectorName) \(card.modeName)", buffers: card.buffers,
                              refreshPeriod: card.refreshPeriod, flipper: card,
                              probe: { [unowned card] thorough in card.probe(thorough: thorough) })
        } catch {
            if error.code == DRMCard.noScreenCode, waiting == nil { waiting = candidate }
            problems.append(error.description)
        }
    }
    if let waiting { return WaitingKMSOutput(path: waiting, choice: choice) }
    throw KMSError(problems.joined(separator: "; "))
}

/// The DRM cards there are now: `/dev/dri/card0`, `/dev/dri/card1`… in order.
package func drmCardPaths() -> [String] {
    guard let folder = opendir("/dev/dri") else { return [] }
    defer { closedir(folder) }
    var cards: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix("card") { cards.append("/dev/dri/" + name) }
    }
    return cards.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
}
