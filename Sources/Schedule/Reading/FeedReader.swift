import CLinux
import Support
#if canImport(Glibc)
    import Glibc
#endif

/// Where libical reads feed files. libical has loops no step limit reaches, recursion a deep
/// file overflows, and arithmetic that traps, so the daemon and the CLI run it in a helper
/// process with a deadline and a memory limit: whatever a file makes libical do costs that
/// file only, and the caller keeps its last good version.
package enum FeedReader: Sendable {
    /// In this process, on `ICalActor` (tests and benchmarks of the parsing itself).
    case inProcess
    /// `executable arguments…` answers one request on its standard input and output
    /// (`serveFeedReading`); `marquee read-feed` does.
    case helper(executable: String, arguments: [String])

    /// The expansions of the requests, in their order.
    @ICalActor func expand(_ requests: [ExpansionRequest], limits: ScheduleLimits) -> [FeedExpansion] {
        switch self {
        case .inProcess:
            requests.map(expandInProcess)
        case .helper(let executable, let arguments):
            HelperRun.expand(requests, executable: executable, arguments: arguments, limits: limits)
        }
    }
}

extension FeedReader {
    /// The expansions of the requests, with libical's actor left free while helpers run (their
    /// wait is on a thread of its own); in this process they run on the actor. `progress` is
    /// handed, from that thread, the expansions that finished while others are still read.
    func expandBeside(
        _ requests: [ExpansionRequest], limits: ScheduleLimits,
        progress: (@Sendable ([(index: Int, expansion: FeedExpansion)]) -> Void)? = nil
    ) async -> [FeedExpansion] {
        switch self {
        case .inProcess:
            return await expand(requests, limits: limits)
        case .helper(let executable, let arguments):
            let expansions = await onThread(named: "marquee-read") {
                HelperRun.expand(requests, executable: executable, arguments: arguments, limits: limits, progress: progress)
            }
            return expansions ?? requests.map { request in
                FeedExpansion(problems: [FeedProblem(
                    severity: .error, path: request.path, line: nil, message: "no thread to read the calendar on")])
            }
        }
    }
}

/// Parses and expands one file here.
@ICalActor func expandInProcess(_ request: ExpansionRequest) -> FeedExpansion {
    parsedAndExpanded(request).expansion
}

/// The expansion of one file and the parse it came from, which the caller frees (or not: a
/// helper process ends without tearing it down).
@ICalActor private func parsedAndExpanded(_ request: ExpansionRequest) -> (expansion: FeedExpansion, file: CalendarFile?) {
    guard let zone = SystemZones.zone(named: request.displayZone) else {
        return (FeedExpansion(problems: [FeedProblem(
            severity: .error, path: request.path, line: nil, message: "unknown time zone \(request.displayZone)")]), nil)
    }
    let context = ExpansionContext(
        displayZone: zone, defaultDuration: request.defaultDuration, limits: request.limits,
        deadline: readClock(CLOCK_MONOTONIC) + Int64(request.seconds * 1e9))
    let file = CalendarFile(path: request.path, bytes: request.bytes, displayZone: zone)
    let expansion = FeedIndex(file: file, context: context).expansion(
        from: request.focus, span: request.span, budget: request.budget)
    return (expansion, file)
}

/// The helper's side: reads requests from standard input one at a time, answers each on
/// standard output as soon as it is expanded, and ends at the end of its input. It reads a
/// request only after answering the one before, so the one it holds is the only one a stall
/// can be blamed on. It bounds its own memory and processor time, and dies with the process
/// that started it. Freeing libical's trees and the records first would cost a fifth of the
/// whole read for nothing.
package func serveFeedReading() async -> Never {
    // A helper blocked in libical would otherwise outlive a parent that was killed.
    if mq_die_with_parent(getppid()) == 1 { exit(0) }
    var files: [CalendarFile?] = []
    var isFirst = true
    while let frame = readRequestFrame() {
        guard let request = ExpansionRequest(decoding: frame[...]) else { exit(2) }
        if isFirst {
            isFirst = false
            var memory = rlimit(rlim_cur: rlim_t(request.limits.maximumReaderBytes),
                                rlim_max: rlim_t(request.limits.maximumReaderBytes))
            setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &memory)
        }
        // The parent stops a helper at a file's deadline; this ends one whose parent cannot.
        var used = rusage()
        getrusage(RUSAGE_SELF.rawValue, &used)
        let seconds = rlim_t(used.ru_utime.tv_sec + used.ru_stime.tv_sec) + rlim_t(request.limits.maximumSecondsPerFile.rounded(.up)) + 2
        var cpu = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        cpu.rlim_cur = min(seconds, cpu.rlim_max)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        let (expansion, file) = await parsedAndExpanded(request)
        files.append(file)
        let output = WireFrames.frame(expansion.encoded())
        var offset = 0
        while offset < output.count {
            let written = output[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { exit(1) }
            offset += written
        }
    }
    withExtendedLifetime(files) { exit(0) }
}

/// The next request on standard input, read exactly (its length, then its bytes: nothing of
/// the next one); nil at the end of the input. Garbage ends the helper.
private func readRequestFrame() -> [UInt8]? {
    func readExactly(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes[filled...].withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { return nil }
            filled += got
        }
        return bytes
    }
    guard let header = readExactly(8) else { return nil }
    guard let length = WireFrames.length(header[...], longest: HelperRun.maximumRequestBytes) else { exit(2) }
    guard let body = readExactly(length) else { exit(2) }
    return body
}

/// Helper processes for requests, a few at a time. Each helper is handed one request at a
/// time, the next once it answered, so what it holds when it stalls is known: a file that hangs
/// or crashes libical is blamed on evidence and costs that file only. Small files go to the
/// same helper one after another (starting a process costs more than reading a small file: a
/// folder of 20,000 one-event files, as vdirsyncer writes a CalDAV calendar, would start 20,000).
///
/// A helper that stalls on a file (computes on it for `setAsideAfter`, or is blocked for
/// `blockedAfter`) is set aside with that file and a new helper takes the rest: at most
/// `parallel` helpers read the queue and at most `setAsidePlaces` are set aside, so however
/// many files hang, the helpers alive stay bounded. A file is given up when its helper
/// used the file's processor time, made no progress at all for `maximumStalledSeconds`, or
/// neither computed nor answered for `starvedAfter` times the deadline: a **transient**
/// failure (`FeedExpansion.isTransient`), tried again later. A helper that crashes or answers
/// garbage on a file read alone is a verdict on those bytes; one that shared its helper with
/// others is read again alone first (the others may have used up its memory).
enum HelperRun {
    private final class Child {
        let pid: pid_t
        let socket: Int32
        /// The request it reads now (nil: none: it has answered all it was sent), and those
        /// still to come, in order.
        var reading: Int?
        var batch: [Int]
        /// The frame of `reading`, sent as the socket takes it.
        var outgoing: [UInt8] = []
        var written = 0
        var answer: [UInt8] = []
        /// Requests answered.
        var answered = 0
        /// When `reading` was all sent (nil: not yet), when the helper last made progress on it
        /// and its processor time then, at the last look and when it began the file, and when it
        /// was last looked at.
        var began: Int64?
        var lastActivity: Int64 = 0
        var processorSeen: Int64?
        var processorAtActivity: Int64?
        var processorAtBegin: Int64?
        var lastLook: Int64 = 0
        /// It sent something that is not an answer: nothing more it sends is read.
        var isGarbled = false
        /// Set aside with the file it stalled on: it no longer reads the queue.
        var setAsideAt: Int64?
        /// Stopped and reaped: only its socket is left to close.
        var isStopped = false

        init(pid: pid_t, socket: Int32, batch: [Int]) {
            self.pid = pid
            self.socket = socket
            self.batch = batch
        }

        /// Processor time it used on `reading` (as far as it was looked at).
        var processorOnFile: Int64 {
            guard let seen = processorSeen, let begin = processorAtBegin else { return 0 }
            return seen - begin
        }
    }

    /// Longer answers are refused (a budget's worth of activations is a few MB).
    static let maximumAnswerBytes = 256 << 20
    /// Longer requests are refused by the helper (a file is at most `maximumFileBytes`).
    static let maximumRequestBytes = 1 << 30

    /// Files up to this size go to a helper one after another, up to `batchFiles` and
    /// `batchBytes` for one helper (it keeps what libical built of each until it ends); a larger
    /// one gets a helper of its own, like a file read again alone.
    static let batchedFileBytes = 64 << 10
    static let batchFiles = 128
    static let batchBytes = 1 << 20

    /// A helper that has computed this long on one file (its processor time, so a helper that
    /// only waits for the processor on a busy machine is not taken for a slow one) is set aside
    /// with it. It keeps its priority: a file that is only slow must still be read on a busy
    /// machine (or an emulated one, where the ticker takes most of the processor).
    static let setAsideAfter: Int64 = 250_000_000
    /// A helper whose threads all sleep and that neither computed nor answered for this long
    /// is blocked (libical does not wait for anything): set aside.
    static let blockedAfter: Int64 = 50_000_000
    /// A helper still on one file after this long on the clock is set aside too, whatever its
    /// threads look like: a loop that sleeps in short naps is often seen runnable on a busy
    /// machine, and the rest of its batch must not wait behind it.
    static let setAsideOnTheClock: Int64 = 1_000_000_000
    /// How many helpers may be set aside at once; past that the one blocked longest is stopped.
    static let setAsidePlaces = 4
    /// A file's deadline counts the processor time its helper uses; a helper that neither
    /// computes nor answers, but is not blocked either (it waits for the processor or the
    /// disk), is stopped after this many times the deadline on the clock.
    static let starvedAfter: Int64 = 4
    /// How often a helper holding a file is looked at (its processor time, whether it sleeps).
    static let lookInterval: Int64 = 20_000_000
    /// How often the files read so far are handed on while others are still being read.
    static let progressInterval: Int64 = 200_000_000

    /// The expansions of `requests`, in their order; `progress`, when given, is handed the
    /// expansions (by index) that finished since it was last called, at most every
    /// `progressInterval`, while others are still being read.
    static func expand(
        _ requests: [ExpansionRequest], executable: String, arguments: [String], limits: ScheduleLimits,
        progress: (([(index: Int, expansion: FeedExpansion)]) -> Void)? = nil
    ) -> [FeedExpansion] {
        var results = [FeedExpansion?](repeating: nil, count: requests.count)
        /// The batches not yet handed to a helper, the next one last.
        var queue = Array(batches(requests).reversed())
        var running: [Child] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var arrived: [(index: Int, expansion: FeedExpansion)] = []
        var handedOn = readClock(CLOCK_MONOTONIC)
        let parallel = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let perFile = Int64(limits.maximumSecondsPerFile * 1e9)
        let stalledLimit = Int64(limits.maximumStalledSeconds * 1e9)
        func finish(_ index: Int, _ expansion: FeedExpansion) {
            guard results[index] == nil else { return }
            results[index] = expansion
            if progress != nil { arrived.append((index, expansion)) }
        }
        /// Hands the next request of its batch to `child`; with none left, closes its input.
        func handNext(to child: Child, now: Int64) {
            child.reading = nil
            child.began = nil
            guard child.setAsideAt == nil, !child.batch.isEmpty else {
                shutdown(child.socket, Int32(SHUT_WR))
                return
            }
            let next = child.batch.removeFirst()
            child.reading = next
            child.outgoing = WireFrames.frame(requests[next].encoded())
            child.written = 0
            send(child, now: now)
        }
        /// The rest of `child`'s batch goes to another helper.
        func handOnTheRest(of child: Child) {
            if !child.batch.isEmpty { queue.append(child.batch) }
            child.batch = []
        }
        /// Stops `child` and reaps it; its file, if any, gets `why` as a transient failure.
        func stop(_ child: Child, _ why: String) {
            kill(child.pid, SIGKILL)
            _ = reap(child.pid)
            if let reading = child.reading { finish(reading, failure(requests[reading], why, transient: true)) }
            handOnTheRest(of: child)
            child.reading = nil
            child.isStopped = true
        }
        while !queue.isEmpty || !running.isEmpty {
            while running.count(where: { $0.setAsideAt == nil }) < parallel, running.count < parallel + setAsidePlaces,
                let batch = queue.popLast()
            {
                switch start(executable, arguments) {
                case .success(let (pid, socket)):
                    let child = Child(pid: pid, socket: socket, batch: batch)
                    running.append(child)
                    handNext(to: child, now: readClock(CLOCK_MONOTONIC))
                case .failure(let error):
                    for index in batch {
                        finish(index, failure(requests[index], "cannot start marquee's feed reader \(executable): "
                            + String(cString: strerror(error.code)), transient: true))
                    }
                }
            }
            var fds = running.map {
                pollfd(fd: $0.socket, events: Int16(POLLIN) | ($0.written < $0.outgoing.count ? Int16(POLLOUT) : 0),
                       revents: 0)
            }
            let before = readClock(CLOCK_MONOTONIC)
            var wakeAt = Int64.max
            for child in running where child.reading != nil {
                wakeAt = min(wakeAt, max(child.lastLook + lookInterval, before + 10_000_000))
            }
            if !arrived.isEmpty { wakeAt = min(wakeAt, handedOn + progressInterval) }
            let wait = wakeAt == Int64.max ? 1_000 : min(1_000, max(0, (wakeAt - before) / 1_000_000) + 1)
            let ready = poll(&fds, nfds_t(fds.count), Int32(wait))
            if ready < 0, errno != EINTR { break }
            var done: [Int] = []
            for (position, child) in running.enumerated() {
                guard !child.isStopped else {
                    done.append(position)
                    continue
                }
                let events = fds[position].revents
                let now = readClock(CLOCK_MONOTONIC)
                if events & Int16(POLLOUT) != 0 { send(child, now: now) }
                var ended = false
                if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    switch receive(child, into: &chunk) {
                    case .more: child.lastActivity = now
                    case .ended: ended = true
                    case .tooLong:
                        kill(child.pid, SIGKILL)
                        _ = reap(child.pid)
                        if let reading = child.reading {
                            finish(reading, failure(requests[reading], "the file yields too many messages to hand over"))
                        }
                        handOnTheRest(of: child)
                        done.append(position)
                        continue
                    }
                }
                if let expansion = answer(of: child), let reading = child.reading {
                    finish(reading, expansion)
                    child.answered += 1
                    handNext(to: child, now: now)
                }
                if ended {
                    let status = reap(child.pid)
                    handOnTheRest(of: child)
                    if let reading = child.reading {
                        if child.answered > 0 {
                            queue.append([reading])
                        } else {
                            finish(reading, failure(requests[reading], describe(status, memoryLimit: limits.maximumReaderBytes)))
                        }
                    }
                    done.append(position)
                    continue
                }
                guard let began = child.began, now - child.lastLook >= lookInterval else { continue }
                child.lastLook = now
                let look = processState(of: child.pid)
                // Progress: a thread runs (or waits for a processor or the disk), or it computed a
                // tenth of the time since it last made progress; a loop that only wakes to look
                // whether it may go on is none (processor time comes in ticks of 10 ms). What it
                // computed before the first look is not known: asleep then, it counts as idle
                // since it began.
                let computed = look.processorTime - (child.processorAtActivity ?? look.processorTime)
                if !look.isBlocked || computed * 10 >= max(1, now - child.lastActivity) {
                    child.lastActivity = now
                    child.processorAtActivity = look.processorTime
                }
                if child.processorAtActivity == nil { child.processorAtActivity = look.processorTime }
                if child.processorAtBegin == nil { child.processorAtBegin = look.processorTime }
                child.processorSeen = look.processorTime
                let idle = now - child.lastActivity
                if child.processorOnFile >= perFile {
                    stop(child, "reading the file took longer than \(formatSeconds(limits.maximumSecondsPerFile)) "
                        + "of processor time; stopped")
                    done.append(position)
                } else if look.isBlocked, idle >= stalledLimit {
                    stop(child, "no progress for \(formatSeconds(idle)); stopped")
                    done.append(position)
                } else if now - began >= starvedAfter * perFile {
                    // Neither blocked nor computing: waiting for a processor or a disk that long.
                    stop(child, "reading the file took longer than \(formatSeconds(now - began)); stopped")
                    done.append(position)
                } else if child.setAsideAt == nil,
                    (look.isBlocked && idle >= blockedAfter) || child.processorOnFile >= setAsideAfter
                        || now - began >= setAsideOnTheClock
                {
                    let setAside = running.filter { $0.setAsideAt != nil && $0.reading != nil }
                    if setAside.count >= setAsidePlaces {
                        // Bounded: the one blocked longest makes room, tried again later.
                        guard let oldest = setAside.filter({ processState(of: $0.pid).isBlocked })
                            .min(by: { $0.lastActivity < $1.lastActivity })
                        else { continue }
                        stop(oldest, "no progress for \(formatSeconds(now - oldest.lastActivity)); stopped")
                    }
                    child.setAsideAt = now
                    handOnTheRest(of: child)
                }
            }
            for position in Set(done).sorted().reversed() {
                close(running[position].socket)
                running.remove(at: position)
            }
            let now = readClock(CLOCK_MONOTONIC)
            if let progress, !arrived.isEmpty, now - handedOn >= progressInterval, !(queue.isEmpty && running.isEmpty) {
                progress(arrived)
                arrived = []
                handedOn = now
            }
        }
        for child in running {
            kill(child.pid, SIGKILL)
            _ = reap(child.pid)
            close(child.socket)
        }
        return requests.indices.map {
            results[$0] ?? failure(requests[$0], "the feed reader was interrupted", transient: true)
        }
    }

    /// The requests grouped for helpers, in their order: each large file alone, small ones together.
    private static func batches(_ requests: [ExpansionRequest]) -> [[Int]] {
        var batches: [[Int]] = []
        var small: [Int] = []
        var smallBytes = 0
        for (index, request) in requests.enumerated() {
            guard request.bytes.count <= batchedFileBytes else {
                batches.append([index])
                continue
            }
            if small.count == batchFiles || smallBytes + request.bytes.count > batchBytes {
                batches.append(small)
                (small, smallBytes) = ([], 0)
            }
            small.append(index)
            smallBytes += request.bytes.count
        }
        if !small.isEmpty { batches.append(small) }
        return batches
    }

    private static func send(_ child: Child, now: Int64) {
        guard child.written < child.outgoing.count else { return }
        let count = child.outgoing[child.written...].withUnsafeBytes {
            Glibc.send(child.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if count > 0 { child.written += count }
        if count < 0, errno != EAGAIN, errno != EINTR { child.written = child.outgoing.count }
        if child.written == child.outgoing.count {
            // The file's clock starts when the helper has all of it.
            child.outgoing = []
            child.written = 0
            child.began = now
            child.lastActivity = now
            child.lastLook = now
            child.processorAtBegin = nil
            child.processorAtActivity = nil
            child.processorSeen = nil
        }
    }

    /// The processor time a process has used, in nanoseconds (user and system time from
    /// `/proc/PID/stat`, in clock ticks; 0 when it cannot be read), and whether every thread of
    /// it sleeps (waits for something other than the processor or the disk).
    private static func processState(of pid: pid_t) -> (processorTime: Int64, isBlocked: Bool) {
        func stat(_ path: String) -> (state: UInt8, fields: [ArraySlice<UInt8>])? {
            guard case .success(let bytes) = readFile(path, limit: 4096),
                let end = bytes.lastIndex(of: UInt8(ascii: ")"))
            else { return nil }
            let fields = bytes[(end + 1)...].split(separator: UInt8(ascii: " "))
            guard let state = fields.first?.first else { return nil }
            return (state, fields)
        }
        var processorTime: Int64 = 0
        // After the name: the state, then fields 4 to 13, then user and system time (14, 15).
        if let process = stat("/proc/\(pid)/stat"), process.fields.count > 12,
            let user = Int64(String(decoding: process.fields[11], as: UTF8.self)),
            let system = Int64(String(decoding: process.fields[12], as: UTF8.self))
        {
            processorTime = (user + system) * 1_000_000_000 / Int64(sysconf(Int32(_SC_CLK_TCK)))
        }
        var isBlocked = true
        for thread in directoryEntries("/proc/\(pid)/task") ?? [] {
            guard let state = stat("/proc/\(pid)/task/\(thread.name)/stat")?.state else { continue }
            // R runs or waits for a processor, D waits for the disk: both are progress to come.
            if state == UInt8(ascii: "R") || state == UInt8(ascii: "D") { isBlocked = false }
        }
        return (processorTime, isBlocked)
    }

    private enum Received {
        /// More may come.
        case more
        /// The helper closed its end.
        case ended
        /// Its answers pass `maximumAnswerBytes`.
        case tooLong
    }

    /// Reads what is there, through `chunk` (one for all helpers: a file's answer is often
    /// smaller than clearing a new one would cost).
    private static func receive(_ child: Child, into chunk: inout [UInt8]) -> Received {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(child.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                if !child.isGarbled { child.answer.append(contentsOf: chunk[0..<count]) }
                if child.answer.count > maximumAnswerBytes { return .tooLong }
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .more }
            return .ended
        }
    }

    /// The answer to the request it holds, once it arrived whole; something that is not an
    /// answer (or one it was not asked for) makes it garbled, and it is stopped.
    private static func answer(of child: Child) -> FeedExpansion? {
        guard !child.isGarbled, !child.answer.isEmpty else { return nil }
        guard let length = WireFrames.length(child.answer.prefix(8), longest: maximumAnswerBytes) else {
            if child.answer.count >= 8 { garble(child) }
            return nil
        }
        guard child.answer.count >= 8 + length else { return nil }
        guard child.reading != nil, child.answer.count == 8 + length,
            let expansion = FeedExpansion(decoding: child.answer[8..<8 + length])
        else {
            garble(child)
            return nil
        }
        child.answer = []
        return expansion
    }

    /// A helper that answers garbage is stopped; its file gets the verdict its end gives.
    private static func garble(_ child: Child) {
        child.isGarbled = true
        child.answer = []
        shutdown(child.socket, Int32(SHUT_WR))
    }

    private static func describe(_ status: Int32, memoryLimit: Int) -> String {
        let signal = status & 0x7F
        if signal == 0 { return "marquee's feed reader failed on this file (exit status \(status >> 8 & 0xFF))" }
        let name = strsignal(signal).map { String(cString: $0).lowercased() } ?? "signal \(signal)"
        return "libical crashed on this file (\(name)); the file is too deeply nested, too large (the reader may "
            + "use \(megabytes(memoryLimit))) or malformed in a way libical cannot survive"
    }

    /// Waits for the child and returns its raw wait status.
    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status
    }

    private struct StartFailure: Error {
        let code: Int32
    }

    private static func start(_ executable: String, _ arguments: [String]) -> Result<(pid_t, Int32), StartFailure> {
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            return .failure(StartFailure(code: errno))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 0)
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the box's: a reader that hangs holds no socket or file of the display's.
        mq_spawn_close_others(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // A crash is reported by the parent; the backtracer would only delay it. The helper
        // allocates tens of MB at once and then ends: one heap in transparent huge pages takes
        // a fifth of the page faults (a fifth less time for a 2 MB file; the kernel may ignore it).
        let settings = ["SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin",
                        "GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"]
        let environment: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0) } + [nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        close(sockets[1])
        guard result == 0 else {
            close(sockets[0])
            return .failure(StartFailure(code: result))
        }
        return .success((pid, sockets[0]))
    }

    private static func failure(_ request: ExpansionRequest, _ message: String, transient: Bool = false) -> FeedExpansion {
        FeedExpansion(problems: [FeedProblem(severity: .error, path: request.path, line: nil, message: message)],
                      readerGaveUp: true, isTransient: transient)
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// A duration in nanoseconds as a carer reads it: tenths of a second below ten seconds.
    private static func formatSeconds(_ nanoseconds: Int64) -> String {
        nanoseconds < 10_000_000_000
            ? formatSeconds(Double((nanoseconds + 50_000_000) / 100_000_000) / 10)
            : formatSeconds(Double((nanoseconds + 500_000_000) / 1_000_000_000))
    }
}
