import Support

#if canImport(Glibc)
    import Glibc
#endif

/// Owns the tape, the speed and the motion, and answers what is visible at an instant.
/// Where the text is, is a function of time, never accumulated, so a renderer can be torn
/// down and rebuilt at any moment and continue mid-letter. Lives as long as the display
/// process; not thread-safe: one owner drives it.
package final class MarqueeController {
    package private(set) var configuration: MarqueeConfiguration
    /// How the screen's announcement box pages text; an announcement is paged when it is queued.
    package var announcementBox: any AnnouncementBox = OnePageBox()
    /// Where the band's line may break while it stands still (the screen's Unicode rules).
    package var lineBreaking: any LineBreaking = SpaceBreaking()
    private var metrics: any GlyphMetrics
    private var unitsPerSecond: Double
    private let origin: SteadyInstant
    private var width = 0
    private var items: [TapeItem] = []
    private var separator: TapeItem
    /// The messages of the last update, as given (before `effectForAll`).
    private var messages: [MarqueeMessage] = []
    private var tape = Tape()
    private var motion = Motion.still(0)
    private var announcements: [ScheduledAnnouncement] = []
    private var activeTexts: Set<String> = []
    private var pause: (at: SteadyInstant, resumeMotion: Motion)?
    /// Time spent paused so far: effects and announcements run on `t - pausedTotal`.
    private var pausedTotal: Nanoseconds = 0
    /// When motion last resumed after a pause: effects grow back from rest since then.
    private var resumed: SteadyInstant?

    package init(metrics: any GlyphMetrics, configuration: MarqueeConfiguration = .init(), origin: SteadyInstant) {
        self.metrics = metrics
        self.configuration = configuration
        self.origin = origin
        unitsPerSecond = configuration.charactersPerSecond * Double(metrics.unitsPerCharacter)
        separator = TapeItem(MarqueeMessage(text: configuration.separator), metrics: metrics)
    }

    // MARK: - Changes

    /// The active messages changed at `t`. What is on screen stays where it is; new text
    /// enters at the next seam; typewriter messages that just became active are announced.
    package func update(messages: [MarqueeMessage], at t: SteadyInstant, width: Int) {
        self.messages = messages
        let effective = effectiveMessages
        for message in effective where message.effect == .typewriter && !activeTexts.contains(message.text) {
            announce(TapeItem(message, metrics: metrics), at: t)
        }
        activeTexts = Set(effective.map(\.text))
        let newItems = measuredItems
        guard newItems != items || width != self.width else { return }
        // What the window shows now was laid from the old messages and stays.
        let left = Int(position(at: t, of: settle(at: t)).rounded(.down))
        tape.lay(upTo: left + self.width + 1, items: items, separator: separator)
        let arrivals = newItems.indices.filter { index in !items.contains { $0.message.text == newItems[index].message.text } }
        let x = position(at: t, of: settle(at: t))
        items = newItems
        unitsPerSecond = speedOfItems
        reanchor(at: x, t: t)
        self.width = width
        reconsider(at: t, arrivals: arrivals)
    }

    /// New settings from `t` on (a reloaded configuration): the text on screen stays where it
    /// is and moves on at the new speed; the new separator and effects apply from the next seam.
    package func reconfigure(_ configuration: MarqueeConfiguration, at t: SteadyInstant) {
        let x = position(at: t, of: settle(at: t))
        self.configuration = configuration
        unitsPerSecond = speedOfItems
        separator = TapeItem(MarqueeMessage(text: configuration.separator), metrics: metrics)
        reanchor(at: x, t: t)
        let current = messages
        items = []
        update(messages: current, at: t, width: width)
    }

    /// The screen measures text differently from `t` on (a new framebuffer with another text
    /// size, the console instead of the framebuffer): what is laid is measured again, and the
    /// letter at the window's left edge stays there, as far into it as it was. The speed stays
    /// the same in characters per second; the line is centred or moves for the new width.
    package func remeasure(with metrics: any GlyphMetrics, at t: SteadyInstant, width: Int) {
        let x = position(at: t, of: settle(at: t))
        let ratio = Double(metrics.unitsPerCharacter) / Double(self.metrics.unitsPerCharacter)
        self.metrics = metrics
        separator = TapeItem(separator.message, metrics: metrics)
        items = measuredItems
        unitsPerSecond = speedOfItems
        for index in announcements.indices {
            let announcement = announcements[index]
            announcements[index].item = TapeItem(announcement.item.message, metrics: metrics).page(announcement.page)
        }
        let mapped = tape.remeasure(position: x, ratio: ratio) { TapeItem($0.message, metrics: metrics) }
        // A glide's target was in the old measure: the line moves on, and is reconsidered below.
        func remapped(_ motion: Motion) -> Motion {
            if case .still = motion { return .still(mapped) }
            return .moving(from: mapped, since: t)
        }
        if let paused = pause {
            pause = (paused.at, remapped(paused.resumeMotion))
            motion = .still(mapped)
        } else {
            motion = remapped(motion)
        }
        self.width = width
        // A line that moves and still does not fit goes on with its cycle as laid.
        if case .moving = pause?.resumeMotion ?? motion, !fits { return }
        reconsider(at: t)
    }

    /// The speed in units per second: the characters per second asked for, in as many units a
    /// character as the messages on the tape take on average. A line of wide characters (CJK,
    /// two terminal cells each) passes at as many characters a second as a line of Latin ones.
    private var speedOfItems: Double {
        let characters = items.reduce(0) { $0 + $1.glyphs.count }
        let units = characters > 0
            ? Double(items.reduce(0) { $0 + $1.width }) / Double(characters) : Double(metrics.unitsPerCharacter)
        return configuration.charactersPerSecond * units
    }

    /// The line moves on from `x` at `t` (at a speed that just changed), the way it was moving.
    private func reanchor(at x: Double, t: SteadyInstant) {
        func reanchored(_ motion: Motion) -> Motion {
            switch motion {
            case .still: motion
            case .moving: .moving(from: x, since: t)
            case .gliding(_, _, let target): .gliding(from: x, since: t, to: target)
            }
        }
        if let paused = pause {
            pause = (paused.at, reanchored(paused.resumeMotion))
        } else {
            motion = reanchored(motion)
        }
    }

    /// The messages of the last update, with the effect for all applied.
    private var effectiveMessages: [MarqueeMessage] {
        messages.map { message in
            var message = message
            if let all = configuration.effectForAll { message.effect = all }
            return message
        }
    }

    /// The messages measured for the tape (those with nothing to show left out).
    private var measuredItems: [TapeItem] {
        effectiveMessages.map { TapeItem($0, metrics: metrics) }.filter { $0.width > 0 }
    }

    /// Stops all motion (WCAG 2.2.2) until `resume`: the band shows the messages active now as
    /// whole words, standing still (see `stillPage`), and follows every change of them;
    /// dancing letters rest upright, an announcement being typed shows whole and its ▶ (after
    /// a page another follows) rests, and announcements still to come wait (their reading time starts again on resume). A
    /// pause stops motion, never the truth.
    package func pause(at t: SteadyInstant) {
        guard pause == nil else { return }
        let current = settle(at: t)
        let effect = effectTime(t)
        refillTypewriterCycle(at: effect)
        if let index = announcements.firstIndex(where: { $0.start <= effect && effect < $0.typingEnd }) {
            announcements[index].typing = effect - announcements[index].start
            rechainAnnouncements(after: index)
        }
        pause = (t, current)
        motion = .still(position(at: t, of: current))
    }

    /// Motion continues from where it was paused; dancing letters and the ▶ ease back in.
    package func resume(at t: SteadyInstant) {
        guard let paused = pause else { return }
        pause = nil
        pausedTotal += t - paused.at
        resumed = t
        let x = position(at: t, of: motion)
        switch paused.resumeMotion {
        case .still(let still): motion = .still(still)
        case .moving: motion = .moving(from: x, since: t)
        case .gliding(_, _, let target): motion = .gliding(from: x, since: t, to: target)
        }
    }

    package var isPaused: Bool { pause != nil }

    // MARK: - Frames

    /// What is visible at `t` in a window `width` units wide. Glyphs cut by the window's edges
    /// are left out (a terminal cannot show half a cell) unless `includingPartialGlyphs`.
    package func frame(at t: SteadyInstant, width: Int, includingPartialGlyphs: Bool = false) -> Frame {
        if width != self.width {
            self.width = width
            reconsider(at: t)
        }
        if let paused = pause, configuration.effectForAll != .typewriter {
            let (glyphs, owners) = stillPage(at: t, pausedAt: paused.at)
            var inView: [String] = []
            for owner in owners where inView.last != items[owner].message.text { inView.append(items[owner].message.text) }
            return Frame(glyphs: glyphs, announcement: announcement(at: t), position: position(at: t, of: motion),
                         isMoving: false, textsInView: inView)
        }
        let x = position(at: t, of: settle(at: t))
        let left = Int(x.rounded(.down))
        tape.lay(upTo: left + width + 1, items: items, separator: separator)
        tape.prune(before: left - width)
        var glyphs: [FrameGlyph] = []
        var inView: [String] = []
        let effectSeconds = Double(effectTime(t) - origin) / 1e9
        let strength = effectStrength(at: t)
        if configuration.effectForAll != .typewriter {
            for piece in tape.pieces where piece.end > left && piece.start < left + width {
                guard let item = piece.item else { continue }
                let shownBefore = glyphs.count
                for (index, glyph) in item.glyphs.enumerated() {
                    let gx = piece.start + glyph.offset - left
                    let visible = includingPartialGlyphs
                        ? gx + glyph.advance > 0 && gx < width : gx >= 0 && gx + glyph.advance <= width
                    guard visible else { continue }
                    var frameGlyph = FrameGlyph(
                        character: glyph.character, form: glyph.form, x: gx, advance: glyph.advance, colour: item.message.colour,
                        lift: 0, tilt: 0, scale: 1, hueShift: 0)
                    if item.message.effect == .dance, strength > 0 {
                        dance(&frameGlyph, index: index, seed: item.seed, seconds: effectSeconds, strength: strength)
                    }
                    glyphs.append(frameGlyph)
                }
                if !piece.isSeparator, glyphs.count > shownBefore { inView.append(item.message.text) }
            }
        }
        return Frame(glyphs: glyphs, announcement: announcement(at: t), position: x, isMoving: isMoving(at: t),
                     textsInView: inView)
    }

    /// The next instant after `t` at which the frame can look different: the whole-unit
    /// position moves on, a letter is typed, an effect steps (every `effectStep`). nil when
    /// the picture stands still until the next change of messages.
    package func nextFrameChange(after t: SteadyInstant, effectStep: Nanoseconds) -> SteadyInstant? {
        var next: SteadyInstant?
        func consider(_ candidate: SteadyInstant) {
            if candidate > t { next = min(next ?? candidate, candidate) }
        }
        let current = settle(at: t)
        switch current {
        case .still:
            break
        case .moving(let from, let since), .gliding(let from, let since, _):
            let x = position(at: t, of: current)
            let boundary = x.rounded(.down) + 1
            var seconds = (boundary - from) / unitsPerSecond
            if case .gliding(_, _, let target) = current { seconds = min(seconds, (target - from) / unitsPerSecond) }
            consider(since + Nanoseconds((seconds * 1e9).rounded(.up)))
        }
        if pause == nil, tape.pieces.contains(where: { $0.item?.message.effect == .dance }) {
            consider(t + effectStep)
        }
        if let paused = pause, let turn = nextStillPageTurn(after: t, pausedAt: paused.at) { consider(turn) }
        // Announcements run on the effect clock, which stands still while paused.
        let effect = effectTime(t)
        if pause == nil, let announcement = announcements.first(where: { $0.end > effect }) {
            if effect < announcement.start {
                consider(announcement.start + pausedTotal)
            } else if effect < announcement.typingEnd {
                let typed = (effect - announcement.start) / configuration.typewriterLetter + 1
                consider(announcement.start + typed * configuration.typewriterLetter + pausedTotal)
            } else {
                consider(min(announcement.end + pausedTotal, t + effectStep))
            }
        }
        return next
    }

    // MARK: - Standing still

    /// The messages active now, once, joined by the separator (each glyph with its colour and
    /// the index of its message; nil for the separator), laid from 0.
    private var stillLine: (glyphs: [LaidGlyph], colours: [Colour?], owners: [Int?]) {
        var glyphs: [LaidGlyph] = [], colours: [Colour?] = [], owners: [Int?] = []
        var x = 0
        for (index, item) in items.enumerated() {
            for (piece, owner) in (index > 0 ? [(separator, Int?.none)] : []) + [(item, index)] {
                for glyph in piece.glyphs {
                    var laid = glyph
                    laid.offset += x
                    glyphs.append(laid)
                    colours.append(owner == nil ? nil : item.message.colour)
                    owners.append(owner)
                }
                x += piece.width
            }
        }
        return (glyphs, colours, owners)
    }

    /// The line's pages at the window's width: one, centred, when it fits; else as many as
    /// whole words need, each shown for as long as reading it takes (at least the minimum
    /// reading pause), the first again after the last.
    private func stillPages() -> [(range: Range<Int>, reading: Nanoseconds)] {
        let line = stillLine.glyphs
        guard !line.isEmpty else { return [] }
        guard line.width > width else { return [(0..<line.count, 0)] }
        return pageRanges(line, width: width, linesPerPage: 1, breaking: lineBreaking).filter { !$0.isEmpty }.map { range in
            let reading = Nanoseconds(Double(range.count) / configuration.charactersPerSecond * 1e9)
            return (range, max(configuration.minimumReadingPause, reading))
        }
    }

    /// The page standing at `t` and when it began, counted from the pause.
    private func stillPageIndex(at t: SteadyInstant, pausedAt: SteadyInstant, pages: [(range: Range<Int>, reading: Nanoseconds)])
        -> (index: Int, began: SteadyInstant)? {
        guard !pages.isEmpty else { return nil }
        let cycle = pages.reduce(0) { $0 + $1.reading }
        guard cycle > 0 else { return (0, pausedAt) }
        let since = max(0, t - pausedAt)
        var began = pausedAt + since / cycle * cycle
        for (index, page) in pages.enumerated() {
            if t < began + page.reading { return (index, began) }
            began += page.reading
        }
        return (0, began)
    }

    /// The band while motion stands still: the page of whole words due at `t`, centred, and
    /// the index of the message each of its letters belongs to (separators left out).
    private func stillPage(at t: SteadyInstant, pausedAt: SteadyInstant) -> (glyphs: [FrameGlyph], owners: [Int]) {
        let pages = stillPages()
        guard let (index, _) = stillPageIndex(at: t, pausedAt: pausedAt, pages: pages) else { return ([], []) }
        let (line, colours, owners) = stillLine
        let range = pages[index].range
        let shown = line[range]
        let start = shown.first?.offset ?? 0
        let pageWidth = (shown.last.map { $0.offset + $0.advance } ?? start) - start
        let left = (width - pageWidth) / 2
        let glyphs = range.map { position in
            let glyph = line[position]
            return FrameGlyph(character: glyph.character, form: glyph.form, x: left + glyph.offset - start, advance: glyph.advance,
                              colour: colours[position], lift: 0, tilt: 0, scale: 1, hueShift: 0)
        }
        return (glyphs, owners[range].compactMap { $0 })
    }

    /// When the next page of a still line is due after `t` (nil: the line fits on one).
    private func nextStillPageTurn(after t: SteadyInstant, pausedAt: SteadyInstant) -> SteadyInstant? {
        let pages = stillPages()
        guard pages.count > 1, let (index, began) = stillPageIndex(at: t, pausedAt: pausedAt, pages: pages) else { return nil }
        return began + pages[index].reading
    }

    // MARK: - Motion

    /// Still text, constant-speed motion, or motion that stops at a centred position.
    private enum Motion: Equatable {
        case still(Double)
        case moving(from: Double, since: SteadyInstant)
        case gliding(from: Double, since: SteadyInstant, to: Double)
    }

    private func position(at t: SteadyInstant, of motion: Motion) -> Double {
        switch motion {
        case .still(let x):
            return x
        case .moving(let from, let since):
            return from + Double(t - since) / 1e9 * unitsPerSecond
        case .gliding(let from, let since, let target):
            return min(target, from + Double(t - since) / 1e9 * unitsPerSecond)
        }
    }

    /// A glide that has arrived becomes still.
    private func settle(at t: SteadyInstant) -> Motion {
        if case .gliding(_, _, let target) = motion, position(at: t, of: motion) >= target {
            motion = .still(target)
        }
        return motion
    }

    private func isMoving(at t: SteadyInstant) -> Bool {
        if case .still = settle(at: t) { return false }
        return true
    }

    /// Decides still or moving for the current messages and width, without moving what is
    /// on screen: a still line that no longer fits starts moving from where it stands; a
    /// moving line whose messages now fit glides on until its text is centred.
    /// `arrivals` (indices into the messages) just became active: a moving line shows them next.
    private func reconsider(at t: SteadyInstant, arrivals: [Int] = []) {
        let current = pause?.resumeMotion ?? settle(at: t)
        let x = position(at: t, of: motion)
        let left = Int(x.rounded(.down))
        tape.lay(upTo: left + width + 1, items: items, separator: separator)
        tape.dropPieces(startingFrom: left + width + 1)
        let lineWidth = self.lineWidth
        let fits = self.fits
        let next: Motion
        switch current {
        case .still where fits:
            tape.restart()
            let start = tape.end
            tape.layLine(items, separator: separator)
            next = .still(Double(start - (width - lineWidth) / 2))
        case .moving where fits, .gliding where fits:
            if tape.endsWithMessage && !items.isEmpty { tape.append(separator, isSeparator: true) }
            let margin = (width - lineWidth) / 2
            tape.appendGap(margin)
            let start = tape.end
            tape.layLine(items, separator: separator)
            let target = items.isEmpty ? Double(tape.end) : Double(start - margin)
            next = .gliding(from: x, since: t, to: max(x, target))
        case .still:
            // The still line starts moving where it stands; new text enters at the right edge.
            if !tape.pieces.isEmpty { tape.appendGap(left + width - tape.end) }
            tape.continueCycle(items: items)
            next = .moving(from: x, since: t)
        case .moving, .gliding:
            tape.continueCycle(items: items, arrivals: arrivals)
            next = .moving(from: x, since: t)
        }
        if pause != nil {
            pause?.resumeMotion = next
            if case .still = next { motion = next }
        } else {
            motion = next
        }
    }

    /// The messages once, joined by the separator.
    private var lineWidth: Int {
        items.isEmpty ? 0 : items.reduce(0) { $0 + $1.width } + (items.count - 1) * separator.width
    }

    /// Whether the messages fit the window at once (then they stand still, centred).
    private var fits: Bool { lineWidth <= width }

    // MARK: - Effects

    /// The clock of effects and announcements: the steady clock, standing still while paused.
    private func effectTime(_ t: SteadyInstant) -> SteadyInstant {
        (pause?.at ?? t) - pausedTotal
    }

    /// How far effects (the dance, the ▶'s bob) swing at `t`: none while paused, growing back
    /// to full over a second after a resume, so no letter jumps.
    private func effectStrength(at t: SteadyInstant) -> Double {
        guard pause == nil else { return 0 }
        guard let resumed else { return 1 }
        return min(1, Double(t - resumed) / 1e9)
    }

    /// Letters bob and sway, each with its own phase: alternating directions plus a little
    /// seeded randomness, all under 1 Hz; `strength` scales how far (0: upright).
    private func dance(_ glyph: inout FrameGlyph, index: Int, seed: UInt64, seconds: Double, strength: Double) {
        let jitter = Double(mix(seed &+ UInt64(index)) % 1000) / 1000 * 0.9
        let phase = (index % 2 == 0 ? 0 : Double.pi) + jitter
        glyph.lift = strength * (1 - cos(2 * .pi * 0.4 * seconds + phase)) / 2
        glyph.tilt = strength * 0.12 * sin(2 * .pi * 0.3 * seconds + phase)
        glyph.scale = 1 + strength * 0.06 * sin(2 * .pi * 0.35 * seconds + phase + 1)
        glyph.hueShift = strength * 24 * sin(2 * .pi * 0.2 * seconds + phase)
    }

    /// A page of a typewriter announcement, on the effect clock: typed letter by letter from
    /// `start`, then read; it starts when announced or when the one before it ends, whichever
    /// is later.
    private struct ScheduledAnnouncement {
        /// The page's glyphs.
        var item: TapeItem
        /// Which of the message's glyphs the page holds.
        var page: Range<Int>
        /// When its message became active.
        var announced: SteadyInstant
        var typing: Nanoseconds
        var reading: Nanoseconds
        var start: SteadyInstant
        /// One of several pages, and whether another follows it.
        var isPaged = false
        var isFollowed = false
        var typingEnd: SteadyInstant { start + typing }
        var end: SteadyInstant { start + typing + reading }
    }

    /// Queues `item` for the box at `t` (steady time).
    private func announce(_ item: TapeItem, at t: SteadyInstant) {
        queueAnnouncement(item, at: effectTime(t))
    }

    /// Queues `item` for the box at effect time `effect`, a page after another as the box
    /// holds them.
    private func queueAnnouncement(_ item: TapeItem, at effect: SteadyInstant) {
        announcements.removeAll { $0.end <= effect }
        let pages = announcementBox.pages(of: item.glyphs).filter { !$0.isEmpty }
        for (number, page) in pages.enumerated() {
            let letters = Nanoseconds(page.count)
            let reading = Nanoseconds(Double(letters) / configuration.charactersPerSecond * 1e9)
            announcements.append(ScheduledAnnouncement(
                item: item.page(page), page: page, announced: effect, typing: letters * configuration.typewriterLetter,
                reading: max(configuration.minimumReadingPause, reading),
                start: max(effect, announcements.last?.end ?? effect), isPaged: pages.count > 1,
                isFollowed: number < pages.count - 1))
        }
    }

    /// The announcements after `index` start again when announced or when the one before them ends.
    private func rechainAnnouncements(after index: Int) {
        for next in announcements.indices where next > index {
            announcements[next].start = max(announcements[next].announced, announcements[next - 1].end)
        }
    }

    /// As a display mode (`typewriter` for all), the box cycles through the active messages:
    /// when the queue has run out they are announced again.
    private func refillTypewriterCycle(at effect: SteadyInstant) {
        guard configuration.effectForAll == .typewriter, !announcements.contains(where: { $0.end > effect }) else { return }
        for item in items { queueAnnouncement(item, at: effect) }
    }

    private func announcement(at t: SteadyInstant) -> Announcement? {
        let effect = effectTime(t)
        if pause == nil { refillTypewriterCycle(at: effect) }
        guard let current = announcements.first(where: { $0.start <= effect && effect < $0.end }) else { return nil }
        // Paused, only what was being typed or read is shown (whole); what comes next waits.
        if pause != nil, effect < current.typingEnd { return nil }
        let typed = min(current.item.glyphs.count, Int((effect - current.start) / configuration.typewriterLetter))
        var bob: Double?
        if current.isFollowed, effect >= current.typingEnd {
            let seconds = Double(effect - current.typingEnd) / 1e9
            bob = effectStrength(at: t) * (1 - cos(2 * .pi * 0.5 * seconds)) / 2
        }
        var shown = Announcement(glyphs: current.item.glyphs, colour: current.item.message.colour,
                                 visibleCount: effect >= current.typingEnd ? current.item.glyphs.count : typed, arrowBob: bob)
        shown.isPaged = current.isPaged
        if current.isFollowed, pause == nil, current.end - effect < Self.pageFade {
            shown.opacity = Double(current.end - effect) / Double(Self.pageFade)
        }
        return shown
    }

    /// How long a page fades before the next page of its announcement is typed.
    static let pageFade: Nanoseconds = 600_000_000
}

/// A message measured once: its glyphs with their advances.
struct TapeItem: Equatable {
    var message: MarqueeMessage
    var glyphs: [LaidGlyph]
    var width: Int
    /// Seeds the dance's per-letter randomness (stable across runs, unlike `Hasher`).
    var seed: UInt64

    init(_ message: MarqueeMessage, metrics: any GlyphMetrics) {
        self.message = message
        glyphs = metrics.layout(message.text)
        width = glyphs.width
        seed = stableHash(message.text)
    }
}

extension TapeItem {
    /// The item with only the glyphs in `range` (clamped to those it has).
    func page(_ range: Range<Int>) -> TapeItem {
        var page = self
        page.glyphs = Array(glyphs[range.clamped(to: glyphs.indices)])
        return page
    }
}

extension Character {
    var isControl: Bool {
        unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
    }
}

