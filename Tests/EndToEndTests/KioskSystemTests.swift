import Foundation
import Testing

/// The kiosk as installed (scripts/kiosk-system-test): Debian 12 booted with systemd in QEMU,
/// the Debian package installed with apt as the README says, the unit's user and groups. The
/// screenshots must show the ticker on the framebuffer (vesafb, bochs-drm, and a hand-over
/// from one to the other while it runs), through drop-ins, reloads, console switches, a
/// SIGKILL and a watchdog restart; a stop gives tty1 back to its login prompt.
@Suite struct KioskSystemTests {
    @Test(.timeLimit(.minutes(45))) func installedPackageDrawsOnTheFramebuffer() throws {
        let out = NSTemporaryDirectory() + "marquee-kiosk-system-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let script = CommandLineTests.root.appendingPathComponent("scripts/kiosk-system-test").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        // Other tests share the machine meanwhile, and the guest is emulated: a dropped-in file
        // may take longer than on hardware (the note gives the figure measured alone).
        process.arguments = ["--out", out, "--drop-in-limit", "3"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed"), "\(output)")
    }
}
