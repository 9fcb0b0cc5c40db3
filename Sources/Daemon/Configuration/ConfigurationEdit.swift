import Support

#if canImport(Glibc)
    import Glibc
#endif

/// A change of some settings in the text of `marquee.toml`, as a person would make it: each
/// setting's `key = value` (one line, or an array over several) is replaced where it stands,
/// a setting not there yet is added at the end, a setting taken away is removed; every other
/// line, comments and blank lines are kept as they were. Read with the configuration's own
/// TOML reader, so the lines found are the lines `marquee run` reads.
enum ConfigurationEdit {
    /// One setting as the file has it: its value and its lines (from 1, the end exclusive).
    struct Setting: Sendable, Equatable {
        var value: TOMLValue
        var lines: Range<Int>
    }

    /// Each `key = value` of `text`, by its key as written; nil when the text cannot be read
    /// as `key = value` lines (then it is not edited: its own mistakes are said first).
    static func settings(in text: String) -> [String: Setting]? {
        var found: [String: Setting] = [:]
        var scanner = TOMLScanner(Substring(text))
        while true {
            scanner.skipSpaces()
            if scanner.atEnd { return found }
            if scanner.takeLineEnd() { continue }
            let first = scanner.line
            let key = scanner.bareKey()
            scanner.skipSpaces()
            guard !key.isEmpty, scanner.take("=") else { return nil }
            scanner.skipSpaces()
            guard let value = try? scanner.value() else { return nil }
            scanner.skipSpaces()
            let ended = scanner.atEnd
            guard ended || scanner.takeLineEnd() else { return nil }
            found[key] = Setting(value: value, lines: first..<(ended ? scanner.line + 1 : scanner.line))
        }
    }

    /// `text` with `changes` made (a nil value: the setting taken away); nil when `text`
    /// cannot be read as `key = value` lines.
    static func edited(_ text: String, _ changes: [(key: String, value: TOMLValue?)]) -> String? {
        guard let found = settings(in: text) else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let endsWithBreak = lines.last == ""
        if endsWithBreak { lines.removeLast() }
        // From the last lines up: a replacement never moves the lines of one still to come.
        let present = changes.compactMap { change in found[change.key].map { (change, $0.lines) } }
        for (change, range) in present.sorted(by: { $0.1.lowerBound > $1.1.lowerBound }) {
            lines.replaceSubrange((range.lowerBound - 1)..<min(lines.count, range.upperBound - 1),
                                  with: change.value.map { ["\(change.key) = \(written($0))"] } ?? [])
        }
        // New settings at the end, in the order given.
        let added = changes.filter { found[$0.key] == nil }.compactMap { change in change.value.map { "\(change.key) = \(written($0))" } }
        return (lines + added).joined(separator: "\n") + "\n"
    }

    /// The text of the configuration file at `path`; empty when there is none yet (the first
    /// change makes it).
    static func text(of path: String) -> Result<String, FileReadError> {
        (access(path, F_OK) != 0 && errno == ENOENT ? .success([]) : readFile(path, limit: 1 << 20))
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `before` with `changes` made to the file at `path`, whole or nothing: judged first
    /// as `marquee run` reads it, then renamed over the file, keeping the owner and group of the
    /// file it replaces, else of its folder (written by root, it stays the service's to read).
    /// Why not, in words (`FILE:LINE: key: …` as `check` says it, or the file and the reason);
    /// `unreadable` for a text that is not `key = value` lines.
    static func write(_ changes: [(key: String, value: TOMLValue?)], to before: String, at path: String,
                      unreadable: String) -> String? {
        guard let after = edited(before, changes) else { return "\(path): \(unreadable)" }
        do {
            _ = try ConfigurationFile.parse(after, path: path)
        } catch {
            return error.description
        }
        // 0640 (it may hold calendars' private addresses), the old file's owner (else the
        // folder's) and the folder's group: /etc/marquee is root:marquee, so the file root's setup
        // writes over the packaged root:root one stays readable by the display's user.
        var folder = stat(), old = stat()
        _ = stat(splitPath(path).folder, &folder)
        let owner = stat(path, &old) == 0 ? old.st_uid : folder.st_uid
        if let problem = writeFileAtomically(Array(after.utf8), to: path) { return "\(path): \(problem)" }
        if chown(path, owner, folder.st_gid) != 0 { _ = chown(path, getuid(), folder.st_gid) }
        return nil
    }

    /// A value as TOML writes it.
    static func written(_ value: TOMLValue) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        }
        switch value {
        case .string(let text): return quoted(text)
        case .integer(let number): return String(number)
        case .float(let number): return String(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .strings(let texts): return "[" + texts.map(quoted).joined(separator: ", ") + "]"
        }
    }
}
