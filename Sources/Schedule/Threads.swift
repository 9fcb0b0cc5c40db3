import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (a frame loop, a network transfer, a wait for feed readers) on a new
/// thread named `name` (for ps, top and /proc), at `nice` where the process may lower it, and
/// hands its result to the caller's task; nil when no thread can be started.
public func onThread<Result: Sendable>(
    named name: String, nice: Int32? = nil, _ body: @escaping @Sendable () -> Result
) async -> Result? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result?, Never>) in
        let job = ThreadJob(name: name, nice: nice) { continuation.resume(returning: body()) }
        let start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let job = Unmanaged<ThreadJob>.fromOpaque(context!).takeRetainedValue()
            if let nice = job.nice {
                // On Linux the nice value is per thread, and 0 names the calling one.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
            }
            _ = mq_name_thread(job.name)
            job.run()
            return nil
        }
        var thread = pthread_t()
        if pthread_create(&thread, nil, start, Unmanaged.passRetained(job).toOpaque()) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged.passUnretained(job).release()
            continuation.resume(returning: nil)
        }
    }
}

private final class ThreadJob: Sendable {
    let name: String
    let nice: Int32?
    let run: @Sendable () -> Void

    init(name: String, nice: Int32?, run: @escaping @Sendable () -> Void) {
        self.name = name
        self.nice = nice
        self.run = run
    }
}

/// Lets at most `limit` callers through at once; the others wait their turn, in order.
actor Admission {
    private let limit: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func enter() async {
        guard inside >= limit else {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the place to the first one waiting, if any.
    func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
