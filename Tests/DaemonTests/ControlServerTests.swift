import Foundation
import Testing

@testable import Daemon

/// The control socket's file: a stale one (nobody answers) is replaced, a live one is not.
@Suite struct ControlServerTests {
    func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ctl-\(UUID().uuidString.prefix(8)).sock").path
    }

    func control() -> DisplayControl {
        DisplayControl(initial: StatusReport(updatedAt: "", output: "test"), wake: {})
    }

    @Test func staleSocketIsReplacedLiveOneIsNot() throws {
        let socketPath = path()
        // A socket file left behind by a killed daemon: bound once, then closed, never unlinked.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + socketPath.utf8.count + 1)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, length) } }
        close(stale)
        #expect(FileManager.default.fileExists(atPath: socketPath))
        let server = try ControlServer(path: socketPath, control: control())
        #expect(throws: ControlSocketError.self) { try ControlServer(path: socketPath, control: control()) }
        var info = stat()
        stat(socketPath, &info)
        #expect(info.st_mode & 0o777 == 0o660)
        withExtendedLifetime(server) {}
    }

    @Test func requestsAreAnsweredAndControlIsPosted() throws {
        let socketPath = path()
        let posted = DisplayControl(initial: StatusReport(updatedAt: "now", output: "test"), wake: {})
        let server = try ControlServer(path: socketPath, control: posted)
        func ask(_ line: String) -> String {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + socketPath.utf8.count + 1)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) } }
            _ = Array(line.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            var reply = [UInt8](repeating: 0, count: 65_536)
            let count = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: reply[0..<count], as: UTF8.self) : ""
        }
        #expect(ask("{\"type\":\"status\"}\n").contains("\"output\":\"test\""))
        #expect(ask("{\"type\":\"pause\"}\n").contains("\"ok\":true"))
        #expect(ask("{\"type\":\"reload\"}\n").contains("\"ok\":true"))
        #expect(posted.takeCommands() == [.pause, .reload])
        #expect(ask("{\"type\":\"explode\"}\n").contains("malformed request"))
        withExtendedLifetime(server) {}
    }
}
