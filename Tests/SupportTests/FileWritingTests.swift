import Foundation
import Support
import TestSupport
import Testing

/// Last good copies are written so that nothing is lost and nothing else is touched: whole or
/// not at all, never through a link someone planted beside them, and a full disk said as such.
@Suite(.temporaryFolders) struct FileWritingTests {
    static func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// A link planted where the old code put its temporary file (and where a guess would put
    /// one) is not followed: the file it points at stays as it was.
    @Test func aPlantedLinkIsNeverFollowed() throws {
        let folder = try feedFolder(["victim.txt": "precious"])
        let destination = folder + "/feed.ics.last-good"
        for name in ["feed.ics.last-good.partial", "feed.ics.last-good.partial-XXXXXX"] {
            #expect(symlink(folder + "/victim.txt", folder + "/" + name) == 0)
        }
        #expect(writeFileAtomically(Array("BEGIN:VCALENDAR".utf8), to: destination) == nil)
        #expect(try String(contentsOfFile: folder + "/victim.txt", encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "BEGIN:VCALENDAR")
        #expect(try Self.entries(folder) == ["feed.ics.last-good", "feed.ics.last-good.partial",
                                            "feed.ics.last-good.partial-XXXXXX", "victim.txt"])
        var info = stat()
        #expect(lstat(destination, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o777 == 0o640)
    }

    /// A disk that fills up while the copy is written: the reason is the full disk (not a stale
    /// errno), the old copy is kept whole, and no temporary file is left. Needs root to mount a
    /// small file system of its own.
    /// Mounting a small tmpfs needs root.
    @Test(.tier(.unit, needs: [.root]))
    func aFullDiskIsSaidAndTheOldCopyKept() throws {
        let folder = try feedFolder([:])
        #expect(mount("tmpfs", folder, "tmpfs", 0, "size=64k,mode=0700") == 0, "\(String(cString: strerror(errno)))")
        defer { umount(folder) }
        let destination = folder + "/feed.ics.last-good"
        #expect(writeFileAtomically(Array("the old copy".utf8), to: destination) == nil)
        let reason = writeFileAtomically([UInt8](repeating: 0x41, count: 256 * 1024), to: destination)
        #expect(reason == "No space left on device")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "the old copy")
        #expect(try Self.entries(folder) == ["feed.ics.last-good"])
    }

    /// What another user can read, judged by owners and modes (`check` run as root asks it
    /// for the service's user: a 0600 file of root's passed though the service never read it).
    @Test func whatAnotherUserCannotRead() throws {
        let folder = "/tmp/marquee-readable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/feed.ics"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        chmod(folder, 0o755)
        chmod(file, 0o644)
        #expect(whyUnreadable(file, byUser: "nobody") == nil)
        chmod(file, 0o600)
        let owner = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? ""
        #expect(whyUnreadable(file, byUser: "nobody") == "cannot read it (mode 600, owner \(owner))")
        chmod(file, 0o644)
        chmod(folder, 0o700)
        #expect(whyUnreadable(file, byUser: "nobody") == "cannot enter \(folder) (mode 700, owner \(owner))")
        #expect(whyUnreadable(file, byUser: "root") == nil)
        #expect(whyUnreadable(file, byUser: "no-such-user-here") == nil)
    }

    /// Root writing into the service's state folder (`marquee setup`: the setup's problems, the
    /// page's password) leaves a file the service reads: its folder's owner's and group's, 0640,
    /// from the moment it has its name. Giving a file away needs root.
    @Test(.tier(.unit, needs: [.root]))
    func aFileForTheFoldersOwner() throws {
        let folder = try feedFolder([:])
        #expect(chown(folder, 4321, 8765) == 0)
        let destination = folder + "/setup-problems"
        #expect(writeFileAtomically(Array("the setup file: wifi_password: …\n".utf8), to: destination, ownedLikeItsFolder: true) == nil)
        var info = stat()
        #expect(stat(destination, &info) == 0 && info.st_uid == 4321 && info.st_gid == 8765 && info.st_mode & 0o777 == 0o640)
        #expect(whyUnreadable(destination, byUser: "nobody") != nil)
        #expect(writeFileAtomically(Array("root's own".utf8), to: folder + "/root-only") == nil)
        #expect(stat(folder + "/root-only", &info) == 0 && info.st_uid == 0)
    }
}
