import Foundation
import TestSupport
import Testing

@testable import Daemon

/// Where the socket is when nobody says: the service's runtime folder when it may be used,
/// else the user's own runtime folder, else a folder of the user's own under /tmp, and the
/// asking commands look in the same order.
@Suite struct ControlSocketTests {
    @Test func aUserWithoutTheServiceFolderUsesTheirRuntimeFolder() throws {
        let root = try TemporaryFolder()
        let system = root.path + "/run-marquee/marquee.sock"
        let runtime = root.path + "/run-user"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let environment = ["XDG_RUNTIME_DIR": runtime]
        let temporary = root.path
        let own = root.path + "/marquee-\(getuid())"
        #expect(ControlSocket.pathForListening(environment: environment, system: system, temporary: temporary)
                    == runtime + "/marquee.sock")
        #expect(ControlSocket.pathForAsking(environment: environment, system: system, temporary: temporary) == system)
        try root.write("run-user/marquee.sock", "")
        #expect(ControlSocket.pathForAsking(environment: environment, system: system, temporary: temporary)
                    == runtime + "/marquee.sock")
        // The service's folder exists (systemd's RuntimeDirectory): it comes first.
        try FileManager.default.createDirectory(atPath: root.path + "/run-marquee", withIntermediateDirectories: false)
        #expect(ControlSocket.pathForListening(environment: environment, system: system, temporary: temporary) == system)
        try root.write("run-marquee/marquee.sock", "")
        #expect(ControlSocket.pathForAsking(environment: environment, system: system, temporary: temporary) == system)
        #expect(!FileManager.default.fileExists(atPath: own))
    }

    /// Started by hand with no runtime folder (ssh without a session, cron): a folder of the
    /// user's own under /tmp, made 0700; one somebody else could write to is not used.
    @Test func withoutARuntimeFolderAFolderOfTheUsersOwnUnderTmp() throws {
        let root = try TemporaryFolder()
        let system = root.path + "/run-marquee/marquee.sock"
        let own = root.path + "/marquee-\(getuid())"
        #expect(ControlSocket.pathForListening(environment: [:], system: system, temporary: root.path) == own + "/marquee.sock")
        var info = stat()
        #expect(lstat(own, &info) == 0 && info.st_mode & 0o777 == 0o700)
        try root.write("marquee-\(getuid())/marquee.sock", "")
        #expect(ControlSocket.pathForAsking(environment: [:], system: system, temporary: root.path) == own + "/marquee.sock")
        chmod(own, 0o777)
        #expect(ControlSocket.pathForListening(environment: [:], system: system, temporary: root.path) == nil)
        // Asking trusts it no more than listening: a socket planted in a folder another user
        // can write to, or made by another user, is not asked (its status would be theirs).
        #expect(ControlSocket.pathForAsking(environment: [:], system: system, temporary: root.path) == system)
        chmod(own, 0o700)
        #expect(ControlSocket.pathForAsking(environment: [:], system: system, temporary: root.path) == own + "/marquee.sock")
        if getuid() == 0 {
            #expect(chown(own, 65534, 65534) == 0)
            #expect(ControlSocket.pathForAsking(environment: [:], system: system, temporary: root.path) == system)
        }
    }
}
