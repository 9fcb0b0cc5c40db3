import CLinux
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (a frame loop, a network transfer, a wait for feed readers) on a new
/// thread named `name` (for ps, top and /proc), at `nice` where the process may lower it, and
/// hands its result to the caller's task; nil when no thread can be started.
package func onThread<Result: Sendable>(
    named name: String, nice: Int32? = nil, _ body: @escaping @Sendable () -> Result
) async -> Result? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result?, Never>) in
        if !startThread(named: name, nice: nice, { continuation.resume(returning: body()) }) {
            continuation.resume(returning: nil)
        }
    }
}

/// Starts `body` on a new thread at once (not when a task gets its turn: the cooperative
/// threads may all be busy); `ended(within:)` waits for its end. nil when no thread can be
/// started.
package func runningThread(named name: String, _ body: @escaping @Sendable () -> Void) -> Completion? {
    let thread = Completion()
    guard startThread(named: name, nice: nil, {
        body()
        thread.finish()
    }) else { return nil }
    return thread
}

/// Work that ends once — a thread started by `runningThread`, a running part's task — to wait
/// for, each wait no longer than its caller allows.
package final class Completion: Sendable {
    private struct State {
        var done = false
        var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the work ended within `limit` (waiting no longer than that; the timer ends with
    /// the wait).
    package func ended(within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { race in
            race.addTask { await self.ended() }
            race.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await race.next() ?? false
            race.cancelAll()
            return first
        }
    }

    /// Waits for the work's end: true when it ended, false when the waiting task was cancelled first.
    package func ended() async -> Bool {
        let waiter = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Cancelled before this point: the handler found nothing to resume, so say it here.
                let answer = state.withLock { state -> Bool? in
                    if state.done { return true }
                    if Task.isCancelled { return false }
                    state.waiting[waiter] = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: waiter) }?.resume(returning: false)
        }
    }

    /// The work ended: every wait returns true.
    package func finish() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume(returning: true) }
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
