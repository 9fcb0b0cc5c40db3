import Foundation
import Testing

/// A folder of its own under the system's temporary folder, removed with the value.
package final class TemporaryFolder: Sendable {
    package let path: String

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The folder as a file URL.
    package var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    package func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }
}

/// Runs `body` with a folder of its own, removed when `body` returns or throws.
package func withTemporaryFolder<Result>(_ body: (TemporaryFolder) throws -> Result) throws -> Result {
    let folder = try TemporaryFolder()
    return try withExtendedLifetime(folder) { try body(folder) }
}

/// Gives each test a temporary folder for its `feedFolder`s, removed when the test ends.
package struct TemporaryFolders: SuiteTrait, TestTrait, TestScoping {
    @TaskLocal static var root: TemporaryFolder?

    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let root = try TemporaryFolder()
        try await Self.$root.withValue(root) { try await function() }
        withExtendedLifetime(root) {}
    }
}

extension Trait where Self == TemporaryFolders {
    /// Folders made by `feedFolder` in the suite's tests are removed after each test.
    package static var temporaryFolders: Self { TemporaryFolders() }
}

/// A fresh folder with the given files in it, in the test's temporary folder (a suite with
/// the `temporaryFolders` trait).
package func feedFolder(_ files: [String: String]) throws -> String {
    let parent = TemporaryFolders.root?.path ?? FileManager.default.temporaryDirectory.path
    let folder = parent + "/feeds-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (name, text) in files {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
    return folder
}
