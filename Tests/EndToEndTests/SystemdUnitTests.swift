import Foundation
import TestSupport
import Testing

/// The unit file as systemd itself reads it.
@Suite(.tags(.live), .tier(.live, needs: [.program("/usr/bin/systemd-analyze")])) struct SystemdUnitTests {
    /// `systemd-analyze verify` passes (with the built binary standing in for the installed one;
    /// the man page is installed by the package, as scripts/kiosk-system-test checks).
    @Test func unitVerifies() throws {
        let unit = try String(contentsOf: CommandLineTests.root.appendingPathComponent("systemd/marquee.service"),
                              encoding: .utf8)
        #expect(unit.contains("Type=notify"))
        #expect(unit.contains("WatchdogSec="))
        // systemd applies these to ExecReload= too: a reload would hang up the display.
        #expect(!unit.contains("TTYReset=yes") && !unit.contains("TTYVHangup=yes"))
        // The configuration file decides; nothing on the command line overrides it.
        #expect(unit.contains("ExecStart=/usr/bin/marquee run\n"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let local = folder.appendingPathComponent("marquee.service")
        try Data(unit.replacingOccurrences(of: "/usr/bin/marquee", with: CommandLineTests.binary).utf8).write(to: local)
        let run = try CommandLineTests.run("/usr/bin/systemd-analyze", "verify", "--man=no", local.path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.errors.contains("marquee.service"), "\(run.errors)")
        try FileManager.default.removeItem(at: folder)
    }

    /// The setup units verify too: the service runs `marquee setup` before the display, the
    /// path unit wakes it when the card's file changes, the Wi-Fi's joins it once
    /// NetworkManager runs.
    @Test func setupUnitsVerify() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["marquee-setup.service", "marquee-setup.path", "marquee-wifi.service"] {
            let unit = try String(contentsOf: CommandLineTests.root.appendingPathComponent("systemd/" + name), encoding: .utf8)
            try Data(unit.replacingOccurrences(of: "/usr/bin/marquee", with: CommandLineTests.binary).utf8)
                .write(to: folder.appendingPathComponent(name))
        }
        let service = try String(contentsOf: folder.appendingPathComponent("marquee-setup.service"), encoding: .utf8)
        #expect(service.contains("Before=marquee.service") && service.contains(" setup --restart-display\n"))
        let wifi = try String(contentsOf: folder.appendingPathComponent("marquee-wifi.service"), encoding: .utf8)
        #expect(wifi.contains("After=NetworkManager.service") && wifi.contains(" setup --join-wifi --restart-display\n"))
        let run = try CommandLineTests.run("/usr/bin/systemd-analyze", "verify", "--man=no",
                                           folder.appendingPathComponent("marquee-setup.service").path,
                                           folder.appendingPathComponent("marquee-setup.path").path,
                                           folder.appendingPathComponent("marquee-wifi.service").path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.errors.contains("marquee-setup") && !run.errors.contains("marquee-wifi"), "\(run.errors)")
    }

    /// The exposure `systemd-analyze security` measures is the one the guide says, the devices
    /// are a closed list and the unit's user is not in the tty group (which may write to every
    /// user's terminal).
    @Test func theGuideSaysTheMeasuredExposure() throws {
        let unit = CommandLineTests.root.appendingPathComponent("systemd/marquee.service").path
        let run = try CommandLineTests.run("/usr/bin/systemd-analyze", "security", "--offline=yes", "--no-pager", unit)
        let measured = try #require(run.output.firstMatch(of: /Overall exposure level for marquee.service: ([0-9.]+)/)?.1)
        let guide = try String(contentsOf: CommandLineTests.root.appendingPathComponent("docs/guide.md"), encoding: .utf8)
        #expect(guide.contains("`systemd-analyze security`\nrates it \(measured);"), "measured \(measured)")
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(text.contains("DevicePolicy=closed\n"))
        #expect(text.contains("SupplementaryGroups=video audio input\n"))
    }
}
