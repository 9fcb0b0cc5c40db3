import Foundation
import Schedule
import Synchronization
import TestSupport
import Testing

@testable import Daemon

/// Following the system's time zone, with a stand-in for /etc.
@Suite struct SystemTimeZoneTests {
    /// A folder standing in for /etc with its localtime link (removed with the value).
    func fakeEtc(zone: String) throws -> TemporaryFolder {
        let etc = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: etc.path + "/localtime", withDestinationPath: "/usr/share/zoneinfo/" + zone)
        return etc
    }

    /// timedatectl's way: a new symlink renamed over /etc/localtime.
    func switchZone(_ etc: String, to zone: String) throws {
        try FileManager.default.createSymbolicLink(atPath: etc + "/.localtime.new", withDestinationPath: "/usr/share/zoneinfo/" + zone)
        rename(etc + "/.localtime.new", etc + "/localtime")
    }

    @Test func nameFromEnvironmentLinkAndFile() throws {
        let folder = try fakeEtc(zone: "Europe/Berlin")
        let etc = folder.path
        #expect(SystemTimeZone.name(environment: [:], etc: etc) == "Europe/Berlin")
        #expect(SystemTimeZone.name(environment: ["TZ": ":Asia/Tokyo"], etc: etc) == "Asia/Tokyo")
        try FileManager.default.removeItem(atPath: etc + "/localtime")
        try Data("America/Chicago\n".utf8).write(to: URL(fileURLWithPath: etc + "/timezone"))
        #expect(SystemTimeZone.name(environment: [:], etc: etc) == "America/Chicago")
        #expect(SystemTimeZone.name(environment: [:], etc: "/nonexistent") == "UTC")
    }

    /// Every form of TZ glibc reads gives a zone marquee knows, or the machine's zone: none
    /// stops the commands (TZ=UTC0 made every command fail).
    @Test(arguments: [
        ("UTC0", "UTC"), ("GMT0", "UTC"), ("UTC", "UTC"), ("UTC+0", "UTC"), ("<+03>-3", "Etc/GMT-3"),
        ("EST+5", "Etc/GMT+5"), (":/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"), ("/usr/share/zoneinfo/Etc/UTC", "Etc/UTC"),
        ("America/New_York", "America/New_York"), ("CET-1CEST,M3.5.0,M10.5.0/3", "CET-1CEST,M3.5.0,M10.5.0/3"),
        ("<+0530>-5:30", "<+0530>-5:30"), ("CET-1CEST,J60,J300", "Europe/Berlin"),
        ("Nowhere/Land", "Europe/Berlin"), ("../../etc/passwd", "Europe/Berlin"), (":", "Europe/Berlin"),
    ])
    func posixTZ(tz: String, zone: String) throws {
        let folder = try fakeEtc(zone: "Europe/Berlin")
        let etc = folder.path
        #expect(SystemTimeZone.name(environment: ["TZ": tz], etc: etc) == zone)
    }

    /// A zone change is noticed by the watcher and the schedule recomputes: an all-day
    /// event now starts at New York's midnight, not Berlin's.
    @Test func zoneChangeRecomputesTheMessages() async throws {
        let folder = try fakeEtc(zone: "Europe/Berlin")
        let etc = folder.path
        let feedFolder = try TemporaryFolder()
        let feeds = feedFolder.path
        try feedFolder.write("f.ics", calendar(event("UID:d", "DTSTART;VALUE=DATE:20261124", "SUMMARY:Trash day")))
        let schedule = try await Schedule(displayZone: SystemTimeZone.name(environment: [:], etc: etc))
        await schedule.load([feeds])
        let noticed = Mutex(0)
        let watcher = try FolderWatcher(folder: etc, debounce: .milliseconds(50), isRelevant: SystemTimeZone.isZoneFile) {
            noticed.withLock { $0 += 1 }
        }
        // 2026-11-24 03:00 UTC: already the 24th in Berlin, still the 23rd in New York.
        let instant = Instant(secondsSinceEpoch: 1_795_489_200)
        #expect(await schedule.messages(at: instant).map(\.text) == ["Trash day"])
        try switchZone(etc, to: "America/New_York")
        try await Task.sleep(for: .milliseconds(400))
        #expect(noticed.withLock { $0 } == 1)
        #expect(await adoptSystemZone(schedule, etc: etc, log: nil))
        #expect(await schedule.displayZoneName == "America/New_York")
        #expect(await schedule.messages(at: instant).isEmpty)
        withExtendedLifetime(watcher) {}
    }
}
