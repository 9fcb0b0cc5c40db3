import DaemonTestKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// Keys acknowledging reminders: the kernel's input events, as evdev hands them out, written
/// into named pipes standing for `/dev/input/event*` (this machine has no input devices; the
/// kiosk test presses a real key in QEMU).
@Suite(.tier(.live)) struct KeyWatcherTests {
    /// One `struct input_event`: a time, then type, code and value.
    private func event(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: MemoryLayout<timeval>.size)
        bytes += withUnsafeBytes(of: type.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: code.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: value.littleEndian, Array.init)
        return bytes
    }

    private let keyA: UInt16 = 30

    /// The device's other end, as the kernel's would write it; fails (never waits) when the
    /// watcher does not read it.
    private func writer(_ path: String) throws -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(descriptor >= 0, "nobody reads \(path)")
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    @Test func aKeyGoingDownIsAPress() {
        let synchronize = event(type: 0, code: 0, value: 0)
        #expect(KeyWatcher.pressed(in: (event(type: 1, code: keyA, value: 1) + synchronize)[...]))
        #expect(!KeyWatcher.pressed(in: (event(type: 1, code: keyA, value: 0) + synchronize)[...]), "released")
        #expect(!KeyWatcher.pressed(in: event(type: 1, code: keyA, value: 2)[...]), "held, repeating")
        #expect(!KeyWatcher.pressed(in: event(type: 2, code: 0, value: 1)[...]), "a mouse moving")
        #expect(!KeyWatcher.pressed(in: Array(event(type: 1, code: keyA, value: 1).prefix(20))[...]), "a part of an event")
    }

    /// Devices that cannot be opened are said in one line, once, by reason: a desktop lists dozens.
    @Test func devicesThatCannotBeReadAreSaidOnce() throws {
        let folder = try TemporaryFolder()
        for name in ["event2", "event1"] {
            #expect(symlink(folder.path + "/gone-" + name, folder.path + "/" + name) == 0)
        }
        let pipe = Pipe()
        let log = EventLog(environment: ["JOURNAL_STREAM": journalStream(of: pipe)],
                           descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let watcher = try KeyWatcher(folder: folder.path, log: log) {}
        #expect(watcher.openDevices.isEmpty)
        let lines = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n")
        #expect(lines.map(String.init) == ["<4>cannot read the keys of \(folder.path)/event1, event2 (No such file or directory); "
            + "a key on them does not acknowledge reminders"])
    }

    /// A device there at the start and one plugged in later are both read; one pulled out (its
    /// node removed) is let go.
    @Test func devicesComeAndGo() async throws {
        let folder = try TemporaryFolder()
        let presses = Mutex(0)
        #expect(mkfifo(folder.path + "/event0", 0o600) == 0)
        let watcher = try KeyWatcher(folder: folder.path, quietAfterPress: 0, log: nil) { presses.withLock { $0 += 1 } }
        #expect(watcher.openDevices == ["event0"])
        let first = try writer(folder.path + "/event0")
        first.write(Data(event(type: 1, code: keyA, value: 1)))
        #expect(await eventually { presses.withLock { $0 } == 1 })
        #expect(mkfifo(folder.path + "/event3", 0o600) == 0)
        #expect(await eventually { watcher.openDevices == ["event0", "event3"] })
        let second = try writer(folder.path + "/event3")
        second.write(Data(event(type: 1, code: 28, value: 1)))
        #expect(await eventually { presses.withLock { $0 } == 2 })
        // Pulled out: the kernel removes its node.
        try first.close()
        #expect(unlink(folder.path + "/event0") == 0)
        #expect(await eventually { watcher.openDevices == ["event3"] })
        try second.close()
    }
}
