import Marquee
import Support

/// Where a `PixelScreen`'s picture reaches the glass: a framebuffer device, a KMS output's
/// page-flipped buffers, a file or plain memory. The screen draws text into layers of its own;
/// a scanout only puts them on the display, paces frames and says what happened to the device.
/// This is the device half of a pixel screen (kmscon's display ops beside its text ops).
package protocol Scanout: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var format: PixelFormat { get }
    /// The display's refresh period.
    var refreshPeriod: Nanoseconds { get }
    /// For the status: "framebuffer /dev/fb0 (vesafb) 1024x768 RGB565, vsync wait, 60 Hz".
    var description: String { get }
    /// Frames shown by page flips and vertical blanks missed (nil: no page flips).
    var pageFlips: PageFlipFigures? { get }
    /// False while nothing shown would be seen (no screen connected, the device lent to
    /// another console).
    var isShowing: Bool { get }
    /// When a frame drawn now will be seen: a frame is computed for that instant. `due` is
    /// the loop's deadline for it.
    func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant
    /// Puts the picture on the display (only what the buffer shown next lacks of it).
    func show(_ picture: ScanoutPicture)
    /// Why the device no longer is the screen and must be opened again, or nil while it is.
    func replacement() -> String?
    /// The device was created, removed or changed (a driver took over, a screen was plugged in).
    func deviceChanged()
    /// The console is switched away (false) or back (true): let go of the display, or take it
    /// again; the next picture is drawn in full.
    func consoleShown(_ shown: Bool)
    /// Powers the display down (nothing is shown until it is powered again) or up (the next
    /// picture is drawn in full). Answers the device's control that did it ("DPMS"), or throws
    /// why it cannot (a driver without one: the screen shows black instead).
    @discardableResult
    func setPowered(_ powered: Bool) throws(ScreenPowerError) -> String
}

/// Why a display cannot be powered down or up.
package struct ScreenPowerError: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// A picture of layers (the band, the box, the line), each a buffer of whole rows at a row of
/// the screen, black elsewhere. A layer's version changes whenever its pixels do, and the
/// generation whenever everything must be drawn again (another program may have drawn).
package struct ScanoutPicture {
    package struct Layer {
        var pixels: PixelSurface
        var row: Int
        var version: Int
    }

    var layers: [Layer]
    var generation: Int
    /// The device's black, for the rows outside the layers.
    var black: UInt32
}

/// What one buffer of a scanout holds of a picture, so that bringing it up to date copies only
/// the layers it lacks: one buffer for a framebuffer, one per page-flipped buffer for KMS (a
/// buffer shown two frames ago lacks what changed in both).
struct BufferContents {
    private var versions: [Int] = []
    private var generation = -1

    /// Forgets what the buffer holds (its memory is new, or was drawn by someone else).
    mutating func invalidate() {
        generation = -1
    }

    /// Whether `update` would write anything (asked every frame: nothing is allocated).
    func lacks(_ picture: ScanoutPicture) -> Bool {
        generation != picture.generation || !picture.layers.elementsEqual(versions) { $0.version == $1 }
    }

    /// Brings `buffer` up to `picture`: black outside the layers when the generation is new,
    /// then every layer whose version it lacks, one `memcpy` per row.
    mutating func update(_ buffer: PixelSurface, to picture: ScanoutPicture) {
        let fresh = generation != picture.generation
        if fresh {
            var row = 0
            for layer in picture.layers.sorted(by: { $0.row < $1.row }) {
                buffer.fill(rows: row..<max(row, layer.row), with: picture.black)
                row = max(row, layer.row + layer.pixels.height)
            }
            buffer.fill(rows: min(row, buffer.height)..<buffer.height, with: picture.black)
        }
        if versions.count != picture.layers.count { versions = Array(repeating: -1, count: picture.layers.count) }
        for (index, layer) in picture.layers.enumerated() where fresh || versions[index] != layer.version {
            buffer.copy(layer.pixels, toRow: layer.row)
            versions[index] = layer.version
        }
        generation = picture.generation
    }
}
