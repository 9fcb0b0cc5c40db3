import Display
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@testable import Daemon

/// `--output auto` tries KMS, then the framebuffer, exactly when the kernel will let marquee
/// own the console, and says why when it may not.
@Suite struct OutputChoiceTests {
    @Test func theUnitsConsoleIsOwnedAsItsControllingTerminal() {
        let choice = OutputChoice.decide(.auto, device: nil, console: (1, .controllingTerminal))
        #expect(choice.targets == [.kms, .framebuffer, .terminal])
        #expect(!choice.isFallback)
        #expect(choice.reason == "tty1 is marquee's controlling terminal")
    }

    @Test func rootMayAlwaysTakeTheConsole() {
        let choice = OutputChoice.decide(.auto, device: nil, console: (3, .root))
        #expect(choice.targets.first == .kms)
        #expect(choice.reason.hasPrefix("marquee runs as root"))
    }

    @Test func aConsoleOfAnotherSessionFallsBackWithItsReason() {
        let choice = OutputChoice.decide(
            .auto, device: nil, console: (2, .notOurs("tty2 belongs to session 7, marquee runs in session 9")))
        #expect(choice.targets == [.terminal])
        #expect(choice.isFallback)
        #expect(choice.reason == "cannot put tty2 in graphics mode: tty2 belongs to session 7, marquee runs in session 9")
    }

    /// A device named in the configuration says which kind of output is meant.
    @Test func aNamedDeviceIsTriedAloneBeforeTheTerminal() {
        #expect(OutputChoice.decide(.auto, device: "/dev/dri/card1", console: (1, .root)).targets == [.kms, .terminal])
        #expect(OutputChoice.decide(.auto, device: "/dev/fb1", console: (1, .root)).targets == [.framebuffer, .terminal])
    }

    @Test func noConsoleIsNoFallback() {
        let choice = OutputChoice.decide(.auto, device: nil, console: nil)
        #expect(choice.targets == [.terminal])
        #expect(!choice.isFallback)
    }

    @Test func anExplicitRequestIsFollowed() {
        #expect(OutputChoice.decide(.framebuffer, device: "/dev/fb1", console: nil).targets == [.framebuffer])
        #expect(OutputChoice.decide(.kms, device: nil, console: nil).targets == [.kms])
        #expect(OutputChoice.decide(.terminal, device: nil, console: (1, .root)).targets == [.terminal])
    }
}

/// Before a screen is opened again (a device went away): the devices that are there are waited
/// for until they open, those that are not are not (a box without fbdev has no /dev/fb0: each
/// unplug waited 10 s for it on the render thread), and a stop ends the wait and stays for the
/// loop.
@Suite(.temporaryFolders) struct DeviceWaitTests {
    @Test func aDeviceThatIsNotThereIsNotWaitedFor() throws {
        let folder = try TemporaryFolder()
        try folder.write("card0", "")
        let mailbox = EventMailbox()
        #expect(waitForDevices([folder.path + "/fb0", folder.path + "/card0"], mailbox: mailbox) == 0)
    }

    @Test func aStopEndsTheWait() throws {
        let folder = try TemporaryFolder()
        // A folder is there and never opens for writing: a device whose group is not set yet.
        let unopenable = folder.path
        let mailbox = EventMailbox()
        mailbox.post(.control(.pause))
        mailbox.post(.stop(signal: SIGTERM))
        #expect(waitForDevices([unopenable], mailbox: mailbox) == 0)
        let kept = mailbox.take()
        #expect(kept.count == 2 && kept.contains { if case .stop = $0 { true } else { false } })
    }
}
