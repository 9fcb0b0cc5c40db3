#if canImport(Glibc)
    import Glibc
#endif

/// The state folder could not be made or is not a folder marquee can write.
package struct StateFolderError: Error, CustomStringConvertible {
    package var description: String
}

/// Makes sure the state folder (`state_dir`, `--state-dir`) is there before anything is kept in
/// it: made, only for marquee's user (mode 0700), with the folders above it, when it is missing
/// (systemd's `StateDirectory=` makes it under the unit); refused, saying why, when it cannot be
/// made or written. Without it every last good copy would fail and be lost at a restart.
package func prepareStateFolder(_ path: String) throws(StateFolderError) {
    var info = stat()
    if stat(path, &info) != 0 {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var made = path.hasPrefix("/") ? "" : "."
        for (index, part) in parts.enumerated() {
            made += "/" + part
            if mkdir(made, index == parts.count - 1 ? 0o700 : 0o755) != 0, errno != EEXIST {
                throw StateFolderError(description: "cannot make the state folder \(path): \(String(cString: strerror(errno)))")
            }
        }
    } else if info.st_mode & S_IFMT != S_IFDIR {
        throw StateFolderError(description: "the state folder \(path) is not a folder")
    }
    guard access(path, W_OK | X_OK) == 0 else {
        throw StateFolderError(description: "cannot write in the state folder \(path): \(String(cString: strerror(errno)))")
    }
}
