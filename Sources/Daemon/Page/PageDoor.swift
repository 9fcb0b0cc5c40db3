import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which peers the carer's page answers (`web_peers`).
package enum PagePeers: String, Sendable, CaseIterable {
    /// Loopback, link-local and the private ranges (RFC 1918, IPv6 unique-local): the home
    /// network, not the internet a port forward would open it to.
    case home
    /// Every address (behind a VPN or a reverse proxy that decides itself).
    case any

    /// Whether a peer at `address` (an IPv4 or IPv6 address in text) is answered.
    func admits(_ address: String?) -> Bool {
        self == .any || address.map(Self.isHomeNetwork) == true
    }

    /// Whether `address` is loopback, link-local or private (an IPv4-mapped IPv6 address as
    /// its IPv4 one); false for anything that does not parse.
    static func isHomeNetwork(_ address: String) -> Bool {
        var four = in_addr()
        if inet_pton(AF_INET, address, &four) == 1 { return isHomeNetwork(ipv4: UInt32(bigEndian: four.s_addr)) }
        var six = in6_addr()
        guard inet_pton(AF_INET6, address, &six) == 1 else { return false }
        let bytes = withUnsafeBytes(of: six) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return isHomeNetwork(ipv4: bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
        }
        let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let linkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        let uniqueLocal = bytes[0] & 0xFE == 0xFC
        return loopback || linkLocal || uniqueLocal
    }

    /// Whether an IPv4 address (host order) is loopback, link-local or private.
    static func isHomeNetwork(ipv4 address: UInt32) -> Bool {
        let (a, b) = (address >> 24, (address >> 16) & 0xFF)
        return a == 127 || a == 10 || (a == 172 && b & 0xF0 == 16) || (a == 192 && b == 168) || (a == 169 && b == 254)
    }
}

/// Wrong passwords, per address: the first few cost a second each; then the address is locked
/// out for a quarter of an hour, doubling with each lockout up to a day. Pure: instants given.
struct LoginThrottle {
    static let freeTries = 5
    static let firstLock: Int64 = 900
    static let longestLock: Int64 = 86_400
    /// How many addresses are remembered (the oldest forgotten first): a flood from many
    /// addresses costs memory that is bounded.
    static let remembered = 1_000

    private struct Record {
        var failures = 0
        var lockouts = 0
        var lockedUntil: Int64?
        var last: Int64
    }

    private var records: [String: Record] = [:]

    /// Until when `address` may not try (nil: it may now).
    func lockedUntil(_ address: String, at now: Int64) -> Int64? {
        records[address]?.lockedUntil.flatMap { $0 > now ? $0 : nil }
    }

    /// A wrong password from `address`: until when it is now locked out (nil: not yet).
    mutating func failed(_ address: String, at now: Int64) -> Int64? {
        var record = records[address] ?? Record(last: now)
        record.failures += 1
        record.last = now
        if record.failures >= Self.freeTries {
            let lock = min(Self.longestLock, Self.firstLock << min(record.lockouts, 10))
            record.lockedUntil = now + lock
            record.lockouts += 1
            record.failures = 0
        }
        records[address] = record
        if records.count > Self.remembered, let oldest = records.min(by: { $0.value.last < $1.value.last })?.key {
            records[oldest] = nil
        }
        return record.lockedUntil.flatMap { $0 > now ? $0 : nil }
    }

    /// The right password: the address starts afresh.
    mutating func succeeded(_ address: String) { records[address] = nil }
}

/// The page's signed-in carers: a session is a random token in an HttpOnly, SameSite=Strict
/// cookie, with a token of its own that every change must carry (a form's hidden field), so a
/// page elsewhere cannot make the carer's browser change anything. Sessions end after
/// `lifetime` without use, at sign-out, or when too many are open (the oldest first).
final class PageSessions: Sendable {
    struct Session: Sendable {
        let token: String
        /// The token every change must carry.
        let changeToken: String
        var lastUsed: Int64
        /// What the last change came to, shown once on the next page.
        var notice: String?
        /// A voice the carer recorded, held until the reminder it is for is kept.
        var recorded: (bytes: [UInt8], at: Int64)?
    }

    static let lifetime: Int64 = 12 * 3_600
    static let most = 32
    /// Sessions holding a recording at once (each up to 10 MB): the oldest recording goes first.
    static let recordingsHeld = 3

    private let sessions = Mutex<[String: Session]>([:])

    /// A new session, from now.
    func open(at now: Int64) -> Session {
        let session = Session(token: Self.randomToken(), changeToken: Self.randomToken(), lastUsed: now)
        sessions.withLock { sessions in
            sessions = sessions.filter { now - $0.value.lastUsed < Self.lifetime }
            if sessions.count >= Self.most, let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
                sessions[oldest] = nil
            }
            sessions[session.token] = session
        }
        return session
    }

    /// The session of `token`, used now (nil: none, or it ended).
    func session(_ token: String, at now: Int64) -> Session? {
        sessions.withLock { sessions in
            guard var session = sessions[token], now - session.lastUsed < Self.lifetime else {
                sessions[token] = nil
                return nil
            }
            session.lastUsed = now
            sessions[token] = session
            return session
        }
    }

    func close(_ token: String) { sessions.withLock { $0[token] = nil } }

    /// Keeps what a change came to for the session's next page.
    func note(_ token: String, _ notice: String) { sessions.withLock { $0[token]?.notice = notice } }

    /// What the last change came to, once.
    func takeNotice(_ token: String) -> String? {
        sessions.withLock { sessions in
            defer { sessions[token]?.notice = nil }
            return sessions[token]?.notice
        }
    }

    /// Holds `bytes`, recorded now, for the session's next reminder.
    func hold(recording bytes: [UInt8], for token: String, at now: Int64) {
        sessions.withLock { sessions in
            sessions[token]?.recorded = (bytes, now)
            let holding = sessions.values.filter { $0.recorded != nil }.sorted { ($0.recorded?.at ?? 0) > ($1.recorded?.at ?? 0) }
            for session in holding.dropFirst(Self.recordingsHeld) { sessions[session.token]?.recorded = nil }
        }
    }

    /// The recording the session holds, taken (nil: none).
    func takeRecording(of token: String) -> [UInt8]? {
        sessions.withLock { sessions in
            defer { sessions[token]?.recorded = nil }
            return sessions[token]?.recorded?.bytes
        }
    }

    /// Every session ends (the password was changed).
    func closeAll() { sessions.withLock { $0 = [:] } }

    /// 32 bytes from the system's generator (getrandom), in hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// Compares two tokens in time that does not depend on where they differ.
func tokensMatch(_ given: String, _ expected: String) -> Bool {
    let (a, b) = (Array(given.utf8), Array(expected.utf8))
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}
