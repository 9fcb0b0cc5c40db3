import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// inotify on a real folder: a burst of changes to feed files is reported once; other
/// files are not reported. What is reported is waited for; that nothing is reported needs a
/// while of real time (a few times the debounce) in which nothing comes.
@Suite(.tier(.live)) struct FolderWatcherTests {
    @Test func reportsFeedChangesOncePerBurst() async throws {
        let temporary = try TemporaryFolder()
        let folder = URL(fileURLWithPath: temporary.path)
        let changes = Mutex(0)
        let watcher = try FolderWatcher(folder: folder.path, debounce: .milliseconds(100)) {
            changes.withLock { $0 += 1 }
        }
        try Data("x".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data("x".utf8).write(to: folder.appendingPathComponent(".hidden.ics"))
        try await Task.sleep(for: .milliseconds(400))
        #expect(changes.withLock { $0 } == 0)
        // Written the way sync tools do it: a temporary file renamed into place, twice.
        for round in 0..<2 {
            let temporary = folder.appendingPathComponent(".sync-\(round)")
            try Data("BEGIN:VCALENDAR".utf8).write(to: temporary)
            try FileManager.default.moveItem(at: temporary, to: folder.appendingPathComponent("family-\(round).ics"))
        }
        #expect(await eventually { changes.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(changes.withLock { $0 } == 1, "one report for the burst")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("family-0.ics"))
        #expect(await eventually { changes.withLock { $0 } == 2 })
        withExtendedLifetime(watcher) {}
    }

    /// A file touched ten times a second does not hold back other changes: a burst is reported
    /// at the latest a second after it began, however long it goes on.
    @Test func aBusyFileDoesNotStarveOtherChanges() async throws {
        let temporary = try TemporaryFolder()
        let changes = Mutex<[ContinuousClock.Instant]>([])
        let watcher = try FolderWatcher(folder: temporary.path, debounce: .milliseconds(200), longestWait: .seconds(1)) {
            changes.withLock { $0.append(.now) }
        }
        let start = ContinuousClock.now
        for tick in 0..<35 {
            try temporary.write("busy.ics", "BEGIN:VCALENDAR \(tick)")
            if tick == 5 { try temporary.write("new.ics", "BEGIN:VCALENDAR") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let reported = changes.withLock { $0 }
        #expect(reported.count >= 2, "a change every second or so while the file is busy: \(reported.count)")
        #expect(reported.first.map { $0 - start < .milliseconds(2500) } ?? false, "the new file is seen within the burst's bound")
        withExtendedLifetime(watcher) {}
    }

    /// A single file given as the feed is watched as a folder's files are: an edit saved by
    /// renaming a new version into place is reported; other files beside it are not.
    @Test func aSingleFeedFileIsWatched() async throws {
        let temporary = try TemporaryFolder()
        try temporary.write("family.ics", "BEGIN:VCALENDAR")
        let changes = Mutex(0)
        let watcher = try watchFeed(temporary.path + "/family.ics") { changes.withLock { $0 += 1 } }
        try temporary.write("other.ics", "BEGIN:VCALENDAR")
        try await Task.sleep(for: .milliseconds(500))
        #expect(changes.withLock { $0 } == 0)
        try temporary.write(".family.ics.tmp", "BEGIN:VCALENDAR\r\nX-EDITED:1")
        #expect(rename(temporary.path + "/.family.ics.tmp", temporary.path + "/family.ics") == 0)
        #expect(await eventually { changes.withLock { $0 } == 1 })
        withExtendedLifetime(watcher) {}
    }

    /// A folder that is removed and made again (or appears only after the start) is watched
    /// again: changes in it are reported.
    @Test func aFolderThatComesBackIsWatchedAgain() async throws {
        let parent = try TemporaryFolder()
        let folder = parent.path + "/feeds.d"
        let changes = Mutex(0)
        let watcher = try FolderWatcher(folder: folder, debounce: .milliseconds(50)) { changes.withLock { $0 += 1 } }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(await eventually { changes.withLock { $0 } == 1 })
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/a.ics"))
        #expect(await eventually { changes.withLock { $0 } == 2 })
        try FileManager.default.removeItem(atPath: folder)
        #expect(await eventually { changes.withLock { $0 } == 3 })
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(await eventually { changes.withLock { $0 } == 4 })
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/b.ics"))
        #expect(await eventually { changes.withLock { $0 } == 5 })
        withExtendedLifetime(watcher) {}
    }

    /// A folder whose parent is missing too (`/etc/marquee` not yet made) is followed down
    /// as the path is made, one folder at a time or all at once: it was never watched, and its
    /// calendars showed only after a reload.
    @Test func aFolderWhoseParentIsMissingIsFollowedDown() async throws {
        let root = try TemporaryFolder()
        for (path, made) in [("/a/b/c/feeds.d", ["/a", "/a/b", "/a/b/c", "/a/b/c/feeds.d"]), ("/x/y/feeds.d", ["/x/y/feeds.d"])] {
            let folder = root.path + path
            let changes = Mutex(0)
            let watcher = try FolderWatcher(folder: folder, debounce: .milliseconds(50)) { changes.withLock { $0 += 1 } }
            for step in made {
                try FileManager.default.createDirectory(atPath: root.path + step, withIntermediateDirectories: true)
            }
            #expect(await eventually { changes.withLock { $0 } >= 1 }, "\(path)")
            let before = changes.withLock { $0 }
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/a.ics"))
            #expect(await eventually { changes.withLock { $0 } > before }, "\(path): a file in it")
            withExtendedLifetime(watcher) {}
        }
    }
}
