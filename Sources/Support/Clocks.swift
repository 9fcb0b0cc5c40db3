#if canImport(Glibc)
    import Glibc
#endif

/// Reads one of the machine's clocks (CLOCK_MONOTONIC, CLOCK_REALTIME) in nanoseconds: the
/// one place the process asks the kernel what time it is.
package func readClock(_ clock: clockid_t) -> Int64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
