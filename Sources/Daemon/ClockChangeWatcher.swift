import CLinux
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Notices when the wall clock is set — an NTP step at boot (a Pi has no RTC), `date -s`, a
/// resume from suspend — through a timerfd armed with TFD_TIMER_CANCEL_ON_SET, so what was
/// computed for the old time is recomputed at once instead of at the next deadline.
final class ClockChangeWatcher: Sendable {
    private let source: any DispatchSourceRead

    init(onChange: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = mq_clock_change_fd()
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "marquee.clock"))
        source.setEventHandler {
            if mq_take_clock_change(descriptor) == 1 { onChange() }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }
}
