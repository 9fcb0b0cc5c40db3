import Support
#if canImport(Glibc)
    import Glibc
#endif

/// A feed file's path as one file name (for its last good copy): `%` and `/` escaped. A name
/// longer than a file name may be (255 bytes) keeps its start and ends in a hash of the path.
func escapedFileName(_ path: String) -> String {
    let escaped = path.replacing("%", with: "%25").replacing("/", with: "%2F")
    guard escaped.utf8.count > 200 else { return escaped + ".last-good" }
    let hash = stableHash(path)
    var start = ""
    for character in escaped {
        guard start.utf8.count + character.utf8.count <= 160 else { break }
        start.append(character)
    }
    return start + "~" + String(hash, radix: 16) + ".last-good"
}

/// Whether a file in a feed folder is a feed: `*.ics` (any case), not hidden (editors' and
/// sync tools' temporary files are).
package func isFeedFileName(_ name: String) -> Bool {
    !name.hasPrefix(".") && name.lowercased().hasSuffix(".ics")
}

/// The feed file a last good copy was kept for; nil for a copy whose long name was shortened.
func originalPath(ofCopy name: String) -> String? {
    guard name.hasSuffix(".last-good") else { return nil }
    let path = String(name.dropLast(".last-good".count)).replacing("%2F", with: "/").replacing("%25", with: "%")
    return escapedFileName(path) == name ? path : nil
}

/// Removes the last good copies of files that are no longer feeds (deleted from the folder).
func forgetCopies(in directory: String, keeping paths: Set<String>) {
    removeUnfinishedWrites(in: directory)
    let wanted = Set(paths.map(escapedFileName))
    for entry in directoryEntries(directory) ?? [] where entry.name.hasSuffix(".last-good") && !wanted.contains(entry.name) {
        unlink(directory + "/" + entry.name)
    }
}

/// The feed files a path stands for: the path itself, or a folder's `*.ics` files.
func feedFiles(in path: String) -> Result<[FeedFile], FeedProblem> {
    var info = stat()
    guard stat(path, &info) == 0 else {
        let reason = errno == ENOENT ? "does not exist" : String(cString: strerror(errno))
        return .failure(FeedProblem(severity: .error, path: path, line: nil, message: "cannot read: \(reason)"))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else { return .success([FeedFile(path: path, systemPath: Array(path.utf8))]) }
    guard let entries = directoryEntries(path) else {
        return .failure(FeedProblem(severity: .error, path: path, line: nil,
                                    message: "cannot list the folder: \(String(cString: strerror(errno)))"))
    }
    let folder = path.hasSuffix("/") ? path : path + "/"
    return .success(entries.filter { isFeedFileName($0.name) }
        .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        .map { FeedFile(path: folder + $0.name, systemPath: Array(folder.utf8) + $0.bytes) })
}

/// What is said of a feed folder with no calendar in it: a carer's mistake to be told of, with
/// the files that would be read if named `*.ics`.
package func noCalendarsProblem(in folder: String) -> FeedProblem {
    let names = (directoryEntries(folder) ?? []).map(\.name).filter { !$0.hasPrefix(".") }
    let near = names.filter { name in [".ical", ".ifb", ".icalendar", ".vcs"].contains { name.lowercased().hasSuffix($0) } }
    return FeedProblem(severity: .error, path: folder, line: nil, message: "no calendar files (*.ics) in it"
        + (near.isEmpty ? "" : "; \(near.prefix(3).joined(separator: ", ")) would be read if named *.ics"))
}

/// A feed file: its path as shown, and as the system spells it (they differ where a name is
/// not UTF-8, as a Latin-1 `Müller.ics` copied from an old machine).
struct FeedFile {
    var path: String
    var systemPath: [UInt8]
}
