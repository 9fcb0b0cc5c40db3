import ArgumentParser
import Schedule

#if canImport(Glibc)
    import Glibc
#endif

/// A folder of the command's own under the system's temporary folder, for what a one-shot
/// command fetches; removed with what is in it when the command is done.
struct TemporaryFolder {
    let path: String

    init() throws {
        var template = Array(((environment()["TMPDIR"] ?? "/tmp") + "/marquee-fetch-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ValidationError("cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// Removes the folder and the files in it.
    func remove() {
        for entry in directoryEntries(path) ?? [] where entry.name != "." && entry.name != ".." {
            unlink(path + "/" + entry.name)
        }
        rmdir(path)
    }
}
