import Foundation
import TestSupport
import Testing

/// `marquee snapshot`: the framebuffer display's picture as a PNG file.
@Suite(.tags(.live), .tier(.live)) struct SnapshotTests {
    func pngSize(_ path: String) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        func number(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    @Test func writesThePictureAtTheChosenSize() throws {
        let out = NSTemporaryDirectory() + "marquee-snapshot-\(UUID().uuidString).png"
        defer { unlink(out) }
        let run = try CommandLineTests.marquee(
            "snapshot", "--feeds", CommandLineTests.examples, "--at", "2027-03-03 10:00", "--running", "2",
            "--size", "800x480", "--out", out)
        #expect(run.status == 0, "\(run.errors)")
        let size = try pngSize(out)
        #expect(size.width == 800 && size.height == 480)
    }

    /// The same instant gives the same picture, byte for byte (the position is a function of time).
    @Test func sameInstantSamePicture() throws {
        let first = NSTemporaryDirectory() + "marquee-snapshot-\(UUID().uuidString).png"
        let second = NSTemporaryDirectory() + "marquee-snapshot-\(UUID().uuidString).png"
        defer { unlink(first); unlink(second) }
        for out in [first, second] {
            let run = try CommandLineTests.marquee(
                "snapshot", "--feeds", CommandLineTests.examples, "--at", "2026-12-24 21:30", "--running", "7.25",
                "--size", "640x360", "--out", out)
            #expect(run.status == 0, "\(run.errors)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
    }

    @Test(arguments: [
        (["--size", "800"], "--size must be WIDTHxHEIGHT"),
        (["--size", "10x10"], "--size must be WIDTHxHEIGHT"),
        (["--at", "yesterday"], "is not a time"),
        (["--running=-1"], "--running must be 0 to 86400 seconds"),
    ])
    func badOptionsAreUsageErrors(options: [String], message: String) throws {
        let run = try CommandLineTests.marquee(["snapshot", "--feeds", CommandLineTests.examples, "--out", "/tmp/x.png"] + options)
        #expect(run.status == 2)
        #expect(run.errors.contains(message), "\(run.errors)")
    }

    @Test func unwritableFileIsAnError() throws {
        let run = try CommandLineTests.marquee(
            "snapshot", "--feeds", CommandLineTests.examples, "--size", "320x240", "--out", "/nonexistent/dir/x.png")
        #expect(run.status == 1)
        #expect(run.errors.contains("/nonexistent/dir/x.png"), "\(run.errors)")
    }

    /// A font file FreeType cannot open is reported; the defaults behind it still draw. One that
    /// does not exist is a mistake in the configuration, refused with its line.
    @Test func brokenConfiguredFontFallsBack() throws {
        let config = NSTemporaryDirectory() + "marquee-\(UUID().uuidString).toml"
        let notAFont = NSTemporaryDirectory() + "marquee-\(UUID().uuidString).ttf"
        let out = NSTemporaryDirectory() + "marquee-snapshot-\(UUID().uuidString).png"
        defer { unlink(config); unlink(notAFont); unlink(out) }
        try Data("not a font".utf8).write(to: URL(fileURLWithPath: notAFont))
        try Data("font = \"\(notAFont)\"\ntext_height = 0.2\n".utf8).write(to: URL(fileURLWithPath: config))
        let run = try CommandLineTests.marquee(
            "snapshot", "--feeds", CommandLineTests.examples, "--config", config, "--size", "320x240", "--out", out)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("warning: \(notAFont): not a font FreeType can open"), "\(run.errors)")
        #expect(try pngSize(out) == (320, 240))
        try Data("font = \"/nonexistent/font.ttf\"\n".utf8).write(to: URL(fileURLWithPath: config))
        let missing = try CommandLineTests.marquee(
            "snapshot", "--feeds", CommandLineTests.examples, "--config", config, "--size", "320x240", "--out", out)
        #expect(missing.status == 1)
        #expect(missing.errors.contains("\(config):1: `font` there is no font file to read at /nonexistent/font.ttf"), "\(missing.errors)")
    }
}

/// `marquee run --output framebuffer` where there is no usable framebuffer says why and exits 1.
@Suite(.tags(.live), .tier(.live)) struct FramebufferOutputTests {
    @Test(arguments: [
        ("/nonexistent/fb0", "/nonexistent/fb0: No such file or directory"),
        ("/dev/null", "/dev/null: not a framebuffer device"),
    ])
    func missingDeviceIsAnError(device: String, message: String) throws {
        let run = try CommandLineTests.marquee(
            "run", "--feeds", CommandLineTests.examples, "--output", "framebuffer", "--device", device,
            "--socket", NSTemporaryDirectory() + "marquee-\(UUID().uuidString).sock")
        #expect(run.status == 1)
        #expect(run.errors.contains(message), "\(run.errors)")
    }

    /// Put back a console after a crash: refused, with the reason, for what is not a console.
    @Test func resetConsoleNeedsAVirtualConsole() throws {
        let run = try CommandLineTests.marquee("reset-console", "/dev/null")
        #expect(run.status == 1)
        #expect(run.errors.contains("/dev/null is not a virtual console"), "\(run.errors)")
    }
}
