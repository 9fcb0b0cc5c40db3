import CLinux
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor read on a queue of its own whenever it turns readable, closed with the value
/// or when `onReadable` says it is no use reading it any more: what the clock and hot-plug
/// watchers share.
final class DescriptorWatch: Sendable {
    private let source: any DispatchSourceRead

    /// - Parameter onReadable: reads; false ends the watch (a descriptor that failed would
    ///   otherwise stay readable and be read in a loop).
    init(descriptor: Int32, label: String, onReadable: @escaping @Sendable () -> Bool) {
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: label))
        source.setEventHandler { if !onReadable() { source.cancel() } }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        self.source = source
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

    /// - Parameter onFailure: told why the clock is watched no more (its timer cannot be
    ///   read or armed again): a step is then noticed at the display's next turn.
    init(onChange: @escaping @Sendable () -> Void, onFailure: @escaping @Sendable (String) -> Void) throws(WatchError) {
        let descriptor = mq_clock_change_fd()
        guard descriptor >= 0 else { throw WatchError(errno: errno) }
        watch = DescriptorWatch(descriptor: descriptor, label: "marquee.clock") {
            Self.take(mq_take_clock_change(descriptor), errno: errno, onChange: onChange, onFailure: onFailure)
        }
    }

    /// Acts on what reading the timer gave (`mq_take_clock_change`'s answer); false when the
    /// watch is over.
    static func take(_ result: Int32, errno code: Int32, onChange: () -> Void, onFailure: (String) -> Void) -> Bool {
        let reason = String(cString: strerror(code))
        switch result {
        case 1:
            onChange()
        case 2:
            onChange()
            onFailure("the clock's timer cannot be armed again (\(reason))")
            return false
        case -1:
            onFailure("the clock's timer cannot be read (\(reason))")
            return false
        default:
            break
        }
        return true
    }
}
