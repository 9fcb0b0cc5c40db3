import Foundation
import Testing

@testable import Daemon

/// Where the socket is when nobody says: the service's runtime folder when it may be used,
/// else the user's own, and the asking commands look in the same order.
@Suite struct ControlSocketTests {
    @Test func aUserWithoutTheServiceFolderUsesTheirRuntimeFolder() throws {
        let root = try TemporaryFolder()
        let system = root.path + "/run-marquee/marquee.sock"
        let runtime = root.path + "/run-user"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let environment = ["XDG_RUNTIME_DIR": runtime]
        #expect(ControlSocket.pathForListening(environment: environment, system: system) == runtime + "/marquee.sock")
        #expect(ControlSocket.pathForListening(environment: [:], system: system) == nil)
        #expect(ControlSocket.pathForAsking(environment: environment, system: system) == system)
        try root.write("run-user/marquee.sock", "")
        #expect(ControlSocket.pathForAsking(environment: environment, system: system) == runtime + "/marquee.sock")
        // The service's folder exists (systemd's RuntimeDirectory): it comes first.
        try FileManager.default.createDirectory(atPath: root.path + "/run-marquee", withIntermediateDirectories: false)
        #expect(ControlSocket.pathForListening(environment: environment, system: system) == system)
        try root.write("run-marquee/marquee.sock", "")
        #expect(ControlSocket.pathForAsking(environment: environment, system: system) == system)
    }
}
