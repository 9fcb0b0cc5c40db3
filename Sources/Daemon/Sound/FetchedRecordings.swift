import Schedule
import Sound
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The recordings that reminders attach by address (`ATTACH:https://…/dentist.mp3`), fetched
/// ahead of their time into the state folder: at the trigger the carer's voice plays at once,
/// whatever the network does then. Fetched as a subscription is (libcurl, the same bounds in
/// time and size, the certificate authorities of `subscription_ca_file`), checked to be a
/// sound marquee plays before it is kept, asked for again after a day (a carer may record it
/// anew), and let go of when no reminder wants it any more.
actor FetchedRecordings {
    /// The folder under the state folder.
    static let folderName = "recordings"
    /// How far ahead of a reminder its recording is fetched.
    static let aheadSeconds: Int64 = 2 * 86_400
    /// A recording is asked for again after this long.
    static let freshSeconds: Int64 = 86_400
    /// How often the coming reminders are looked at, besides after each reading of the feeds.
    static let lookSeconds: Int64 = 300

    nonisolated let folder: String
    private let fetch: HTTPFetch
    /// What was last said of each address's trouble, so it is said once.
    private var troubles: [String: String] = [:]

    nonisolated let wakeUps: AsyncStream<Void>
    private nonisolated let wakeUp: AsyncStream<Void>.Continuation

    init(folder: String, certificateAuthorities: String?) {
        self.folder = folder
        fetch = Self.fetcher(certificateAuthorities: certificateAuthorities)
        (wakeUps, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The fetch a recording is asked for with: bounded as a recording is.
    static func fetcher(certificateAuthorities: String?) -> HTTPFetch {
        HTTPFetch(maximumBytes: Recording.mostBytes, certificateAuthorities: certificateAuthorities, thing: "recording")
    }

    /// Asks for a look at the coming reminders now (the feeds were read).
    nonisolated func wake() { wakeUp.yield() }

    /// Fetches the recordings at `addresses` that are not in hand or were fetched more than a
    /// day ago (`now`: the machine's clock, which file times are in), and removes those no
    /// address wants that are older than a reminder is remembered. What to say in the journal:
    /// a new trouble, or an address that works again.
    func keep(_ addresses: Set<String>, now: Instant) async -> [String] {
        if !addresses.isEmpty { _ = mkdir(folder, 0o750) }
        var said: [String] = []
        for address in addresses.sorted() {
            let path = AttachedRecording.fetchedPath(address, in: folder)
            var status = stat()
            let inHand = stat(path, &status) == 0
            if inHand, now.secondsSinceEpoch - Int64(status.st_mtim.tv_sec) < Self.freshSeconds { continue }
            let fetch = self.fetch
            let result = await onThread(named: "marquee-fetch") { Self.fetchOnce(address, with: fetch) }
                ?? .failure(HTTPFetch.Failure(description: "no thread to fetch on"))
            let shown = SubscriptionAddress.redacted(address)
            switch result {
            case .success(let bytes):
                if let problem = writeFileAtomically(bytes, to: path) {
                    said.append(contentsOf: tell(address, "the recording at \(shown) cannot be kept: \(problem)"))
                } else if troubles.removeValue(forKey: address) != nil {
                    said.append("the recording at \(shown) was fetched")
                }
            case .failure(let failure):
                let kept = inHand ? "the one fetched before is played" : "the reminder is spoken instead"
                said.append(contentsOf: tell(address, "the recording at \(shown) cannot be fetched: \(failure); \(kept)"))
            }
        }
        removeUnwanted(addresses, now: now)
        return said
    }

    private func tell(_ address: String, _ trouble: String) -> [String] {
        guard troubles[address] != trouble else { return [] }
        troubles[address] = trouble
        return [trouble]
    }

    private func removeUnwanted(_ addresses: Set<String>, now: Instant) {
        let wanted = Set(addresses.map { splitPath(AttachedRecording.fetchedPath($0, in: folder)).name })
        removeStaleFiles(in: folder, endingWith: ".sound", keeping: wanted, olderThan: ReminderPlan.rememberedSeconds,
                         now: now.secondsSinceEpoch)
    }

    /// The recording at `address`: fetched, and read as a sound, or why not.
    static func fetchOnce(_ address: String, with fetch: HTTPFetch) -> Result<[UInt8], HTTPFetch.Failure> {
        let response: HTTPFetch.Response
        switch fetch.get(HTTPFetch.Request(url: address)) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let answer):
            response = answer
        }
        guard (200..<300).contains(response.status) else {
            return .failure(HTTPFetch.Failure(description: "the server answered HTTP \(response.status)"))
        }
        if isWebPage(response) {
            return .failure(HTTPFetch.Failure(description: "the server sent a web page (a sign-in page?), not a sound"))
        }
        do {
            _ = try Recording.load(response.body, describedAs: "fetched")
        } catch {
            return .failure(HTTPFetch.Failure(description: "\(error)"))
        }
        return .success(response.body)
    }
}

/// Keeps the recordings that the coming reminders attach by address fetched, for as long as
/// the task runs: after each reading of the feeds (`recordings.wake()`) and every few minutes,
/// the reminders of the next two days on the display's clock are looked at.
func keepRecordingsFetched(
    _ recordings: FetchedRecordings, schedule: Schedule, displayClock: any BoxClock, log: EventLog,
    clock: any BoxClock = SystemClock()
) async {
    await lookAgain(every: FetchedRecordings.lookSeconds, orWhen: recordings.wakeUps, clock: clock) {
        let now = displayClock.wallTime().instant
        let agenda = await schedule.agenda(from: now, to: now + FetchedRecordings.aheadSeconds)
        let addresses = Set(agenda.entries.compactMap(\.message.sounding?.attachment).filter(AttachedRecording.isAddress))
        for line in await recordings.keep(addresses, now: clock.now()) { log.log(.warning, line) }
    }
}

/// Runs `look` now, then again whenever `wakeUps` yields and every `seconds` on `clock`,
/// until the task is cancelled: a part that keeps something ready ahead of the reminders.
func lookAgain(
    every seconds: Int64, orWhen wakeUps: AsyncStream<Void>, clock: any BoxClock, _ look: @Sendable () async -> Void
) async {
    enum Event: Sendable {
        case timer, woken
    }
    var timerSet = false
    await withTaskGroup(of: Event.self) { group in
        // One task listens for the whole run: a wait for the stream is never cancelled midway.
        group.addTask {
            var iterator = wakeUps.makeAsyncIterator()
            _ = await iterator.next()
            return .woken
        }
        while !Task.isCancelled {
            await look()
            if !timerSet {
                timerSet = true
                group.addTask {
                    await clock.sleep(seconds: seconds)
                    return .timer
                }
            }
            // Until the timer or a wake-up; the other one stays for the next round.
            switch await group.next() {
            case .woken?:
                group.addTask {
                    var iterator = wakeUps.makeAsyncIterator()
                    _ = await iterator.next()
                    return .woken
                }
            case .timer?:
                timerSet = false
            case nil:
                return
            }
        }
        group.cancelAll()
    }
}

extension AttachedRecording {
    /// Why the recording `sounding` attaches would not be played, tried as the box tries it: a
    /// file read, a sound written into the calendar decoded, one at an address fetched now;
    /// nil when it plays or there is none (`marquee check`).
    package static func problem(of sounding: Sounding, calendar: String, certificateAuthorities: String?) -> String? {
        if let attachment = sounding.attachment, isAddress(attachment) {
            let fetch = FetchedRecordings.fetcher(certificateAuthorities: certificateAuthorities)
            guard case .failure(let failure) = FetchedRecordings.fetchOnce(attachment, with: fetch) else { return nil }
            return "the recording at \(SubscriptionAddress.redacted(attachment)) cannot be fetched: \(failure)"
        }
        let (source, unplayable) = resolve(sounding, calendar: calendar, fetched: nil)
        if let unplayable { return unplayable }
        guard let source else { return nil }
        do {
            _ = try Recording.load(source)
            return nil
        } catch {
            return sounding.attachment.map { "ATTACH \($0): \(error)" } ?? "\(error)"
        }
    }
}
