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

/// Runs a program to its end: its exit status (127: it could not be started), what it
/// wrote on standard output and on standard error.
package func runProgram(_ path: String, _ arguments: [String]) -> (status: Int32, output: String, errors: String) {
    var output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
    // Close-on-exec: the box's other children (the feed readers) get none of these ends.
    guard mq_pipe(&output) == 0 else { return (127, "", "no pipe") }
    guard mq_pipe(&errors) == 0 else {
        close(output[0]); close(output[1])
        return (127, "", "no pipe")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    mq_spawn_close_others(&actions)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let started = posix_spawn(&pid, path, &actions, nil, argv, [nil])
    close(output[1])
    close(errors[1])
    defer { close(output[0]); close(errors[0]) }
    guard started == 0 else { return (127, "", String(cString: strerror(started))) }
    // openssl writes little: a pipe's buffer holds standard error while standard output is read.
    let said = readAll(output[0]), complaints = readAll(errors[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exited, said, complaints)
}

private func readAll(_ descriptor: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
