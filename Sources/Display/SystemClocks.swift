import Marquee

#if canImport(Glibc)
    import Glibc
#endif

/// Reads one of the machine's clocks (CLOCK_MONOTONIC, CLOCK_REALTIME) in nanoseconds: the
/// one place the process asks the kernel what time it is.
public func readClock(_ clock: clockid_t) -> Nanoseconds {
    var time = timespec()
    clock_gettime(clock, &time)
    return Nanoseconds(time.tv_sec) * 1_000_000_000 + Nanoseconds(time.tv_nsec)
}
