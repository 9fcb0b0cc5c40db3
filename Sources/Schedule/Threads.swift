import CLinux
import Synchronization

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
        if !startThread(named: name, nice: nice, { continuation.resume(returning: body()) }) {
            continuation.resume(returning: nil)
        }
    }
}

/// Starts `body` on a new thread at once (not when a task gets its turn: the cooperative
/// threads may all be busy); `ended` returns once it has. nil when no thread can be started.
public func runningThread(named name: String, _ body: @escaping @Sendable () -> Void) -> RunningThread? {
    let thread = RunningThread()
    guard startThread(named: name, nice: nil, {
        body()
        thread.finish()
    }) else { return nil }
    return thread
}

/// A thread started by `runningThread`, to wait for.
public final class RunningThread: Sendable {
    private let state = Mutex<(done: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once the thread's body has returned.
    public func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.done { state.waiting.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    fileprivate func finish() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Starts a detached thread running `run`; false when none can be started.
private func startThread(named name: String, nice: Int32?, _ run: @escaping @Sendable () -> Void) -> Bool {
    let job = ThreadJob(name: name, nice: nice, run: run)
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
    guard pthread_create(&thread, nil, start, Unmanaged.passRetained(job).toOpaque()) == 0 else {
        Unmanaged.passUnretained(job).release()
        return false
    }
    pthread_detach(thread)
    return true
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
