import Schedule

/// Whether the screen is dark, and why: the hours `screen_off` keeps it dark (the schedule
/// says, in the display zone) and the while it is lit within them for a reminder, a key or a
/// request. Without a clock of its own (instants are given), so every rule is tested as it is
/// written.
struct ScreenLighting: Equatable {
    /// Until when `screen_off` keeps the screen dark (nil: the hours keep it lit).
    private(set) var darkUntil: ZonedTime?
    /// Lit within the dark hours until then, and why ("a reminder", "a key", "a request").
    private(set) var litUntil: Instant?
    private(set) var litBecause: String?

    /// How long a key or a request lights a dark screen.
    static let litByHand: Int64 = 300
    /// How long a reminder's light outlasts its message, and the longest it stays lit for one
    /// (an event of all night must not keep a bedroom lit).
    static let afterReminder: Int64 = 60
    static let longestForReminder: Int64 = 600

    /// The dark hours as the schedule's latest snapshot says: when they end, what lit them goes.
    mutating func follow(darkUntil: ZonedTime?) {
        self.darkUntil = darkUntil
        if darkUntil == nil { (litUntil, litBecause) = (nil, nil) }
    }

    func isDark(at now: Instant) -> Bool {
        darkUntil != nil && !(litUntil.map { now < $0 } ?? false)
    }

    /// Lights a dark screen until `until` (a later light is kept); nothing by day.
    mutating func light(until: Instant, because reason: String, at now: Instant) {
        guard darkUntil != nil, until > now else { return }
        if let litUntil, litUntil >= until, now < litUntil { return }
        (litUntil, litBecause) = (until, reason)
    }

    /// Lights a dark screen for a key or a request.
    mutating func lightByHand(because reason: String, at now: Instant) {
        light(until: now + Self.litByHand, because: reason, at: now)
    }

    /// Lights a dark screen while `message` (a reminder heard, a message announced) is shown,
    /// and a minute more; at most `longestForReminder` and that minute.
    mutating func light(for message: Message, because reason: String, at now: Instant) {
        let shown = min(message.end.instant, now + Self.longestForReminder)
        light(until: max(shown, now) + Self.afterReminder, because: reason, at: now)
    }

    /// When the light ends and the screen goes dark again (nil: nothing is due here; the end
    /// of the dark hours comes with the schedule's next snapshot).
    func nextChange(after now: Instant) -> Instant? {
        guard darkUntil != nil, let litUntil, litUntil > now else { return nil }
        return litUntil
    }

    /// What the status says of the screen at `now`; `darkBy` is how it went dark.
    func status(at now: Instant, utcOffset: Int, darkBy: String?) -> ScreenStatus {
        func shown(_ instant: Instant) -> String { ZonedTime(instant: instant, utcOffset: utcOffset).rfc3339 }
        guard let darkUntil else { return ScreenStatus(state: .on) }
        if !isDark(at: now), let litUntil {
            return ScreenStatus(state: .lit, until: shown(min(litUntil, darkUntil.instant)), litBecause: litBecause,
                                darkUntil: darkUntil.rfc3339)
        }
        return ScreenStatus(state: .dark, darkUntil: darkUntil.rfc3339, darkBy: darkBy)
    }
}

/// What `marquee status` says of the screen itself: on, dark for `screen_off`, or lit within
/// it for a while.
package struct ScreenStatus: Codable, Sendable, Hashable {
    package enum State: String, Codable, Sendable {
        case on
        case dark
        /// Lit within the dark hours (a reminder, a key, a request).
        case lit
    }

    package var state: State
    /// When a lit screen goes dark again.
    package var until: String?
    package var litBecause: String?
    /// When the dark hours end (`screen_off`).
    package var darkUntil: String?
    /// How it is dark: "powered down (DPMS)", "black: …".
    package var darkBy: String?

    package init(state: State, until: String? = nil, litBecause: String? = nil, darkUntil: String? = nil,
                darkBy: String? = nil) {
        self.state = state
        self.until = until
        self.litBecause = litBecause
        self.darkUntil = darkUntil
        self.darkBy = darkBy
    }

    /// The local clock time of an RFC 3339 time ("06:30"; "?" for none), as a carer reads it.
    package static func clock(_ rfc3339: String?) -> String { rfc3339.map { String($0.dropFirst(11).prefix(5)) } ?? "?" }

    /// "on", "dark until 06:30 (screen_off)", "lit for a reminder until 23:41, then dark until
    /// 06:30 (screen_off)", "lit for a key; screen_off ends at 06:30".
    package var summary: String {
        let clock = Self.clock
        let lit = "lit for \(litBecause ?? "a while")"
        switch state {
        case .on: return "on"
        case .dark: return "dark until \(clock(darkUntil)) (screen_off)"
        case .lit where until == darkUntil: return "\(lit); screen_off ends at \(clock(darkUntil))"
        case .lit: return "\(lit) until \(clock(until)), then dark until \(clock(darkUntil)) (screen_off)"
        }
    }
}
