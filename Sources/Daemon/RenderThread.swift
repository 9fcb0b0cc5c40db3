import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on a thread of its own (not a Dispatch worker: libdispatch watches its
/// workers once a second while one is busy, which would wake an idle display) and hands
/// its result to the caller's task. The thread asks for nice -5 where it may (root, or the
/// unit's `LimitNICE`), so busy clients of the control socket cannot make frames late.
func onRenderThread(_ body: @escaping @Sendable () -> Int32) async -> Int32 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
        let job = RenderJob(body: body, continuation: continuation)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let job = Unmanaged<RenderJob>.fromOpaque(context!).takeRetainedValue()
            // On Linux the nice value is per thread, and 0 names the calling one.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, renderThreadNice)
            // Named for ps, top and /proc (`marquee-render`).
            _ = mq_name_thread("marquee-render")
            job.continuation.resume(returning: job.body())
            return nil
        }, Unmanaged.passRetained(job).toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged.passUnretained(job).release()
            continuation.resume(returning: 1)
        }
    }
}

/// The render thread's nice value, where the process may lower it.
private let renderThreadNice: Int32 = -5

private final class RenderJob: Sendable {
    let body: @Sendable () -> Int32
    let continuation: CheckedContinuation<Int32, Never>

    init(body: @escaping @Sendable () -> Int32, continuation: CheckedContinuation<Int32, Never>) {
        self.body = body
        self.continuation = continuation
    }
}
