import DaemonTestKit
import Schedule
import Support
import Testing

@testable import Daemon

/// The status's frames per second: what the glass shows per second, whatever the phase of the
/// window against the frames, and nothing once frames stop.
struct FrameRateTests {
    /// Frames shown every `period` from the clock's start for `seconds`, each drawn up to
    /// `jitter` after its vertical blank (a loop's wake-up varies), the status asked `idle` later.
    private func rate(period: Nanoseconds, for seconds: Double, jitter: Nanoseconds = 0, thenIdle idle: Nanoseconds = 0,
                      offset: Nanoseconds = 0) -> Double {
        let clock = ManualClock(wall: Instant(secondsSinceEpoch: 1_796_000_000))
        let state = DisplayState(clock: clock)
        let start = clock.steadyTime() + offset
        var random: UInt64 = 7
        let frames = Int(seconds * 1e9) / Int(period)
        for frame in 1...frames {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let drawn = start + Nanoseconds(frame) * period + (jitter == 0 ? 0 : Nanoseconds(random >> 33) % jitter)
            clock.advance(by: drawn - clock.steadyTime())
            state.frameDrawn(at: drawn, lateness: nil, moving: true, inView: [], glyphCache: nil)
        }
        clock.advance(by: idle)
        return state.report.framesPerSecond
    }

    @Test("A steady 60 Hz and 75 Hz read as such, at any phase of the window")
    func steadyRates() {
        for offset: Nanoseconds in [0, 1_000_000, 8_333_333, 16_000_000] {
            #expect(rate(period: 16_666_667, for: 5, offset: offset) == 60.0, "offset \(offset)")
            #expect(rate(period: 13_333_333, for: 5, offset: offset) == 75.0, "offset \(offset)")
        }
        // The glass's own 60.01 Hz (a period of 16.664 ms).
        #expect(rate(period: 16_664_000, for: 5) == 60.0)
        // Half the frames (every other vblank missed): 30.
        #expect(rate(period: 33_333_333, for: 5) == 30.0)
        // Drawn up to 4 ms after each vblank, asked at any moment between two frames: still 60
        // (counted over the window, one frame falls off its edge now and then: 59.5).
        for idle: Nanoseconds in stride(from: 0, to: 16_000_000, by: 1_000_000) {
            let read = rate(period: 16_666_667, for: 5, jitter: 4_000_000, thenIdle: idle)
            #expect(abs(read - 60) <= 0.1, "asked \(idle / 1_000_000) ms after the last frame: \(read)")
        }
    }

    @Test("Frames that stopped fall to nothing within the window; a still screen's rare frames are counted")
    func stoppedAndRare() {
        #expect(rate(period: 16_666_667, for: 5, thenIdle: 2_100_000_000) == 0)
        #expect(rate(period: 16_666_667, for: 5, thenIdle: 1_000_000_000) < 31)
        #expect(rate(period: 1_000_000_000, for: 5) == 1.0)
    }
}
