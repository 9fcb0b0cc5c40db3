import Testing

#if canImport(Glibc)
    import Glibc
#endif

@testable import Daemon

/// Of the kernel's device events, only a DRM card's hot-plug makes the screen look again.
@Suite struct HotplugWatcherTests {
    static func message(_ fields: [String]) -> ArraySlice<UInt8> { ArraySlice(fields.flatMap { Array($0.utf8) + [0] }) }

    @Test func aCardsHotplugIsToldFromOtherEvents() {
        #expect(HotplugWatcher.isDisplayHotplug(Self.message([
            "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change", "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0",
            "SUBSYSTEM=drm", "HOTPLUG=1", "DEVNAME=dri/card0", "SEQNUM=2781",
        ])))
        #expect(!HotplugWatcher.isDisplayHotplug(Self.message(["add@/devices/virtual/tty/tty63", "ACTION=add", "SUBSYSTEM=tty"])))
        #expect(!HotplugWatcher.isDisplayHotplug(Self.message([
            "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change", "SUBSYSTEM=drm",
        ])), "a DRM event without HOTPLUG=1 (a lease, a property) is not a screen plugged in")
        #expect(!HotplugWatcher.isDisplayHotplug(Self.message(["HOTPLUG=1SUBSYSTEM=drm"])))
    }

    /// Every waiting event is read; a burst that overflowed the socket (events dropped) may
    /// have held a screen's hot-plug, so the screen is looked at; an interrupted read goes on.
    @Test(arguments: [
        ([HotplugWatcher.Read.event(message(["add@/devices/virtual/tty/tty63", "SUBSYSTEM=tty"])), .failed(EAGAIN)], false),
        ([.event(message(["change@/x", "SUBSYSTEM=drm", "HOTPLUG=1"])), .failed(EAGAIN)], true),
        ([.failed(ENOBUFS), .event(message(["add@/x", "SUBSYSTEM=tty"])), .failed(EAGAIN)], true),
        ([.failed(EINTR), .event(message(["change@/x", "SUBSYSTEM=drm", "HOTPLUG=1"])), .failed(0)], true),
    ])
    func everyWaitingEventIsRead(reads: [HotplugWatcher.Read], hotplug: Bool) {
        var remaining = reads[...]
        #expect(HotplugWatcher.drain { remaining.popFirst() ?? .failed(EAGAIN) } == hotplug)
        #expect(remaining.isEmpty)
    }
}
