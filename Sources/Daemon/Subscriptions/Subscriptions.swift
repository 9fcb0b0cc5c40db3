import Marquee
import Schedule
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Calendar subscriptions: each address fetched when it is due, politely (conditional
/// requests, the calendar's and the server's wishes, backoff after failures), and its last
/// good calendar kept in a cache folder, where the schedule reads it like a feed file. What
/// is fetched is checked before it replaces the copy in hand: a web page, a calendar libical
/// cannot use, or one that suddenly has no events keeps the last good one. The cache outlives
/// a restart, so a box that boots before its network is up shows its calendars at once.
/// Without a folder (a one-shot command), or when a copy cannot be written (a read-only,
/// full or missing state folder), the calendar is held in memory and shown all the same.
package actor Subscriptions {
    /// The addresses fetched, each once (a reload may change them: `use(_:)`).
    package private(set) var addresses: [SubscriptionAddress]
    /// The cache folder (nil: nothing is kept on disk).
    private let folder: String?
    private let fetch: HTTPFetch
    private let policy: RefreshPolicy
    private let inspect: @Sendable ([UInt8], String) async -> FeedInspection
    private var records: [String: SubscriptionRecord] = [:]
    /// The calendars in effect that have no copy on disk (by key).
    private var held: [String: [UInt8]] = [:]
    /// The addresses whose fetch runs now (by key).
    private var inFlight: Set<String> = []
    /// The backoff jitter's seed, moved on at each draw.
    private var jitter: SplitMix64
    /// Says that addresses became due before their time (`askAgainNow`).
    package nonisolated let wakeUps: AsyncStream<Void>
    private nonisolated let wakeUp: AsyncStream<Void>.Continuation

    /// How long a calendar that had events must stay empty before its emptiness is believed.
    static let emptyGrace: Int64 = 3600

    /// - Parameters:
    ///   - folder: the cache folder (made if missing): a copy and a record per address; nil
    ///     keeps the calendars in memory only.
    ///   - refreshSeconds: how often a calendar is asked for (at least a minute).
    ///   - certificateAuthorities: trusted authorities instead of the system's, if given.
    ///   - stallSeconds: a server that does not connect, or sends nothing, this long is given up on.
    ///   - inspect: what the schedule makes of fetched bytes (named by the shown address).
    ///   - seed: the backoff's jitter.
    package init(
        addresses: [SubscriptionAddress], folder: String?, refreshSeconds: Int64 = RefreshPolicy.defaultInterval,
        certificateAuthorities: String? = nil, stallSeconds: Int = 30,
        inspect: @escaping @Sendable ([UInt8], String) async -> FeedInspection, seed: UInt64
    ) {
        self.addresses = Self.distinct(addresses)
        self.folder = folder
        fetch = HTTPFetch(stallSeconds: stallSeconds, totalSeconds: max(120, 4 * stallSeconds),
                          certificateAuthorities: certificateAuthorities)
        policy = RefreshPolicy(interval: refreshSeconds)
        self.inspect = inspect
        jitter = SplitMix64(seed: seed)
        (wakeUps, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        var known: [String: SubscriptionRecord] = [:]
        if let folder {
            makeFolders(folder)
            // A copy or record being written when the box lost power is left half done.
            removeUnfinishedWrites(in: folder)
        }
        for address in Self.distinct(addresses) {
            guard let folder else { break }
            guard case .success(let bytes) = readFile(Self.recordPath(address, in: folder), limit: 1 << 16),
                  var record = try? JSONDecoder().decode(SubscriptionRecord.self, from: Data(bytes))
            else { continue }
            // A restart asks again within the interval, unless the server asked to wait longer.
            if record.httpStatus != 429, let last = record.lastAttempt, let next = record.nextAttempt {
                record.nextAttempt = min(next, last + policy.interval)
            }
            known[address.key] = record
        }
        records = known
    }

    /// Each address once, in the order given.
    private static func distinct(_ addresses: [SubscriptionAddress]) -> [SubscriptionAddress] {
        var seen: Set<String> = []
        return addresses.filter { seen.insert($0.key).inserted }
    }

    /// Fetches `given` from now on (a carer added or removed a subscription): a new address is
    /// due at once (said on `wakeUps`); a removed one's copy and record are deleted, since its
    /// calendar may be private. True when the list changed (the schedule should read the
    /// calendars again: `fetched()`).
    package func use(_ given: [SubscriptionAddress]) -> Bool {
        let next = Self.distinct(given)
        guard next != addresses else { return false }
        let kept = Set(next.map(\.key))
        for gone in addresses where !kept.contains(gone.key) {
            records[gone.key] = nil
            held[gone.key] = nil
            if let folder, let copy = copyPath(gone) {
                unlink(copy)
                unlink(Self.recordPath(gone, in: folder))
            }
        }
        addresses = next
        wakeUp.yield()
        return true
    }

    /// Whether `address` is still fetched (a fetch that outlived its address keeps nothing).
    private func isListed(_ address: SubscriptionAddress) -> Bool { addresses.contains { $0.key == address.key } }

    /// The calendars as the schedule reads them: each address's cached copy, or the calendar
    /// held in memory.
    package func fetched() -> [FetchedFeed] {
        addresses.map { FetchedFeed(name: $0.shown, file: copyPath($0), held: held[$0.key]) }
    }

    /// The addresses due at `now` (never fetched, or their next attempt has come), each
    /// marked as being attempted at `now`: not due again while its fetch runs, which the
    /// caller starts (`refresh`).
    package func claimDue(at now: Instant) -> [SubscriptionAddress] {
        let seconds = now.secondsSinceEpoch
        let due = addresses.filter { !inFlight.contains($0.key) && nextAttempt(of: $0, at: seconds) <= seconds }
        for address in due { markAttempted(address, at: seconds) }
        return due
    }

    /// Makes every address due now (a carer's reload: the calendar was just changed), but for
    /// one whose server asked to wait, and says so on `wakeUps`.
    package func askAgainNow(at now: Instant) {
        for address in addresses where !inFlight.contains(address.key) {
            guard var record = records[address.key], record.httpStatus != 429 else { continue }
            record.nextAttempt = min(record.nextAttempt ?? .min, now.secondsSinceEpoch)
            records[address.key] = record
        }
        wakeUp.yield()
    }

    /// Records an attempt starting at `seconds`; until its outcome the address is not due.
    private func markAttempted(_ address: SubscriptionAddress, at seconds: Int64) {
        inFlight.insert(address.key)
        var record = records[address.key] ?? SubscriptionRecord()
        record.lastAttempt = seconds
        record.nextAttempt = seconds + policy.interval
        records[address.key] = record
    }

    /// The earliest next attempt of any address, as seen at `now`.
    package func nextAttempt(at now: Instant) -> Instant? {
        addresses.map { nextAttempt(of: $0, at: now.secondsSinceEpoch) }.min().map(Instant.init(secondsSinceEpoch:))
    }

    /// When an address is next due. No wait is longer than a day, so one planned further
    /// ahead was planned by a clock that has since been set back (a box that booted with its
    /// clock ahead): it is due now.
    private func nextAttempt(of address: SubscriptionAddress, at seconds: Int64) -> Int64 {
        let next = records[address.key]?.nextAttempt ?? .min
        return next > seconds + RefreshPolicy.longestWait ? seconds : next
    }

    /// What is known of every address, for the status, with times at `utcOffset` (seconds
    /// east: the display's zone now).
    package func statuses(utcOffset: Int = 0) -> [SubscriptionStatus] {
        addresses.map { address in
            let record = records[address.key] ?? SubscriptionRecord()
            func instant(_ seconds: Int64?) -> String? {
                seconds.map { ZonedTime(instant: Instant(secondsSinceEpoch: $0), utcOffset: utcOffset).rfc3339 }
            }
            return SubscriptionStatus(
                address: address.shown, lastSuccess: instant(record.lastSuccess), lastAttempt: instant(record.lastAttempt),
                nextAttempt: instant(record.nextAttempt), httpStatus: record.httpStatus, error: record.error,
                events: record.events)
        }
    }

    /// Asks for every address at `now`, all at once (the one-shot commands): a slow server
    /// holds up no other, so the whole takes as long as the slowest.
    package func refreshAll(at now: Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for address in addresses { group.addTask { await self.refresh(address, at: now) } }
        }
    }

    /// Asks for one address's calendar at `now` and keeps what is good; true when the cached
    /// copy changed (the schedule should read it again).
    @discardableResult package func refresh(_ address: SubscriptionAddress, at now: Instant) async -> Bool {
        let seconds = now.secondsSinceEpoch
        markAttempted(address, at: seconds)
        var record = records[address.key]!
        defer {
            if isListed(address) { save(record, for: address) } else { records[address.key] = nil }
            inFlight.remove(address.key)
        }
        let fetch = self.fetch
        let copy = copyPath(address)
        // The calendar in effect, held or its copy (a folder or anything else that is not a
        // readable file at the copy's path is no copy: asked for anew, never "not modified"),
        // by its fingerprint: it is not kept in memory while the new one arrives.
        let inHand = (held[address.key] ?? copy.flatMap { try? readFile($0, limit: fetch.maximumBytes).get() })
            .map(FeedFingerprint.init)
        let hasCopy = inHand != nil
        let request = HTTPFetch.Request(
            url: address.url, entityTag: hasCopy ? record.entityTag : nil, lastModified: hasCopy ? record.lastModified : nil)
        let result = await onThread(named: "marquee-fetch") { fetch.get(request) }
            ?? .failure(HTTPFetch.Failure(description: "no thread to fetch on"))
        guard isListed(address) else { return false }
        func fail(_ message: String, retryAfter: Int64? = nil, reachedServer: Bool = true) -> Bool {
            record.error = message
            record.failures += 1
            record.nextAttempt = policy.nextAfterFailure(
                at: seconds, failures: record.failures, retryAfter: retryAfter, jitter: nextJitter(),
                reachedServer: reachedServer)
            return false
        }
        let response: HTTPFetch.Response
        switch result {
        case .failure(let failure):
            record.httpStatus = nil
            return fail(failure.description, reachedServer: !failure.reachedNoServer)
        case .success(let answer):
            response = answer
        }
        record.httpStatus = response.status
        switch response.status {
        case 304 where hasCopy:
            record.succeeded(at: seconds, next: policy.nextAfterSuccess(
                at: seconds, calendarSeconds: record.refreshSeconds, retryAfter: response.retryAfter))
            return false
        case 200..<300:
            break
        case 401, 403:
            return fail("the server refuses the calendar (HTTP \(response.status)); the private address may have been reset",
                        retryAfter: response.retryAfter)
        case 404, 410:
            return fail("there is no calendar at this address (HTTP \(response.status))", retryAfter: response.retryAfter)
        case 429:
            return fail("the server asks marquee to ask less often (HTTP 429)", retryAfter: response.retryAfter)
        default:
            return fail("the server answered HTTP \(response.status)", retryAfter: response.retryAfter)
        }
        if isWebPage(response) {
            return fail("the server sent a web page (a sign-in page?), not a calendar; use the calendar's private iCal address")
        }
        // A server without validators sends the same calendar again: nothing to check or read again.
        if inHand == FeedFingerprint(response.body) {
            record.entityTag = response.entityTag
            record.lastModified = response.lastModified
            record.succeeded(at: seconds, next: policy.nextAfterSuccess(
                at: seconds, calendarSeconds: record.refreshSeconds, retryAfter: response.retryAfter))
            if held[address.key] != nil { keep(response.body, of: address, in: &record) }
            return false
        }
        let inspection = await inspect(response.body, address.shown)
        guard isListed(address) else { return false }
        if let problem = inspection.problems.first(where: { $0.severity == .error }) {
            return fail("the calendar cannot be used: \(problem)")
        }
        let next = policy.nextAfterSuccess(at: seconds, calendarSeconds: inspection.refreshSeconds, retryAfter: response.retryAfter)
        if inspection.eventCount == 0, let had = record.events, had > 0, hasCopy {
            let since = record.emptySince ?? seconds
            record.emptySince = since
            if seconds - since < Self.emptyGrace {
                record.error = "the calendar has no events now; the \(had) event(s) fetched before stay until it has been empty for an hour"
                record.nextAttempt = next
                return false
            }
        }
        record.entityTag = response.entityTag
        record.lastModified = response.lastModified
        record.events = inspection.eventCount
        record.refreshSeconds = inspection.refreshSeconds
        record.emptySince = nil
        record.succeeded(at: seconds, next: next)
        keep(response.body, of: address, in: &record)
        return true
    }

    /// Puts a calendar in effect: its copy written in the folder, or, without a folder or when
    /// the copy cannot be written, held in memory — shown all the same, the failure to keep it
    /// said in the record.
    private func keep(_ calendar: [UInt8], of address: SubscriptionAddress, in record: inout SubscriptionRecord) {
        guard let folder, let copy = copyPath(address) else {
            held[address.key] = calendar
            return
        }
        if let reason = writeFileAtomically(calendar, to: copy) {
            held[address.key] = calendar
            record.error = "shown, but no copy can be kept in \(folder) (\(reason)): it is lost at a restart"
        } else {
            held[address.key] = nil
        }
    }

    /// A number in 0..<1 from the seeded sequence.
    private func nextJitter() -> Double {
        Double(jitter.next() >> 11) / Double(1 << 53)
    }

    private nonisolated func copyPath(_ address: SubscriptionAddress) -> String? { folder.map { $0 + "/" + address.key + ".ics" } }
    private static func recordPath(_ address: SubscriptionAddress, in folder: String) -> String {
        folder + "/" + address.key + ".json"
    }

    /// Keeps `record` (in memory, and in the folder for the next start); one that cannot be
    /// written is said in its error, as a copy that cannot be kept is.
    private func save(_ record: SubscriptionRecord, for address: SubscriptionAddress) {
        var record = record
        if let folder, let data = try? JSONEncoder().encode(record),
           let reason = writeFileAtomically(Array(data), to: Self.recordPath(address, in: folder)), record.error == nil {
            record.error = "shown, but its record (when to ask next, the server's validators) cannot be kept in "
                + "\(folder) (\(reason)): after a restart it is asked for anew at once"
        }
        records[address.key] = record
    }
}

/// What `marquee status` shows of a subscription (times in RFC 3339).
package struct SubscriptionStatus: Codable, Sendable, Hashable {
    /// Secrets hidden.
    package var address: String
    package var lastSuccess: String?
    package var lastAttempt: String?
    package var nextAttempt: String?
    package var httpStatus: Int?
    /// Why the last attempt brought nothing new to show; nil after a good one.
    package var error: String?
    /// The events in the calendar in effect.
    package var events: Int?

    /// The last attempt's error as `marquee check` writes a feed's (`address: error: …`); nil
    /// after a good one.
    package var errorLine: String? {
        error.map { "\(address): error: \($0)" }
    }
}

/// When a subscription is asked for again: every interval after an answer (longer if the
/// calendar or the server asks), sooner but backing off exponentially with jitter after a
/// failure, and never before a server's `Retry-After`.
package struct RefreshPolicy: Sendable, Hashable {
    package static let defaultInterval: Int64 = 300
    /// No server is asked for a calendar more often than this.
    package static let shortestInterval: Int64 = 60
    /// The first wait after a failure that reached no server (no name resolved, no connection
    /// made): what was missing is likely the box's own network — at its first boot, or while
    /// its Wi-Fi was away — and a question that never arrived burdens no server.
    static let firstRetryWithoutServer: Int64 = 5
    /// Nothing waits longer than a day.
    static let longestWait: Int64 = 86_400
    /// Failures back off up to this.
    static let longestBackoff: Int64 = 3600

    package let interval: Int64

    package init(interval: Int64 = defaultInterval) {
        self.interval = max(Self.shortestInterval, interval)
    }

    /// After an answer (a new calendar or "not modified"): the interval, or what the calendar
    /// (REFRESH-INTERVAL) or the server (Retry-After) asks when that is longer.
    func nextAfterSuccess(at now: Int64, calendarSeconds: Int64?, retryAfter: Int64?) -> Int64 {
        now + min(Self.longestWait, max(interval, calendarSeconds ?? 0, retryAfter ?? 0))
    }

    /// After the `failures`-th failure in a row: a minute (5 s when it `reachedServer` not),
    /// doubling up to an hour, each wait between half of that and all of it (`jitter` in
    /// 0..<1), so boxes that lost the same network do not all ask at once when it is back;
    /// never before `retryAfter`.
    func nextAfterFailure(at now: Int64, failures: Int, retryAfter: Int64?, jitter: Double,
                          reachedServer: Bool = true) -> Int64 {
        let first = reachedServer ? Self.shortestInterval : Self.firstRetryWithoutServer
        let doubled = min(Self.longestBackoff, first << Int64(min(max(failures, 1) - 1, 20)))
        let wait = max(first, Int64(Double(doubled) * (0.5 + jitter / 2)))
        return now + min(Self.longestWait, max(wait, retryAfter ?? 0))
    }
}

/// What is kept of a subscription beside its cached copy (seconds since the epoch).
struct SubscriptionRecord: Codable, Hashable {
    var entityTag: String?
    var lastModified: String?
    var lastSuccess: Int64?
    var lastAttempt: Int64?
    var nextAttempt: Int64?
    var httpStatus: Int?
    var error: String?
    var events: Int?
    var refreshSeconds: Int64?
    /// Failures in a row.
    var failures = 0
    /// Since when the calendar has come back empty while the cached one has events.
    var emptySince: Int64?

    mutating func succeeded(at seconds: Int64, next: Int64) {
        lastSuccess = seconds
        nextAttempt = next
        error = nil
        failures = 0
    }
}

/// Whether an answer is a web page rather than a calendar: servers answer a revoked or
/// mistyped private address with a sign-in page and status 200. A calendar a server calls
/// `text/html` by mistake is still a calendar.
func isWebPage(_ response: HTTPFetch.Response) -> Bool {
    let start = response.body.prefix(512).drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }
    if start.first == UInt8(ascii: "<") { return true }
    guard let type = response.contentType?.lowercased(), type.hasPrefix("text/html") || type.hasPrefix("application/xhtml")
    else { return false }
    return !String(decoding: start.prefix(15), as: UTF8.self).uppercased().hasPrefix("BEGIN:VCALENDAR")
}

/// Makes a folder and the folders above it that are missing (owner and group only).
private func makeFolders(_ path: String) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        prefix += "/" + part
        _ = mkdir(prefix, 0o750)
    }
}
