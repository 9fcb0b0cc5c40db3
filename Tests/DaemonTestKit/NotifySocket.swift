import Foundation
import TestSupport

@testable import Daemon

/// A systemd notify socket of the test's own: what the loop tells systemd.
package final class NotifySocket {
    package let path: String
    private let folder: TemporaryFolder
    private let descriptor: Int32

    package init() throws {
        folder = try TemporaryFolder()
        path = folder.path + "/notify"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit { close(descriptor) }

    /// The datagrams that arrived since the last call.
    package func received() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return messages }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }
}

/// `JOURNAL_STREAM` for a log written into `pipe` (as journald's stream would be).
package func journalStream(of pipe: Pipe) -> String {
    var info = stat()
    fstat(pipe.fileHandleForWriting.fileDescriptor, &info)
    return "\(info.st_dev):\(info.st_ino)"
}
