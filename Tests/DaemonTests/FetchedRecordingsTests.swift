import Foundation
import LoopbackServers
import Schedule
import Sound
import TestSupport
import Testing

@testable import Daemon

/// The recordings reminders attach by address, fetched ahead from a real web server (nginx
/// over TLS on loopback) into a folder of the test's: kept when they are sounds marquee plays,
/// asked for again after a day, refused and said once when they are not, let go of when no
/// reminder wants them. File times are set by the test, so no host clock decides anything.
@Suite(.tier(.live)) struct FetchedRecordingsTests {
    private let day = Instant(secondsSinceEpoch: 1_795_000_000)

    private func tone(seconds: Double = 0.5) -> [UInt8] {
        SoundClip(samples: (0..<Int(8_000 * seconds)).map { Int16(6_000 * sin(Double($0) / 4)) }, sampleRate: 8_000).wav
    }

    /// Sets a kept recording's time to `instant`, as if it had been fetched then.
    private func age(_ path: String, to instant: Instant) throws {
        let time = Date(timeIntervalSince1970: TimeInterval(instant.secondsSinceEpoch))
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: path)
    }

    private func requests(_ server: LoopbackWebServer, _ name: String) -> Int {
        server.requests.filter { $0.hasPrefix("GET /\(name) ") }.count
    }

    @Test func aRecordingIsFetchedOnceKeptAndAskedForAgainAfterADay() async throws {
        let server = try LoopbackWebServer()
        let state = try TemporaryFolder()
        try Data(tone()).write(to: URL(fileURLWithPath: server.root + "/pills.wav"))
        let address = server.url("pills.wav")
        let recordings = FetchedRecordings(folder: state.path + "/recordings",
                                           certificateAuthorities: server.certificateAuthorities)
        #expect(await recordings.keep([address], now: day) == [])
        let kept = AttachedRecording.fetchedPath(address, in: recordings.folder)
        #expect(FileManager.default.contents(atPath: kept) == Data(tone()))
        try age(kept, to: day)
        #expect(await recordings.keep([address], now: day + 3_600) == [])
        #expect(requests(server, "pills.wav") == 1)
        // The carer recorded it anew: asked for the next day.
        try Data(tone(seconds: 1)).write(to: URL(fileURLWithPath: server.root + "/pills.wav"))
        #expect(await recordings.keep([address], now: day + FetchedRecordings.freshSeconds + 1) == [])
        #expect(requests(server, "pills.wav") == 2)
        #expect(FileManager.default.contents(atPath: kept) == Data(tone(seconds: 1)))
    }

    /// Missing, a web page, not a sound, too large: said once each with the address; a copy in
    /// hand stays and is said to be played; the address working again is said.
    @Test func whatIsNotASoundIsRefusedAndSaidOnce() async throws {
        let server = try LoopbackWebServer()
        let state = try TemporaryFolder()
        try server.serve("page.html", "<html><body>Sign in</body></html>")
        try server.serve("notes.txt", "Take the pills with water")
        try Data(count: Recording.mostBytes + 1).write(to: URL(fileURLWithPath: server.root + "/huge.wav"))
        let recordings = FetchedRecordings(folder: state.path + "/recordings",
                                           certificateAuthorities: server.certificateAuthorities)
        let addresses = ["missing.wav", "page.html", "notes.txt", "huge.wav"].map { server.url($0) }
        let said = await recordings.keep(Set(addresses), now: day)
        #expect(said.count == 4, "\(said)")
        #expect(said.allSatisfy { $0.hasPrefix("the recording at https://127.0.0.1:\(server.port)/") })
        #expect(said.allSatisfy { $0.hasSuffix("; the reminder is spoken instead") })
        #expect(said.contains { $0.contains("HTTP 404") })
        #expect(said.contains { $0.contains("a web page") })
        #expect(said.contains { $0.contains("cannot be played") })
        #expect(said.contains { $0.contains("the recording is larger than 16 MB") })
        for address in addresses {
            #expect(!FileManager.default.fileExists(atPath: AttachedRecording.fetchedPath(address, in: recordings.folder)))
        }
        #expect(await recordings.keep(Set(addresses), now: day + 60) == [])
        try Data(tone()).write(to: URL(fileURLWithPath: server.root + "/missing.wav"))
        #expect(await recordings.keep([addresses[0]], now: day + 120) == ["the recording at \(SubscriptionAddress.redacted(addresses[0])) was fetched"])
        // Gone from the server later: the copy in hand is played.
        try FileManager.default.removeItem(atPath: server.root + "/missing.wav")
        let kept = AttachedRecording.fetchedPath(addresses[0], in: recordings.folder)
        try age(kept, to: day)
        let gone = await recordings.keep([addresses[0]], now: day + FetchedRecordings.freshSeconds + 1)
        #expect(gone.count == 1 && gone[0].hasSuffix("HTTP 404; the one fetched before is played"), "\(gone)")
        #expect(FileManager.default.fileExists(atPath: kept))
    }

    /// A recording no reminder wants any more is removed once it is older than a reminder is
    /// remembered; one still wanted, or younger, stays.
    @Test func recordingsNoReminderWantsAreLetGo() async throws {
        let server = try LoopbackWebServer()
        let state = try TemporaryFolder()
        for name in ["old.wav", "wanted.wav"] { try Data(tone()).write(to: URL(fileURLWithPath: server.root + "/" + name)) }
        let (old, wanted) = (server.url("old.wav"), server.url("wanted.wav"))
        let recordings = FetchedRecordings(folder: state.path + "/recordings",
                                           certificateAuthorities: server.certificateAuthorities)
        #expect(await recordings.keep([old, wanted], now: day) == [])
        let paths = [old, wanted].map { AttachedRecording.fetchedPath($0, in: recordings.folder) }
        for path in paths { try age(path, to: day) }
        #expect(await recordings.keep([wanted], now: day + 3_600) == [])
        #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        let later = day + ReminderPlan.rememberedSeconds + 1
        for path in paths { try age(path, to: day) }
        _ = await recordings.keep([wanted], now: later)
        #expect(!FileManager.default.fileExists(atPath: paths[0]))
        #expect(FileManager.default.fileExists(atPath: paths[1]))
    }
}
