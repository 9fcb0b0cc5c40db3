import Foundation
import Support
import TestSupport
import Testing

/// The kiosk as installed (scripts/kiosk-system-test): Debian 12 booted with systemd in QEMU,
/// the Debian package installed with apt as the README says, the unit's user and groups. The
/// screenshots must show the ticker on the framebuffer (vesafb, bochs-drm, and a hand-over
/// from one to the other while it runs), through drop-ins, reloads, console switches, a
/// SIGKILL and a watchdog restart; a stop gives tty1 back to its login prompt. At night, on a
/// panel with a backlight, the backlight is turned down, not the colours. A reminder is heard
/// through the sound card at its time and acknowledged with a key on the box's keyboard. A box
/// upgrades from the signed repository `scripts/release` makes, and the ready image
/// (`scripts/build-image`) starts from a USB stick under UEFI firmware with a carer's setup file.
@Suite(.tags(.system), .tier(.system, needs: [.root, .program("/usr/bin/qemu-system-x86_64"), .program("/usr/sbin/debootstrap"), .program("/usr/bin/lintian"), .program("/usr/bin/mmdebstrap"), .program("/usr/bin/apt-ftparchive")]))
struct KioskSystemTests {
    @Test(.timeLimit(.minutes(60))) func installedPackageDrawsOnTheFramebuffer() async throws {
        let out = NSTemporaryDirectory() + "marquee-kiosk-system-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        // Other tests share the machine meanwhile, and the guest is emulated: a dropped-in file
        // may take longer than on hardware (the note gives the figure measured alone).
        // A quarter of an hour: on a thread of its own, not one of the few the other tests share.
        let run = await onThread(named: "kiosk-system-test") {
            Result { try CommandLineTests.script("kiosk-system-test", ["--out", out, "--drop-in-limit", "3"]) }
        }
        let (status, output) = try #require(run).get()
        // The failed checks first: CI's log keeps the start and the end of a long message.
        let failed = output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.joined(separator: "\n")
        #expect(status == 0, "\(failed)\n\(output)")
        #expect(output.contains(" passed, 0 failed"), "\(failed)")
        for variant in ["vesafb", "drm", "handover", "night"] {
            #expect(output.contains("PASS \(variant): marquee.service active"), "\(variant) did not run: \(output)")
        }
        #expect(output.contains("PASS drm: the evening pills heard"), "the sound was not checked: \(output)")
        #expect(output.contains("PASS kms: unattended-upgrades installed"), "the upgrade was not checked: \(output)")
        #expect(output.contains("PASS image: started as the box starts"), "the image was not booted: \(output)")
        #expect(output.contains("PASS image: on a card 1 GiB larger"), "the image's growth was not checked: \(output)")
    }
}
