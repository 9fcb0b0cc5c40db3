import Foundation
import Testing

@testable import Schedule

/// A VCALENDAR around the given components, CRLF line endings as RFC 5545 writes them.
func calendar(_ components: String..., header: [String] = []) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee tests//EN"] + header + components + ["END:VCALENDAR"])
        .joined(separator: "\r\n") + "\r\n"
}

/// A VEVENT with the given property lines (and a UID unless one is given).
func event(_ lines: String...) -> String {
    let uid = lines.contains { $0.hasPrefix("UID") } ? [] : ["UID:\(UUID().uuidString)"]
    return (["BEGIN:VEVENT"] + uid + lines + ["END:VEVENT"]).joined(separator: "\r\n")
}

/// Gives each test a temporary root for its `feedFolder`s, removed when the test ends.
struct TemporaryFolders: SuiteTrait, TestTrait, TestScoping {
    @TaskLocal static var root: URL?

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.$root.withValue(root) { try await function() }
    }
}

extension Trait where Self == TemporaryFolders {
    /// Folders made by `feedFolder` in the suite's tests are removed after each test.
    static var temporaryFolders: Self { TemporaryFolders() }
}

/// A fresh folder with the given files in it (under the test's temporary root).
func feedFolder(_ files: [String: String]) throws -> String {
    let parent = TemporaryFolders.root ?? FileManager.default.temporaryDirectory
    let folder = parent.appendingPathComponent("marquee-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, text) in files {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
    return folder.path
}

/// A schedule for one calendar text, shown in `zone`.
@ICalActor func schedule(_ text: String, zone: String = "Europe/Berlin") throws -> ScheduleState {
    let schedule = try ScheduleState(displayZone: zone)
    schedule.load([try feedFolder(["feed.ics": text])])
    return schedule
}

/// An instant written in RFC 3339.
func instant(_ text: String) -> Instant {
    guard case .instant(let instant) = TimeArgument(text) else {
        fatalError("not an RFC 3339 instant: \(text)")
    }
    return instant
}

extension ScheduleState {
    /// The texts active at an RFC 3339 instant.
    func texts(at time: String) -> [String] {
        messages(at: ScheduleTests.instant(time)).map(\.text)
    }
}
