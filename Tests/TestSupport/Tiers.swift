import Foundation
import Testing

/// The tests in three tiers. **unit**: the code alone, fast, nothing outside the process but
/// temporary files. **live**: real programs on this machine (the built binary in tmux, nginx
/// with its own certificate authority, inotify, helper processes). **system**: the package as
/// a kiosk installs it, in QEMU with systemd, as root. `swift test` runs all three;
/// `MARQUEE_TEST_TIERS=unit` (or `unit,live`) picks some, the unit tier always among them
/// (its tests carry no tier: they need nothing). A test whose tier is left out, or
/// whose needs (root, a program) this machine lacks, is skipped with the reason; where
/// `MARQUEE_TESTS_REQUIRED=1` (CI sets it) nothing is skipped: such a test runs, and fails.
package enum TestTier: String, CaseIterable, Sendable {
    case unit, live, system

    /// Whether this tier's tests run here, and if not, why.
    package func skipReason(needing needs: [TestNeed] = []) -> String? {
        let environment = ProcessInfo.processInfo.environment
        if environment["MARQUEE_TESTS_REQUIRED"] == "1" { return nil }
        if self != .unit, let chosen = environment["MARQUEE_TEST_TIERS"] {
            let tiers = chosen.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if !tiers.contains(rawValue) { return "the \(rawValue) tier is not chosen (MARQUEE_TEST_TIERS=\(chosen))" }
        }
        let missing = needs.filter { !$0.isMet }
        guard !missing.isEmpty else { return nil }
        return "needs " + missing.map(\.description).joined(separator: " and ")
    }
}

/// What a test needs of the machine.
package enum TestNeed: Sendable, CustomStringConvertible {
    case root
    /// A program, by its path.
    case program(String)

    var isMet: Bool {
        switch self {
        case .root: geteuid() == 0
        case .program(let path): FileManager.default.isExecutableFile(atPath: path)
        }
    }

    package var description: String {
        switch self {
        case .root: "root"
        case .program(let path): path
        }
    }
}

extension Tag {
    /// Real programs on this machine.
    @Tag package static var live: Self
    /// The installed package in QEMU.
    @Tag package static var system: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs the test (or suite) only where its tier and its needs allow, skipped with the reason
    /// otherwise (never where every test is required).
    package static func tier(_ tier: TestTier, needs: [TestNeed] = []) -> Self {
        let reason = tier.skipReason(needing: needs)
        return .enabled(if: reason == nil, Comment(rawValue: "\(tier.rawValue) tier: \(reason ?? "runs")"))
    }
}
