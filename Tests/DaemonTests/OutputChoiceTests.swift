import Display
import Testing

@testable import Daemon

/// `--output auto` picks the framebuffer exactly when the kernel will let marquee own the
/// console and the device is writable, and says why when it does not.
@Suite struct OutputChoiceTests {
    @Test func theUnitsConsoleIsOwnedAsItsControllingTerminal() {
        let choice = OutputChoice.decide(
            .auto, device: "/dev/fb0", console: (1, .controllingTerminal), deviceProblem: nil)
        #expect(choice.target == .framebuffer)
        #expect(!choice.isFallback)
        #expect(choice.reason == "tty1 is marquee's controlling terminal and /dev/fb0 is writable")
    }

    @Test func rootMayAlwaysTakeTheConsole() {
        let choice = OutputChoice.decide(.auto, device: "/dev/fb0", console: (3, .root), deviceProblem: nil)
        #expect(choice.target == .framebuffer)
        #expect(choice.reason.hasPrefix("marquee runs as root"))
    }

    @Test func aConsoleOfAnotherSessionFallsBackWithItsReason() {
        let choice = OutputChoice.decide(
            .auto, device: "/dev/fb0", console: (2, .notOurs("tty2 belongs to session 7, marquee runs in session 9")),
            deviceProblem: nil)
        #expect(choice.target == .terminal)
        #expect(choice.isFallback)
        #expect(choice.reason == "cannot put tty2 in graphics mode: tty2 belongs to session 7, marquee runs in session 9")
    }

    @Test func anUnwritableDeviceFallsBackWithTheError() {
        let choice = OutputChoice.decide(
            .auto, device: "/dev/fb0", console: (1, .controllingTerminal), deviceProblem: "Permission denied")
        #expect(choice.target == .terminal)
        #expect(choice.isFallback)
        #expect(choice.reason == "/dev/fb0: Permission denied")
    }

    @Test func noConsoleIsNoFallback() {
        let choice = OutputChoice.decide(.auto, device: "/dev/fb0", console: nil, deviceProblem: nil)
        #expect(choice.target == .terminal)
        #expect(!choice.isFallback)
    }

    @Test func anExplicitRequestIsFollowed() {
        #expect(OutputChoice.decide(.framebuffer, device: "/dev/fb1", console: nil, deviceProblem: "x").target == .framebuffer)
        #expect(OutputChoice.decide(.terminal, device: "/dev/fb0", console: (1, .root), deviceProblem: nil).target == .terminal)
    }
}
