import CLinux

#if canImport(Glibc)
    import Glibc
#endif

// What a command asks of the machine beyond files: its name, and another program run to its end.

/// The machine's host name ("kitchen"): it names the box on a broker unless told, and in the
/// carer's page's own certificate.
package func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "marquee" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Runs a program to its end with an empty environment (so nmcli and openssl answer in the C
/// locale, whatever the box's language): its exit status (127: it could not be started), what
/// it wrote on standard output and on standard error.
package func runProgram(_ path: String, _ arguments: [String]) -> (status: Int32, output: String, errors: String) {
    let run = runProgram(path, arguments, input: [], environment: [])
    return (run.status, String(decoding: run.output, as: UTF8.self), run.errors)
}

/// How a program run by `runProgram(_:_:input:within:outputLimit:)` ended.
package struct ProgramRun: Sendable {
    /// Its exit status (127: it could not be started; 128 + a signal's number: killed by it).
    package var status: Int32
    package var output: [UInt8]
    /// What it said on standard error (the last 4 KiB).
    package var errors: String
    /// Whether it was ended for taking longer than it was given.
    package var timedOut = false
    /// Whether it was ended for writing more than it may.
    package var tooLong = false
    /// The signal that ended it (nil: it exited).
    package var signal: Int32?
}

/// Runs a program with `input` on its standard input, for at most `seconds` (nil: to its end)
/// and at most `outputLimit` bytes of output: one that hangs or floods is killed with its
/// process group and said so. `environment` nil: this process's (a program found by the
/// carer, such as Piper, may need its `HOME` or `PATH`).
package func runProgram(
    _ path: String, _ arguments: [String], input: [UInt8], within seconds: Double? = nil, outputLimit: Int = 1 << 26,
    environment: [String]? = nil
) -> ProgramRun {
    var pipes: [[Int32]] = [[0, 0], [0, 0], [0, 0]]
    // Close-on-exec: the box's other children (the feed readers) get none of these ends.
    for index in pipes.indices where mq_pipe(&pipes[index]) != 0 {
        for made in pipes[..<index] { close(made[0]); close(made[1]) }
        return ProgramRun(status: 127, output: [], errors: "no pipe")
    }
    let (toProgram, fromProgram, complaints) = (pipes[0], pipes[1], pipes[2])
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toProgram[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromProgram[1], 1)
    posix_spawn_file_actions_adddup2(&actions, complaints[1], 2)
    mq_spawn_close_others(&actions)
    // A group of its own (what it starts ends with it); no signal blocked and the stopping
    // ones as a program expects them, whatever this process does with them (the display
    // ignores SIGPIPE; a libdispatch thread blocks every signal).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), defaults = sigset_t()
    sigemptyset(&none)
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { $0.map { strdup($0) } + [nil] }
    defer {
        argv.forEach { free($0) }
        envp?.forEach { free($0) }
    }
    var pid: pid_t = 0
    let started = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
        ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    close(toProgram[0])
    close(fromProgram[1])
    close(complaints[1])
    defer { close(fromProgram[0]); close(complaints[0]) }
    guard started == 0 else {
        close(toProgram[1])
        return ProgramRun(status: 127, output: [], errors: String(cString: strerror(started)))
    }
    var run = ProgramRun(status: 0, output: [], errors: "")
    var errorBytes: [UInt8] = []
    let deadline = seconds.map { readClock(CLOCK_MONOTONIC) + Int64($0 * 1e9) }
    var unwritten = input[...]
    var writing: Int32 = toProgram[1]
    // A program that ends before reading all its input must not end this one with SIGPIPE:
    // the signal is held on this thread while writing, and one that came is taken.
    var pipeSignal = sigset_t(), held = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &held)
    defer {
        var none = timespec()
        while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
        pthread_sigmask(SIG_SETMASK, &held, nil)
    }
    if unwritten.isEmpty { close(writing); writing = -1 } else { _ = fcntl(writing, F_SETFL, O_NONBLOCK) }
    var open = (output: true, errors: true)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while open.output || open.errors {
        let left = deadline.map { max(0, Int32(($0 - readClock(CLOCK_MONOTONIC)) / 1_000_000)) } ?? -1
        if left == 0 { run.timedOut = true; break }
        var watched = [pollfd(fd: open.output ? fromProgram[0] : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: open.errors ? complaints[0] : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)]
        let ready = poll(&watched, 3, left)
        if ready < 0 { if errno == EINTR { continue } else { break } }
        if watched[2].revents != 0 {
            let count = unwritten.withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
            if count > 0 { unwritten = unwritten.dropFirst(count) }
            if count < 0 && errno != EAGAIN && errno != EINTR || unwritten.isEmpty { close(writing); writing = -1 }
        }
        for (index, descriptor) in [fromProgram[0], complaints[0]].enumerated() where watched[index].revents != 0 {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                if index == 0 { open.output = false } else { open.errors = false }
                continue
            }
            if index == 0 { run.output += buffer[..<count] } else { errorBytes = Array((errorBytes + buffer[..<count]).suffix(4096)) }
        }
        if run.output.count > outputLimit { run.tooLong = true; break }
    }
    if writing >= 0 { close(writing) }
    if run.timedOut || run.tooLong { kill(-pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    run.status = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    if status & 0x7F != 0 { run.signal = status & 0x7F }
    run.errors = String(decoding: errorBytes, as: UTF8.self)
    return run
}
