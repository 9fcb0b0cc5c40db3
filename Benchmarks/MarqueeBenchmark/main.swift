// Times MarqueeController.frame(at:) for tapes of 5 and 100 messages (release build):
//   swift run -c release marquee-benchmark
import Display
import Foundation
import Marquee
import Support

func measure(messages count: Int) -> (median: Double, p99: Double) {
    let origin = SteadyInstant(sinceOrigin: 1_800_000_000 * 1_000_000_000)
    let marquee = MarqueeController(metrics: TerminalMetrics(), configuration: MarqueeConfiguration(charactersPerSecond: 10),
                                    origin: origin)
    let messages = (0..<count).map { MarqueeMessage(text: "Message number \($0): take the blue pills at \($0 % 24):00", effect: $0 % 7 == 0 ? .dance : .scroll) }
    marquee.update(messages: messages, at: origin, width: 80)
    var times: [Double] = []
    var visible = 0
    for step in 0..<20_000 {
        let t = origin + Nanoseconds(step) * 16_666_667  // 60 frames per second, 333 s of tape
        let start = DispatchTime.now().uptimeNanoseconds
        visible += marquee.frame(at: t, width: 80).glyphs.count
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
    }
    precondition(visible > 0)
    times.sort()
    return (times[times.count / 2], times[times.count * 99 / 100])
}

for count in [5, 100] {
    let result = measure(messages: count)
    print(String(format: "frame(at:) with %3d messages on the tape: median %.2f µs, p99 %.2f µs (20000 frames, 80 cells)",
                 count, result.median, result.p99))
}
