import Marquee
import TestSupport
import Support
import Testing

@testable import Daemon

/// Framebuffer frames fall on a fixed grid of the refresh period.
@Suite struct FrameGridTests {
    let origin: SteadyInstant = 1_000_000_000
    let period: Int64 = 16_666_667

    @Test func theNextTickIsOnTheGrid() {
        #expect(DisplayLoop.nextTick(after: origin, grid: origin, period: period) == origin + period)
        #expect(DisplayLoop.nextTick(after: origin + 5, grid: origin, period: period) == origin + period)
        #expect(DisplayLoop.nextTick(after: origin + period, grid: origin, period: period) == origin + 2 * period)
    }

    /// A frame drawn 2.5 periods late is followed by the next tick of the same grid, not by a
    /// grid shifted by the lateness.
    @Test func lateFramesDoNotShiftTheGrid() {
        let late = origin + 5 * period / 2
        #expect(DisplayLoop.nextTick(after: late, grid: origin, period: period) == origin + 3 * period)
        for k: Int64 in [1, 100, 3600 * 60] {
            let now = origin + k * period + 1
            #expect((DisplayLoop.nextTick(after: now, grid: origin, period: period) - origin) % period == 0)
        }
    }
}
