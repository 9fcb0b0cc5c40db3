#if canImport(Glibc)
    import Glibc
#endif

/// The whole file (at most `limit` bytes), or why it cannot be had.
package func readFile(_ path: String, limit: Int) -> Result<[UInt8], FileReadError> {
    readFile(systemPath: Array(path.utf8), limit: limit)
}

/// Reads a file whose path may not be UTF-8.
package func readFile(systemPath: [UInt8], limit: Int) -> Result<[UInt8], FileReadError> {
    let fd = (systemPath + [0]).withUnsafeBufferPointer { path in
        path.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
    }
    guard fd >= 0 else { return .failure(FileReadError(errno: errno)) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return .failure(FileReadError(errno: errno)) }
    if info.st_mode & S_IFMT == S_IFDIR { return .failure(FileReadError(message: "is a directory, not a feed file")) }
    guard info.st_mode & S_IFMT == S_IFREG else {
        return .failure(FileReadError(message: "is not a regular file"))
    }
    guard info.st_size <= limit else {
        return .failure(FileReadError(
            message: "the file is too large (\(sizeAgainstLimit(Int(info.st_size), limit)))"))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return .failure(FileReadError(errno: errno))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        guard bytes.count <= limit else {
            return .failure(FileReadError(message: "the file is too large (it grew past \(megabytes(limit)) while being read)"))
        }
    }
    return .success(bytes)
}

/// Why a file could not be read, in words for a person.
package struct FileReadError: Error {
    package var message: String

    package init(message: String) { self.message = message }

    package init(errno code: Int32) {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOENT: message = "cannot read the file: it does not exist"
        case ELOOP: message = "cannot read the file: too many levels of symbolic links (a symlink loop)"
        default: message = "cannot read the file: \(reason)"
        }
    }
}

/// "17.2 MB; the limit is 16.0 MB", in bytes where megabytes would read the same.
package func sizeAgainstLimit(_ size: Int, _ limit: Int) -> String {
    let (shown, allowed) = (megabytes(size), megabytes(limit))
    return shown == allowed ? "\(size) bytes; the limit is \(limit) bytes" : "\(shown); the limit is \(allowed)"
}

package func megabytes(_ bytes: Int) -> String {
    let tenths = (bytes * 10 + (1 << 19)) >> 20
    return "\(tenths / 10).\(tenths % 10) MB"
}

/// Writes `bytes` to `destination` so that after a crash or a power cut it is the old file or
/// the new one, whole: a temporary file of its own in the same folder (made anew, so a link
/// planted there is never followed), every byte written (a short write goes on; a disk that
/// takes nothing more is "No space left on device"), flushed to the disk, renamed over the
/// destination, and the folder flushed so the rename is kept. The reason when it failed
/// (then nothing was replaced and no temporary file is left). `ownedLikeItsFolder`: the file
/// is its folder's owner's and group's from the start (root's `marquee setup` writing into the
/// service's state folder, for the service to read: mode 0640 leaves others out).
package func writeFileAtomically(_ bytes: [UInt8], to destination: String, ownedLikeItsFolder: Bool = false) -> String? {
    var template = Array((destination + ".partial-XXXXXX").utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { return String(cString: strerror(errno)) }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    func failed(_ code: Int32) -> String {
        close(descriptor)
        unlink(temporary)
        return String(cString: strerror(code))
    }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0, errno == EINTR { continue }
        if written < 0 { return failed(errno) }
        if written == 0 { return failed(ENOSPC) }
        offset += written
    }
    let slash = destination.lastIndex(of: "/")
    let folderPath = slash.map { String(destination[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
    var folderInfo = stat()
    // Where the writer may not give it away (not root), it stays the writer's.
    if ownedLikeItsFolder, stat(folderPath, &folderInfo) == 0 { _ = fchown(descriptor, folderInfo.st_uid, folderInfo.st_gid) }
    guard fchmod(descriptor, 0o640) == 0, fsync(descriptor) == 0 else { return failed(errno) }
    close(descriptor)
    guard rename(temporary, destination) == 0 else {
        let code = errno
        unlink(temporary)
        return String(cString: strerror(code))
    }
    let folder = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
        fsync(folder)
        close(folder)
    }
    return nil
}

/// Removes what `writeFileAtomically` leaves in `folder` when the process dies between writing
/// and renaming (a power cut, a kill): its temporary files, which nothing else would read.
package func removeUnfinishedWrites(in folder: String) {
    for entry in directoryEntries(folder) ?? [] where isUnfinishedWrite(entry.name) {
        unlink(folder + "/" + entry.name)
    }
}

/// A temporary file of `writeFileAtomically`: the destination's name, `.partial-` and six
/// characters of `mkstemp`.
func isUnfinishedWrite(_ name: String) -> Bool {
    guard let range = name.ranges(of: ".partial-").last else { return false }
    return name[range.upperBound...].count == 6
}

/// The entries of a folder, or nil (with `errno` set) if it cannot be listed: each name as
/// shown (`shownName`) and as the system spells it.
package func directoryEntries(_ path: String) -> [(name: String, bytes: [UInt8])]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var entries: [(name: String, bytes: [UInt8])] = []
    while let entry = readdir(directory) {
        let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        entries.append((shownName(bytes), bytes))
    }
    return entries
}

/// A file name as text: its UTF-8, and each byte that is not UTF-8 as `\xHH` (a Latin-1
/// `M\xFCller.ics`), so two names that differ only there stay two names (as U+FFFD they were one).
package func shownName(_ bytes: [UInt8]) -> String {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    var name = ""
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let encoded):
            name.unicodeScalars.append(Unicode.UTF8.decode(encoded))
            offset += encoded.count
        case .error(let length):
            for byte in bytes[offset..<offset + length] { name += "\\x" + String(byte, radix: 16, uppercase: true) }
            offset += length
        case .emptyInput:
            return name
        }
    }
}

/// A path's folder and last component: `/dev/fb0` → (`/dev`, `fb0`), `/etc` → (`/`, `etc`),
/// `feeds` → (`.`, `feeds`).
package func splitPath(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    return (slash == path.startIndex ? "/" : String(path[..<slash]), String(path[path.index(after: slash)...]))
}

/// Why `user` could not read `path` (an absolute path) or enter a folder on the way to it,
/// judged by owners, groups and modes ("cannot read it (mode 600, owner root)"); nil when it
/// could, or when the user is unknown. For a check run as root, who reads everything.
package func whyUnreadable(_ path: String, byUser user: String) -> String? {
    guard let entry = getpwnam(user) else { return nil }
    let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
    var count: Int32 = 256
    var groups = [gid_t](repeating: 0, count: 256)
    if getgrouplist(user, gid, &groups, &count) < 0 { count = 0 }
    let member = Set(groups.prefix(Int(max(0, count))) + [gid])
    func allows(_ info: stat, _ bits: mode_t) -> Bool {
        let shift: mode_t = info.st_uid == uid ? 6 : member.contains(info.st_gid) ? 3 : 0
        return uid == 0 || (info.st_mode >> shift) & bits == bits
    }
    func mode(_ info: stat) -> String {
        "mode \(String(info.st_mode & 0o7777, radix: 8)), owner \(userName(info.st_uid))"
    }
    var info = stat()
    var folder = ""
    for part in path.split(separator: "/").dropLast() {
        folder += "/" + part
        if stat(folder, &info) == 0, !allows(info, 0o1) { return "cannot enter \(folder) (\(mode(info)))" }
    }
    guard stat(path, &info) == 0 else { return nil }
    let needed: mode_t = info.st_mode & S_IFMT == S_IFDIR ? 0o5 : 0o4
    return allows(info, needed) ? nil : "cannot read it (\(mode(info)))"
}

/// A user's name, or its number where the system has no name for it.
package func userName(_ uid: uid_t) -> String {
    getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? String(uid)
}

/// A group's name, or its number where the system has no name for it.
package func groupName(_ gid: gid_t) -> String {
    getgrgid(gid).map { String(cString: $0.pointee.gr_name) } ?? String(gid)
}

/// Removes the files of `folder` ending with `suffix` that are not in `wanted` (names) and were
/// last written more than `seconds` before `now` (seconds since 1970 on the machine's clock,
/// which file times are in): what was kept ahead for reminders that no longer want it.
package func removeStaleFiles(in folder: String, endingWith suffix: String, keeping wanted: Set<String>, olderThan seconds: Int64,
                              now: Int64) {
    for (name, _) in directoryEntries(folder) ?? [] where name.hasSuffix(suffix) && !wanted.contains(name) {
        var status = stat()
        let path = folder + "/" + name
        if stat(path, &status) == 0, now - Int64(status.st_mtim.tv_sec) > seconds {
            unlink(path)
        }
    }
}
