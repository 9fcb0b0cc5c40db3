import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// A KMS call that failed, with the kernel's errno.
package struct KMSError: Error, CustomStringConvertible {
    package var description: String
    package var code: Int32

    package init(_ description: String, code: Int32 = 0) {
        self.description = description
        self.code = code
    }
}

/// What a KMS output asks of the kernel: libdrm's calls on a real card (`DRMCard`), a script
/// in tests, a card that lands every flip at once in the benchmark.
package protocol PageFlipper: AnyObject {
    /// Shows buffer `index` at once, setting the output's mode (the first picture, and after
    /// the display was taken back).
    func setMode(showing index: Int) throws(KMSError)
    /// Queues buffer `index` to be shown from the next vertical blank on, with an event then.
    func flip(to index: Int) throws(KMSError)
    /// Waits at most `timeout` for the queued flip's event: the time (CLOCK_MONOTONIC) of the
    /// vertical blank from which the buffer is shown; nil when none came.
    func waitForFlip(timeout: Nanoseconds) -> SteadyInstant?
    /// Becomes DRM master again (false: another program holds the display).
    func takeMaster() -> Bool
    /// Lets another program (the next console) set its mode.
    func dropMaster()
    /// Powers the connector's display down or up (its DPMS property).
    func setPower(_ on: Bool) throws(KMSError)
}

/// When frames are seen on a page-flipped output: each flip's event gives the vertical blank
/// it landed on, so the next frame is computed for a vertical blank of the same grid. A frame
/// that lands a vertical blank later than it was computed for is a missed vblank (the screen
/// showed the frame before once more); the next is computed for its own time, never caught
/// up.
struct VblankTimeline {
    let period: Nanoseconds
    /// The last vertical blank a flip landed on.
    private(set) var lastVblank: SteadyInstant?
    /// Flips landed, and vertical blanks that showed a frame again because one landed late.
    private(set) var presented = 0
    private(set) var missed = 0

    init(period: Nanoseconds) {
        self.period = period
    }

    /// What a frame needs between its computation and the vertical blank it is for: drawing
    /// it and queuing the flip.
    var margin: Nanoseconds { min(2_000_000, period / 4) }

    /// The vertical blank a frame drawn at `now` will be seen from: the first on the grid of
    /// the last flip far enough ahead (one period after `now` before any flip landed).
    func nextPresentation(after now: SteadyInstant) -> SteadyInstant {
        guard let last = lastVblank else { return now + period }
        let earliest = now + margin
        guard earliest > last + period else { return last + period }
        return last + ((earliest - last + period - 1) / period) * period
    }

    /// A flip computed for `planned` landed on the vertical blank at `vblank`.
    mutating func landed(at vblank: SteadyInstant, planned: SteadyInstant?) {
        presented += 1
        if let planned, vblank - planned > period / 2 {
            missed += Int((vblank - planned + period / 2) / period)
        }
        lastVblank = vblank
    }

    /// A frame was never shown (its flip failed): the screen showed the one before instead.
    mutating func skipped() {
        missed += 1
    }

    /// The output was set anew (the display taken back): the old grid no longer holds.
    mutating func restart() {
        lastVblank = nil
    }
}

/// A KMS output as a scanout: two buffers, one on the glass and one drawn into, swapped by a
/// page flip on the vertical blank, so nothing is ever drawn where the display is reading
/// (no tearing) and every frame is seen for a whole refresh. Each frame is computed for the
/// vertical blank its flip lands on. While the console is switched away it lets go of the
/// display (DRM master) and draws nothing; it takes it back, sets the mode and draws in full
/// when the console returns.
package final class KMSScanout: Scanout {
    package let width: Int
    package let height: Int
    package let format: PixelFormat
    package let refreshPeriod: Nanoseconds
    private let flipper: any PageFlipper
    private let buffers: [PixelSurface]
    private var contents: [BufferContents]
    /// The buffer on the glass (nil: none yet, or the mode must be set again).
    private var front: Int?
    /// A flip queued and not yet landed, and the vertical blank its frame was computed for.
    private var pendingFlip: (buffer: Int, planned: SteadyInstant?)?
    /// The presentation time handed out for the frame being drawn.
    private var planned: SteadyInstant?
    private(set) var timeline: VblankTimeline
    /// Whether the display is ours (DRM master, the console shown).
    private var holdsDisplay = true
    /// Whether the display was powered down: nothing is flipped (a CRTC that is off takes no
    /// flips) until it is powered again.
    private var poweredDown = false
    /// What went wrong last, said in the status until a frame is shown again.
    private(set) var problem: String?
    /// A failure that showing again will not mend (the device gone, a flip refused for good):
    /// the output is opened again at the next check, and the journal says why.
    private var failure: String?
    /// What `description` starts with: "KMS /dev/dri/card0 Virtual-1 1024x768@60".
    private let name: String
    /// Asked whether the screen is still the one opened (hot-plug), thoroughly (the driver
    /// asks the screen) after a device event; nil: never replaced.
    private let probe: ((_ thorough: Bool) -> String?)?
    private var deviceEvent = false

    /// - Parameters:
    ///   - buffers: the buffers `flipper` shows by index, all the output's size.
    ///   - probe: why the output must be opened again (a screen unplugged or plugged in), asked
    ///     now and then, and thoroughly after the device changed.
    package init(name: String, buffers: [PixelSurface], refreshPeriod: Nanoseconds, flipper: any PageFlipper,
                probe: ((_ thorough: Bool) -> String?)? = nil) {
        precondition(buffers.count >= 2, "a page-flipped output needs two buffers")
        self.name = name
        self.buffers = buffers
        width = buffers[0].width
        height = buffers[0].height
        format = buffers[0].format
        self.refreshPeriod = refreshPeriod
        self.flipper = flipper
        self.probe = probe
        contents = Array(repeating: BufferContents(), count: buffers.count)
        timeline = VblankTimeline(period: refreshPeriod)
    }

    package var description: String { "KMS \(name) \(format), page flips" + (problem.map { "; \($0)" } ?? "") }

    package var pageFlips: PageFlipFigures? { PageFlipFigures(shown: timeline.presented, missedVblanks: timeline.missed) }

    package var isShowing: Bool { holdsDisplay }

    /// Waits for the flip in flight to land (its vertical blank is then known), then answers
    /// the vertical blank the next flip will land on.
    package func presentationTime(ofFrameDueAt due: SteadyInstant, now: SteadyInstant) -> SteadyInstant {
        finishPendingFlip()
        let next = timeline.nextPresentation(after: now)
        planned = next
        return next
    }

    package func show(_ picture: ScanoutPicture) {
        guard holdsDisplay, !poweredDown else { return }
        finishPendingFlip()
        if let front, !contents[front].lacks(picture) { return }
        let back = front.map { ($0 + 1) % buffers.count } ?? 0
        contents[back].update(buffers[back], to: picture)
        do throws(KMSError) {
            if front == nil {
                try flipper.setMode(showing: back)
                timeline.restart()
                front = back
                // Setting a mode may clear video memory (QEMU's bochs does, on the first mode set
                // after boot without fbdev): what any buffer held is forgotten, and the one on the
                // glass is drawn again at once.
                for index in contents.indices { contents[index].invalidate() }
                contents[back].update(buffers[back], to: picture)
            } else {
                try queueFlip(to: back)
            }
            problem = nil
        } catch {
            timeline.skipped()
            problem = error.description
            // Without master (the console went away under it) nothing can be shown: the display
            // is taken again when the console comes back. Anything else is opened afresh.
            if error.code == EACCES || error.code == EPERM {
                holdsDisplay = false
            } else {
                failure = error.description
            }
        }
        planned = nil
    }

    /// Queues the flip; a flip still in flight (EBUSY) is waited for once, then tried again.
    private func queueFlip(to buffer: Int) throws(KMSError) {
        do throws(KMSError) {
            try flipper.flip(to: buffer)
        } catch {
            guard error.code == EBUSY else { throw error }
            pendingFlip = (front ?? buffer, nil)
            finishPendingFlip()
            try flipper.flip(to: buffer)
        }
        pendingFlip = (buffer, planned)
    }

    /// Waits for the flip in flight (at most three refresh periods: a display switched off
    /// sends none) and makes its buffer the front one.
    private func finishPendingFlip() {
        guard let pending = pendingFlip else { return }
        pendingFlip = nil
        front = pending.buffer
        if let vblank = flipper.waitForFlip(timeout: 3 * refreshPeriod + 50_000_000) {
            timeline.landed(at: vblank, planned: pending.planned)
        } else {
            problem = "a page flip was not confirmed within \(3 * refreshPeriod / 1_000_000 + 50) ms"
            timeline.restart()
        }
    }

    package func replacement() -> String? {
        defer { deviceEvent = false }
        guard let reason = failure ?? probe?(deviceEvent) else { return nil }
        // The next output is opened while this one is still held: let the display go first.
        finishPendingFlip()
        flipper.dropMaster()
        holdsDisplay = false
        return reason
    }

    package func deviceChanged() {
        deviceEvent = true
    }

    package func consoleShown(_ shown: Bool) {
        if shown {
            holdsDisplay = flipper.takeMaster()
            problem = holdsDisplay ? nil : "another program holds the display"
            front = nil
            for index in contents.indices { contents[index].invalidate() }
            // The other console powered it up for its own picture.
            if holdsDisplay, poweredDown { try? flipper.setPower(false) }
        } else {
            finishPendingFlip()
            flipper.dropMaster()
            holdsDisplay = false
        }
    }

    /// Powered down: the flip in flight lands first. Powered up: the mode is set again with the
    /// next picture, drawn in full.
    package func setPowered(_ powered: Bool) throws(ScreenPowerError) -> String {
        guard powered == poweredDown else { return "DPMS" }
        // Without master nothing may be set: done when the console comes back.
        guard holdsDisplay else {
            poweredDown = !powered
            return "DPMS"
        }
        finishPendingFlip()
        // Powered up or not, pictures are shown again: setting the mode powers it too.
        if powered {
            poweredDown = false
            front = nil
            for index in contents.indices { contents[index].invalidate() }
        }
        do throws(KMSError) {
            try flipper.setPower(powered)
        } catch {
            throw ScreenPowerError(error.description)
        }
        poweredDown = !powered
        return "DPMS"
    }
}
