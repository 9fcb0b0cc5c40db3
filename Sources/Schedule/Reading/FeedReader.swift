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

/// The helper's side: reads a batch of requests (one file, or several small ones) from
/// standard input, bounds its own memory and CPU time, writes each expansion to standard
/// output as it finishes it and ends the process. Freeing libical's trees and the records
/// first would cost a fifth of the whole read for nothing.
package func serveFeedReading() async -> Never {
    var input: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        input.append(contentsOf: chunk[0..<count])
    }
    let items = WireBatch.decoded(input) ?? []
    let requests = items.compactMap(ExpansionRequest.init(decoding:))
    guard let first = requests.first, requests.count == items.count else { exit(2) }
    input = []
    var memory = rlimit(rlim_cur: rlim_t(first.limits.maximumReaderBytes), rlim_max: rlim_t(first.limits.maximumReaderBytes))
    setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &memory)
    // The parent kills a helper at a file's deadline; this ends one whose parent died first.
    let seconds = rlim_t(first.limits.maximumSecondsPerFile.rounded(.up)) * rlim_t(requests.count) + 1
    var cpu = rlimit(rlim_cur: seconds, rlim_max: seconds + 1)
    setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
    var files: [CalendarFile?] = []
    for request in requests {
        let (expansion, file) = await parsedAndExpanded(request)
        files.append(file)
        // Each answer as soon as it is ready: a later file that hangs costs only itself.
        let output = WireBatch.frame(expansion.encoded())
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

/// Helper processes for requests, a few at a time, each with its deadline. Small files go to
/// a helper together (starting a process costs more than reading a small file: a folder of
/// 20,000 one-event files, as vdirsyncer writes a CalDAV calendar, would start 20,000). A
/// helper answers each file as it finishes it, so a file that hangs or crashes libical costs
/// that file only: the files answered before it stand, a helper that has answered nothing for
/// `splitAfter` hands the files after the one it reads to a helper of their own, and a file
/// whose helper crashed while others were read with it is read again alone.
enum HelperRun {
    private final class Child {
        /// The requests it was given, by index, in the order it reads them.
        let indices: [Int]
        let pid: pid_t
        let socket: Int32
        let request: [UInt8]
        var written = 0
        var answer: [UInt8] = []
        /// How many of `indices` it has answered, and how many are still its to answer (the
        /// rest were handed to another helper).
        var answered = 0
        var assigned: Int
        /// When it last answered (or started), the processor time it had used by then, and
        /// when it is stopped unless it answers again.
        var lastProgress: Int64
        var processorAtProgress: Int64 = 0
        var deadline: Int64
        /// It sent something that is not an answer: nothing more it sends is read.
        var isGarbled = false
        /// It has computed on one file for `splitAfter`, or waited `blockedAfter`: it keeps only
        /// that file and no longer counts among the helpers running side by side.
        var isSlow = false

        init(indices: [Int], pid: pid_t, socket: Int32, request: [UInt8], now: Int64, deadline: Int64) {
            self.indices = indices
            self.pid = pid
            self.socket = socket
            self.request = request
            assigned = indices.count
            lastProgress = now
            self.deadline = deadline
        }

        var unanswered: ArraySlice<Int> { indices[answered..<assigned] }
    }

    /// Longer answers are refused (a budget's worth of activations is a few MB).
    static let maximumAnswerBytes = 256 << 20

    /// Files up to this size share a helper, up to `batchFiles` and `batchBytes` together.
    static let batchedFileBytes = 64 << 10
    static let batchFiles = 128
    static let batchBytes = 1 << 20

    /// A helper that has computed this long on one file (its processor time, so a helper that
    /// only waits for the processor on a busy machine is not taken for a hung one) gives the
    /// files after it to new helpers and keeps only that one, at the lowest priority; it no
    /// longer holds one of the places of helpers running side by side.
    static let splitAfter: Int64 = 250_000_000
    /// The same for a helper that answered nothing for this long without computing (blocked).
    static let blockedAfter: Int64 = 2_000_000_000
    /// A file's deadline counts the processor time its helper uses; a helper that neither
    /// computes nor answers is stopped after this many times the deadline on the clock.
    static let starvedAfter: Int64 = 4
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
        var pending = Array(batches(requests).reversed())
        var running: [Child] = []
        var arrived: [(index: Int, expansion: FeedExpansion)] = []
        var handedOn = readClock(CLOCK_MONOTONIC)
        let parallel = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let perFile = Int64(limits.maximumSecondsPerFile * 1e9)
        func finish(_ index: Int, _ expansion: FeedExpansion) {
            guard results[index] == nil else { return }
            results[index] = expansion
            if progress != nil { arrived.append((index, expansion)) }
        }
        /// A helper that ended without answering all of its files: the one it was reading is
        /// read again alone if it shared the helper (the others may have used up its memory),
        /// else it gets `why`; the rest go to a new helper.
        func fail(_ child: Child, _ why: @autoclosure () -> String) {
            let unanswered = Array(child.unanswered)
            guard let reading = unanswered.first else { return }
            if child.indices.count == 1 {
                finish(reading, failure(requests[reading], why()))
            } else {
                pending.append([reading])
            }
            if unanswered.count > 1 { pending.append(Array(unanswered.dropFirst())) }
        }
        while !pending.isEmpty || !running.isEmpty {
            while running.count(where: { !$0.isSlow }) < parallel, let batch = pending.popLast() {
                switch start(executable, arguments) {
                case .success(let (pid, socket)):
                    let request = WireBatch.encoded(batch.map { requests[$0].encoded() })
                    let now = readClock(CLOCK_MONOTONIC)
                    running.append(Child(indices: batch, pid: pid, socket: socket, request: request, now: now,
                                         deadline: now + perFile))
                case .failure(let error):
                    for index in batch {
                        finish(index, failure(requests[index], "cannot start marquee's feed reader \(executable): "
                            + String(cString: strerror(error.code))))
                    }
                }
            }
            var fds = running.map {
                pollfd(fd: $0.socket, events: Int16(POLLIN) | ($0.written < $0.request.count ? Int16(POLLOUT) : 0),
                       revents: 0)
            }
            let before = readClock(CLOCK_MONOTONIC)
            var wakeAt = running.map(\.deadline).min() ?? Int64.max
            for child in running where !child.isSlow {
                // Looked at again every 50 ms once it could be slow.
                wakeAt = min(wakeAt, max(child.lastProgress + splitAfter, before + 50_000_000))
            }
            if !arrived.isEmpty { wakeAt = min(wakeAt, handedOn + progressInterval) }
            let wait = wakeAt == Int64.max ? 1_000 : min(1_000, max(0, (wakeAt - before) / 1_000_000) + 1)
            let ready = poll(&fds, nfds_t(fds.count), Int32(wait))
            if ready < 0, errno != EINTR { break }
            var done: [Int] = []
            for (position, child) in running.enumerated() {
                let events = fds[position].revents
                if events & Int16(POLLOUT) != 0 { send(child) }
                var ended = false
                if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    switch receive(child) {
                    case .more: break
                    case .ended: ended = true
                    case .tooLong:
                        kill(child.pid, SIGKILL)
                        _ = reap(child.pid)
                        for index in child.unanswered {
                            finish(index, failure(requests[index], "the file yields too many messages to hand over"))
                        }
                        done.append(position)
                        continue
                    }
                }
                let now = readClock(CLOCK_MONOTONIC)
                let answered = answers(of: child)
                for expansion in answered {
                    finish(child.indices[child.answered], expansion)
                    child.answered += 1
                    child.lastProgress = now
                    child.deadline = now + perFile
                }
                if !answered.isEmpty, !child.unanswered.isEmpty { child.processorAtProgress = processorTime(of: child.pid) }
                if child.unanswered.isEmpty {
                    // All it was asked: a helper that was split would read on, so it is stopped.
                    if !ended { kill(child.pid, SIGKILL) }
                    _ = reap(child.pid)
                    done.append(position)
                } else if ended {
                    let status = reap(child.pid)
                    fail(child, describe(status, memoryLimit: limits.maximumReaderBytes))
                    done.append(position)
                } else if now >= child.deadline {
                    // The deadline is processor time: a helper at the lowest priority on a busy
                    // machine waits for a processor, which is not hanging. One that neither
                    // computes nor answers is stopped at `starvedAfter` times the deadline.
                    let used = processorTime(of: child.pid) - child.processorAtProgress
                    let latest = child.lastProgress + starvedAfter * perFile
                    if used < perFile, now < latest {
                        child.deadline = min(now + perFile - used, latest)
                        continue
                    }
                    kill(child.pid, SIGKILL)
                    _ = reap(child.pid)
                    let reading = child.unanswered.first!
                    finish(reading, failure(requests[reading], "reading the file took longer than "
                        + "\(formatSeconds(limits.maximumSecondsPerFile)); stopped"))
                    if child.unanswered.count > 1 { pending.append(Array(child.unanswered.dropFirst())) }
                    done.append(position)
                } else if !child.isSlow, now - child.lastProgress >= splitAfter {
                    let computing = processorTime(of: child.pid) - child.processorAtProgress >= splitAfter
                    guard computing || now - child.lastProgress >= blockedAfter else { continue }
                    // The rest in two halves: when the machine is only slow, or several files
                    // hang, it is read by helpers side by side, not by a chain of one at a time.
                    let rest = Array(child.unanswered.dropFirst())
                    let half = (rest.count + 1) / 2
                    pending.append(Array(rest.suffix(rest.count - half)))
                    pending.append(Array(rest.prefix(half)))
                    pending.removeAll { $0.isEmpty }
                    child.assigned = child.answered + 1
                    child.isSlow = true
                    if computing { lowerPriority(of: child.pid) }
                }
            }
            for position in done.reversed() {
                close(running[position].socket)
                running.remove(at: position)
            }
            let now = readClock(CLOCK_MONOTONIC)
            if let progress, !arrived.isEmpty, now - handedOn >= progressInterval, !(pending.isEmpty && running.isEmpty) {
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
        return requests.indices.map { results[$0] ?? failure(requests[$0], "the feed reader was interrupted") }
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

    private static func send(_ child: Child) {
        let count = child.request[child.written...].withUnsafeBytes {
            Glibc.send(child.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if count > 0 { child.written += count }
        if child.written == child.request.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
            child.written = child.request.count
            shutdown(child.socket, Int32(SHUT_WR))
        }
    }

    /// Gives every thread of a process the lowest priority (a priority is a thread's on Linux:
    /// libical runs on a thread of the helper's, not on its first one).
    private static func lowerPriority(of pid: pid_t) {
        for thread in directoryEntries("/proc/\(pid)/task") ?? [] {
            guard let id = id_t(thread.name) else { continue }
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id, 19)
        }
    }

    /// The processor time a process has used, in nanoseconds (user and system time from
    /// `/proc/PID/stat`, in clock ticks; 0 when it cannot be read).
    private static func processorTime(of pid: pid_t) -> Int64 {
        guard case .success(let bytes) = readFile("/proc/\(pid)/stat", limit: 4096),
            let end = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return 0 }
        // After the name: the state, then fields 4 to 13, then user and system time (14, 15).
        let fields = bytes[(end + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 12, let user = Int64(String(decoding: fields[11], as: UTF8.self)),
            let system = Int64(String(decoding: fields[12], as: UTF8.self))
        else { return 0 }
        return (user + system) * 1_000_000_000 / Int64(sysconf(Int32(_SC_CLK_TCK)))
    }

    private enum Received {
        /// More may come.
        case more
        /// The helper closed its end.
        case ended
        /// Its answers pass `maximumAnswerBytes`.
        case tooLong
    }

    /// Reads what is there.
    private static func receive(_ child: Child) -> Received {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
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

    /// The answers that arrived whole since the last look, at most as many as it still owes;
    /// something that is not an answer makes it garbled.
    private static func answers(of child: Child) -> [FeedExpansion] {
        guard !child.isGarbled, !child.answer.isEmpty else { return [] }
        guard let (frames, length) = WireBatch.completeFrames(child.answer[...], longest: maximumAnswerBytes) else {
            child.isGarbled = true
            child.answer = []
            return []
        }
        var expansions: [FeedExpansion] = []
        for frame in frames.prefix(child.unanswered.count) {
            guard let expansion = FeedExpansion(decoding: frame) else {
                child.isGarbled = true
                break
            }
            expansions.append(expansion)
        }
        child.answer.removeFirst(child.isGarbled ? child.answer.count : length)
        return expansions
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

    private static func failure(_ request: ExpansionRequest, _ message: String) -> FeedExpansion {
        FeedExpansion(problems: [FeedProblem(severity: .error, path: request.path, line: nil, message: message)],
                      readerGaveUp: true)
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

