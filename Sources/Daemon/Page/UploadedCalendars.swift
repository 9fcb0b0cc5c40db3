import Schedule
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// Calendar files a carer uploads on the page (`<state_dir>/uploaded`, a feed folder the display
/// reads like the configured one): judged by the schedule (libical, in the helper) before one
/// is kept, so a broken file never replaces anything; one of the same name is replaced whole.
package struct UploadedCalendars: Sendable {
    /// `<state_dir>/uploaded`.
    package let folder: String

    /// The largest calendar taken (a year of a busy family's calendar is a few hundred KB).
    static let largest = 5 << 20
    static let longestName = 100

    package init(stateFolder: String) {
        folder = stateFolder + "/uploaded"
    }

    /// The file name a carer's file is kept under: its own name without any folder, made of
    /// letters, digits, spaces, `.`, `_`, `-`, ending in `.ics`; or why it cannot be.
    static func fileName(_ given: String) -> Result<String, CarerRefusal> {
        let name = String(given.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "").trimmingCharacters(in: " ")
        guard isFeedFileName(name), !name.hasPrefix(".") else {
            return .failure(CarerRefusal("“\(given)” is not a calendar file's name: it ends in .ics"))
        }
        guard name.count <= longestName,
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || " ._-".unicodeScalars.contains($0) })
        else {
            return .failure(CarerRefusal("a calendar file's name is at most \(longestName) letters, digits, spaces, dots, "
                + "dashes and underscores"))
        }
        return .success(name)
    }

    /// The calendar `bytes` named `name`, judged by `judge` (the schedule's reading): kept if
    /// usable, with its events; else the problems, each with the line, in `check`'s words.
    func keep(_ bytes: [UInt8], as name: String, judge: @Sendable ([UInt8], String) async -> FeedInspection) async
        -> Result<Int, CarerRefusal> {
        guard bytes.count <= Self.largest else {
            return .failure(CarerRefusal("a calendar file is at most \(Self.largest >> 20) MB"))
        }
        let inspection = await judge(bytes, name)
        let errors = inspection.problems.filter { $0.severity == .error }
        guard errors.isEmpty else {
            // The errors first, then the warnings that say why (the lines they are on).
            let said = errors + inspection.problems.filter { $0.severity != .error }
            return .failure(CarerRefusal(said.prefix(6).map(\.description).joined(separator: "\n")
                + (said.count > 6 ? "\n… and \(said.count - 6) more" : "")))
        }
        _ = mkdir(folder, 0o750)
        if let problem = writeFileAtomically(bytes, to: folder + "/" + name) { return .failure(CarerRefusal("cannot keep it: \(problem)")) }
        return .success(inspection.eventCount)
    }

    /// Removes the uploaded calendar `name`; why not, if it could not be.
    func remove(_ name: String) -> String? {
        guard case .success(let name) = Self.fileName(name) else { return "no such calendar" }
        guard unlink(folder + "/" + name) == 0 || errno == ENOENT else {
            return "cannot remove \(name): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Whether the feed at `path` is one of these.
    func holds(_ path: String) -> Bool { path.hasPrefix(folder + "/") }
}
