import CLinux
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor read on a queue of its own whenever it turns readable, closed with the value:
/// what the clock and hot-plug watchers share.
final class DescriptorWatch: Sendable {
    private let source: any DispatchSourceRead

    init(descriptor: Int32, label: String, onReadable: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: label))
        source.setEventHandler(handler: onReadable)
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }
}

/// Notices when the wall clock is set — an NTP step at boot (a Pi has no RTC), `date -s`, a
/// resume from suspend — through a timerfd armed with TFD_TIMER_CANCEL_ON_SET, so what was
/// computed for the old time is recomputed at once instead of at the next deadline.
final class ClockChangeWatcher: Sendable {
    private let watch: DescriptorWatch

    init(onChange: @escaping @Sendable () -> Void) throws(WatchError) {
        let descriptor = mq_clock_change_fd()
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        watch = DescriptorWatch(descriptor: descriptor, label: "marquee.clock") {
            if mq_take_clock_change(descriptor) == 1 { onChange() }
        }
    }
}
