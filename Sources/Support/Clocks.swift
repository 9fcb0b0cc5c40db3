#if canImport(Glibc)
    import Glibc
#endif

/// Reads one of the machine's clocks (CLOCK_MONOTONIC, CLOCK_REALTIME) in nanoseconds: the one
/// place the process asks the kernel for a time it keeps or shows. (Swift's ContinuousClock
/// and Dispatch's times only pace waits and rates: a task's sleep, a burst of commands.)
package func readClock(_ clock: clockid_t) -> Int64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// The machine's wall clock in whole seconds since the epoch (not the display's, which
/// `--at` shifts): for servers' dates, the CLI's "now", the broker's "connected since".
package func machineWallSeconds() -> Int64 {
    readClock(CLOCK_REALTIME) / 1_000_000_000
}
