import DaemonTestKit
import Foundation
import Schedule
import TestSupport
import Testing

@testable import Daemon

/// The backlight as the kernel presents it: a folder per device with `type`, `max_brightness`
/// and `brightness`, written here in a temporary folder of the same shape.
struct BacklightTests {
    /// A `/sys/class/backlight` of the test's own.
    final class Devices {
        let folder = try! TemporaryFolder()
        var path: String { folder.path + "/class" }
        var note: String { folder.path + "/day-level" }

        init(_ devices: [(name: String, type: String, maximum: String, brightness: String)]) throws {
            for device in devices {
                let path = path + "/" + device.name
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                try Data((device.type + "\n").utf8).write(to: URL(fileURLWithPath: path + "/type"))
                try Data((device.maximum + "\n").utf8).write(to: URL(fileURLWithPath: path + "/max_brightness"))
                try Data((device.brightness + "\n").utf8).write(to: URL(fileURLWithPath: path + "/brightness"))
            }
        }

        func brightness(_ name: String) -> String? {
            try? String(contentsOfFile: path + "/" + name + "/brightness", encoding: .utf8)
        }
    }

    /// The firmware's backlight is chosen over a raw one (as the kernel advises); the night is
    /// 40 % of the day's level, reached in steps; the day's level is noted while dimmed, so a
    /// run after a crash at night knows it, and the note goes when the day is back.
    @Test func dimsTheChosenBacklightAndRemembersTheDay() throws {
        let devices = try Devices([
            ("acpi_video0", "firmware", "100", "80"), ("intel_backlight", "raw", "1000", "700"),
        ])
        let backlight = try #require(try Backlight.find(in: devices.path, notePath: devices.note))
        #expect(backlight.name == "acpi_video0")
        #expect((backlight.dayLevel, backlight.nightLevel(percent: 40)) == (80, 32))
        try backlight.setShade(0.5, nightPercent: 40)
        #expect(devices.brightness("acpi_video0") == "56\n")
        #expect(devices.brightness("intel_backlight") == "700\n")
        try backlight.setShade(1, nightPercent: 40)
        #expect(devices.brightness("acpi_video0") == "32\n")
        #expect((try? String(contentsOfFile: devices.note, encoding: .utf8)) == "80\n")

        // Stopped at night without brightening (a crash): the next run starts from the note.
        let after = try #require(try Backlight.find(in: devices.path, notePath: devices.note))
        #expect(after.dayLevel == 80)
        after.brightenForTheDay()
        #expect(devices.brightness("acpi_video0") == "80\n")
        #expect(!FileManager.default.fileExists(atPath: devices.note))
    }

    /// A dark screen switches the backlight off (`bl_power` 4) and on again (0); stopping
    /// leaves it on at the day's level.
    @Test func switchedOffForADarkScreen() throws {
        let devices = try Devices([("acpi_video0", "firmware", "100", "80")])
        let power = devices.path + "/acpi_video0/bl_power"
        try Data("0\n".utf8).write(to: URL(fileURLWithPath: power))
        let backlight = try #require(try Backlight.find(in: devices.path, notePath: nil))
        try backlight.setPower(false)
        #expect((try? String(contentsOfFile: power, encoding: .utf8)) == "4\n")
        backlight.brightenForTheDay()
        #expect((try? String(contentsOfFile: power, encoding: .utf8)) == "0\n")
        #expect(devices.brightness("acpi_video0") == "80\n")
    }

    /// A box without a backlight, one switched off, or one whose files make no sense is left
    /// alone: nil, or a problem that says which backlight.
    @Test func strangeBacklightsAreLeftAlone() throws {
        #expect(try Backlight.find(in: "/nonexistent/backlight", notePath: nil) == nil)
        let empty = try Devices([])
        try FileManager.default.createDirectory(atPath: empty.path, withIntermediateDirectories: true)
        #expect(try Backlight.find(in: empty.path, notePath: nil) == nil)
        let off = try Devices([("panel", "platform", "255", "0")])
        #expect(try Backlight.find(in: off.path, notePath: nil) == nil)
        for (maximum, brightness) in [("abc", "10"), ("0", "0"), ("255", "\u{FF}\u{FE}"), ("", "")] {
            let strange = try Devices([("panel", "platform", maximum, brightness)])
            #expect(throws: Backlight.Problem.self) {
                try Backlight.find(in: strange.path, notePath: nil)
            }
        }
        // A note that makes no sense (beyond the maximum) is not believed.
        let noted = try Devices([("panel", "platform", "255", "100")])
        try Data("99999\n".utf8).write(to: URL(fileURLWithPath: noted.note))
        let backlight = try #require(try Backlight.find(in: noted.path, notePath: noted.note))
        // 1 % of 100 is 1: never 0, which would leave the screen unlit.
        #expect((backlight.dayLevel, backlight.nightLevel(percent: 1), backlight.nightLevel(percent: 0)) == (100, 1, 1))
    }

    /// With a backlight the night dims it, step by step, and the colours stay as by day; the
    /// morning brings the day's level back.
    @Test func theNightDimsTheBacklightNotTheColours() async throws {
        let devices = try Devices([("panel", "platform", "255", "200")])
        let backlight = try #require(try Backlight.find(in: devices.path, notePath: devices.note))
        let kit = try await DisplayLoopKit(
            at: "2026-11-23T21:55:00+01:00", orientation: OrientationSettings(), backlight: backlight)
        await kit.advance(seconds: 10 * 60)
        // Half way through the dimming (22:05), half way down.
        #expect(devices.brightness("panel") == "140\n")
        await kit.advance(seconds: 10 * 60)
        #expect(devices.brightness("panel") == "80\n")
        #expect(kit.screen.shades.allSatisfy { $0.shade == 0 })
        await kit.advance(seconds: 9 * 3600)
        #expect(devices.brightness("panel") == "200\n")
        #expect(kit.screen.shades.allSatisfy { $0.shade == 0 })
    }

    /// A backlight that cannot be set (its brightness file gone unwritable) is given up with a
    /// warning, and the colours are darkened instead.
    @Test func aBacklightThatFailsGivesWayToTheColours() async throws {
        let devices = try Devices([("panel", "platform", "255", "200")])
        let backlight = try #require(try Backlight.find(in: devices.path, notePath: nil))
        let brightness = devices.path + "/panel/brightness"
        try FileManager.default.removeItem(atPath: brightness)
        try FileManager.default.createDirectory(atPath: brightness, withIntermediateDirectories: false)
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let kit = try await DisplayLoopKit(
            at: "2026-11-23T22:30:00+01:00", log: log, orientation: OrientationSettings(), backlight: backlight)
        await kit.advance(seconds: 1)
        #expect(kit.screen.shades.last?.shade == 1)
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines == ["<4>backlight panel: cannot set its brightness (Is a directory); the colours are darkened at night instead"])
    }
}
