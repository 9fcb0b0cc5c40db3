import Foundation
import Testing

/// The framebuffer display on a real kernel in QEMU (scripts/kiosk-vm-test): vesafb RGB565 and
/// bochs-drm XRGB8888 screenshots show the examples' text, motion between two shots, nothing
/// from the console over the ticker, a console switch away and back, the console's own text
/// back after the ticker stopped, and after a killed ticker once `marquee reset-console` ran.
@Suite struct KioskVMTests {
    @Test(.timeLimit(.minutes(10))) func framebufferOnARealKernel() throws {
        let out = NSTemporaryDirectory() + "marquee-kiosk-vm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (status, output) = try CommandLineTests.script(
            "kiosk-vm-test", [out], environment: ["MARQUEE_BINARY": CommandLineTests.binary])
        #expect(status == 0, "\(output)")
        let passed = output.split(separator: "\n").filter { $0.hasPrefix("ok   ") }
        #expect(passed.count == 24, "\(output)")
    }
}
