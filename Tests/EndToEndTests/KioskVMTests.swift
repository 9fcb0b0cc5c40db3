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
        let script = CommandLineTests.root.appendingPathComponent("scripts/kiosk-vm-test").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [out]
        process.environment = ProcessInfo.processInfo.environment.merging(["MARQUEE_BINARY": CommandLineTests.binary]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let passed = output.split(separator: "\n").filter { $0.hasPrefix("ok   ") }
        #expect(passed.count == 24, "\(output)")
    }
}
