import Support
import TestSupport
import Testing

@testable import Marquee

let second: Nanoseconds = 1_000_000_000
let t0 = SteadyInstant(sinceOrigin: 1_800_000_000 * second)

/// The band as a string of `width` cells ("·" marks the right half of a wide glyph).
func row(_ frame: Frame, width: Int) -> [Character] {
    var cells = [Character](repeating: " ", count: width)
    for glyph in frame.glyphs {
        cells[glyph.x] = glyph.character
        for extra in 1..<max(1, glyph.advance) { cells[glyph.x + extra] = "·" }
    }
    return cells
}

func text(_ frame: Frame, width: Int) -> String { String(row(frame, width: width)) }

func controller(speed: Double = 5, effectForAll: MessageEffect? = nil) -> MarqueeController {
    var configuration = MarqueeConfiguration(charactersPerSecond: speed)
    configuration.effectForAll = effectForAll
    return MarqueeController(metrics: CellMetrics(), configuration: configuration, origin: t0)
}

func messages(_ texts: String...) -> [MarqueeMessage] { texts.map { MarqueeMessage(text: $0) } }

let words = ["It's night-time", "Good morning!", "🎂 Johnny turns 7", "漢字のテスト", "Café crème", "Take your pills",
             "Leave for the dentist at 09:30", "Ünïcödé", "a", "Bins out tonight"]

@Suite struct MotionTests {
    /// The visible text at t+dt is the text at t shifted by the distance moved (what
    /// enters at the right edge aside), for random instants and message sets.
    @Test func textShiftsBySpeedTimesTime() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<60 {
            let width = Int.random(in: 20...80, using: &random)
            let count = Int.random(in: 3...6, using: &random)
            let texts = (0..<count).map { _ in words.randomElement(using: &random)! + " " + words.randomElement(using: &random)! }
            let marquee = controller(speed: Double.random(in: 2...12, using: &random))
            marquee.update(messages: texts.map { MarqueeMessage(text: $0) }, at: t0, width: width)
            let t = t0 + Nanoseconds.random(in: 0...(3600 * second), using: &random)
            let dt = Nanoseconds.random(in: 1...(3 * second), using: &random)
            let before = marquee.frame(at: t, width: width)
            let after = marquee.frame(at: t + dt, width: width)
            let shift = Int(after.position.rounded(.down)) - Int(before.position.rounded(.down))
            #expect(shift >= 0)
            let old = row(before, width: width), new = row(after, width: width)
            guard shift < width - 4 else { continue }
            // Cells next to a wide glyph cut at the edge may differ; compare whole columns inside.
            let overlap = (2..<(width - shift - 2)).filter { old[$0 + shift] != " " && old[$0 + shift] != "·" }
            #expect(overlap.allSatisfy { new[$0] == old[$0 + shift] }, "\(String(old)) / \(String(new)) by \(shift)")
        }
    }

    /// Position is speed × time: 5 chars/s moves 50 cells in 10 s.
    @Test func speedIsCharactersPerSecond() {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages(String(repeating: "long text ", count: 20)), at: t0, width: 40)
        #expect(marquee.frame(at: t0, width: 40).position == 0)
        #expect(marquee.frame(at: t0 + 10 * second, width: 40).position == 50)
        #expect(marquee.frame(at: t0 + 10 * second + second / 10, width: 40).position == 50.5)
    }

    /// Characters a second are characters, whatever their width: a line of CJK (two cells a
    /// character) passes 5 characters a second, 10 cells; it passed 5 cells, half the rate.
    /// A change of messages changes the speed from where the line stands, without a jump.
    @Test func wideCharactersPassAtTheSameRate() {
        let marquee = controller(speed: 5)
        let cjk = String(repeating: "漢字測試中文", count: 10)
        marquee.update(messages: messages(cjk), at: t0, width: 40)
        let start = marquee.frame(at: t0, width: 40)
        let later = marquee.frame(at: t0 + 2 * second, width: 40)
        #expect(later.position - start.position == 20)
        #expect(later.glyphs.first?.x == 0 && later.glyphs.first?.character == Array(cjk)[10])
        let before = marquee.frame(at: t0 + 3 * second, width: 40).position
        marquee.update(messages: messages(cjk, String(repeating: "plain text ", count: 10)), at: t0 + 3 * second, width: 40)
        #expect(marquee.frame(at: t0 + 3 * second, width: 40).position == before)
        let mixed = marquee.frame(at: t0 + 4 * second, width: 40).position - before
        #expect(mixed > 5 && mixed < 10)
    }

    /// The loop is seamless: after one tape cycle the picture repeats exactly, no blank gap.
    @Test func seamlessLoop() {
        let marquee = controller(speed: 10)
        marquee.update(messages: messages("First message here", "Second one"), at: t0, width: 20)
        let cycle = 18 + 3 + 10 + 3  // both messages and two separators
        for offset in stride(from: 40, to: 200, by: 7) {
            let t = t0 + Nanoseconds(offset) * second / 10
            let later = t + Nanoseconds(cycle) * second / 10
            #expect(text(marquee.frame(at: t, width: 20), width: 20) == text(marquee.frame(at: later, width: 20), width: 20))
        }
        let full = text(marquee.frame(at: t0 + 4 * second, width: 20), width: 20)
        #expect(!full.contains("   "))
    }

    /// A message that becomes active on a moving line comes right after the message at the
    /// right edge, wherever it stands in the display order, and appears once before the cycle
    /// goes on (it waited for a loop through the others: 11 s on 40 columns).
    @Test func aNewMessageComesNext() {
        let before = (1...5).map { "Message \($0) with some words of news" }  // 36 cells each
        let marquee = controller(speed: 10)
        marquee.update(messages: before.map { MarqueeMessage(text: $0) }, at: t0, width: 40)
        let change = t0 + 73 * second / 10
        var after = before
        after.insert("Leave now", at: 3)
        marquee.update(messages: after.map { MarqueeMessage(text: $0) }, at: change, width: 40)
        // A second arrival before the first is laid: the newest comes first, then the one before.
        after.insert("Bins out", at: 1)
        marquee.update(messages: after.map { MarqueeMessage(text: $0) }, at: change + second / 2, width: 40)
        let frames = (0..<300).map { tenth in text(marquee.frame(at: change + Nanoseconds(tenth) * second / 10, width: 40), width: 40) }
        let first = frames.firstIndex { $0.contains("Bins") }
        // At most the rest of the message at the right edge and one separator (3 cells) first.
        #expect(first.map { $0 <= 39 } == true, "Bins out first shown after \(first.map { Double($0) / 10 } ?? -1) s")
        #expect(frames.contains { $0.contains("Bins out • Leave now") })
        // Then the cycle goes on from the message after the last arrival, not from an arrival again.
        let following = frames.firstIndex { $0.hasSuffix("Leave now • M") }
        #expect(following != nil && frames[following! + 20].contains("Message 4"), "\(frames[(following ?? 0) + 20])")
    }

    /// Thirty messages arrive at once on a moving line, and a minute later one more: it comes
    /// at the first seam beyond the right edge, not behind the thirty still waiting to be laid
    /// (it waited for all of them: 124–127 s at 100 columns). The frame names the messages in
    /// view, so the status can tell "on screen" from "on the band".
    @Test func aNewMessageDoesNotWaitForALongTape() {
        let width = 100
        let marquee = controller(speed: 8)
        marquee.update(messages: messages(String(repeating: "Good morning and welcome ", count: 5)), at: t0, width: width)
        let thirty = (1...30).map { "Message number \($0) of thirty, with words" }
        marquee.update(messages: thirty.map { MarqueeMessage(text: $0) }, at: t0 + second, width: width)
        let change = t0 + 61 * second
        marquee.update(messages: (["Leave for the dentist"] + thirty).map { MarqueeMessage(text: $0) }, at: change, width: width)
        let frames = (0..<600).map { tenth in marquee.frame(at: change + Nanoseconds(tenth) * second / 10, width: width) }
        let first = frames.firstIndex { text($0, width: width).contains("Leave") }
        // Bound: the longest message and a separator pass the right edge (42 + 3 cells at 8/s).
        #expect(first.map { $0 <= 57 } == true, "first shown after \(first.map { Double($0) / 10 } ?? -1) s")
        #expect(frames[first ?? 0].textsInView.contains("Leave for the dentist"))
        #expect(!frames[0].textsInView.contains("Leave for the dentist") && !frames[0].textsInView.isEmpty)
        #expect(frames.allSatisfy { frame in
            !text(frame, width: width).contains("Leave") || frame.textsInView.contains("Leave for the dentist")
        })
        // Ended, it leaves within the same bound: what is laid passes, nothing more.
        let ended = change + 60 * second
        marquee.update(messages: thirty.map { MarqueeMessage(text: $0) }, at: ended, width: width)
        let after = (0..<600).map { tenth in marquee.frame(at: ended + Nanoseconds(tenth) * second / 10, width: width) }
        let last = after.lastIndex { $0.textsInView.contains("Leave for the dentist") }
        #expect((last ?? 0) <= (width + 45) * 10 / 8, "still shown \(Double(last ?? 0) / 10) s after it ended")
    }

    /// What fits stands still, centred; no motion at all.
    @Test func stillAndCentredWhenItFits() {
        let marquee = controller()
        marquee.update(messages: messages("Good morning!"), at: t0, width: 21)
        let frame = marquee.frame(at: t0 + 5 * second, width: 21)
        #expect(text(frame, width: 21) == "    Good morning!    ")
        #expect(!frame.isMoving)
        #expect(text(marquee.frame(at: t0 + 500 * second, width: 21), width: 21) == "    Good morning!    ")
        #expect(marquee.nextFrameChange(after: t0 + 5 * second, effectStep: second / 10) == nil)
    }

    /// A change of messages leaves the visible cells unchanged at the moment of the change;
    /// new text enters from the right at the next seam; an ended message is not laid again.
    @Test func changesNeverJump() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<40 {
            let width = Int.random(in: 20...50, using: &random)
            let marquee = controller(speed: 5)
            marquee.update(messages: messages("Alpha alpha alpha alpha alpha", "Beta beta beta beta beta"), at: t0, width: width)
            let change = t0 + Nanoseconds.random(in: second...(600 * second), using: &random)
            let before = text(marquee.frame(at: change, width: width), width: width)
            marquee.update(messages: messages("Gamma gamma gamma gamma gamma gamma"), at: change, width: width)
            #expect(text(marquee.frame(at: change, width: width), width: width) == before)
            // Within a window width and a cycle, only the new text remains.
            let later = change + Nanoseconds(width + 80) * second / 5
            let shown = text(marquee.frame(at: later, width: width), width: width)
            #expect(!shown.contains("Alpha") && !shown.contains("Beta"))
            #expect(shown.contains("amma"))
        }
    }

    /// A still line that no longer fits starts moving from where it stands.
    @Test func stillLineStartsMovingFromWhereItStands() {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages("Short"), at: t0, width: 20)
        let still = text(marquee.frame(at: t0 + second, width: 20), width: 20)
        #expect(still == "       Short        ")
        let change = t0 + 2 * second
        marquee.update(messages: messages("Short", "A much longer message now"), at: change, width: 20)
        #expect(text(marquee.frame(at: change, width: 20), width: 20) == still)
        #expect(text(marquee.frame(at: change + second, width: 20), width: 20) == "  Short        Short")
        #expect(text(marquee.frame(at: change + 4 * second, width: 20), width: 20) == "Short • A much longe")
    }

    /// A moving line whose messages now fit glides on until its text is centred, and stops.
    @Test func movingLineGlidesToCentreAndStops() {
        let marquee = controller(speed: 10)
        marquee.update(messages: messages("A long message that scrolls along"), at: t0, width: 20)
        let change = t0 + 3 * second
        let before = text(marquee.frame(at: change, width: 20), width: 20)
        marquee.update(messages: messages("Fits"), at: change, width: 20)
        #expect(text(marquee.frame(at: change, width: 20), width: 20) == before)
        #expect(marquee.frame(at: change + second, width: 20).isMoving)
        let end = change + 10 * second
        #expect(text(marquee.frame(at: end, width: 20), width: 20) == "        Fits        ")
        #expect(!marquee.frame(at: end, width: 20).isMoving)
        #expect(marquee.nextFrameChange(after: end, effectStep: second / 10) == nil)
    }

    /// Resizing keeps the moving position: a rebuilt renderer continues mid-text.
    @Test func resizeKeepsPosition() {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages(String(repeating: "scrolling text ", count: 10)), at: t0, width: 40)
        let t = t0 + 7 * second
        let wide = marquee.frame(at: t, width: 40)
        let narrow = marquee.frame(at: t, width: 25)
        #expect(wide.position == narrow.position)
        #expect(text(wide, width: 40).prefix(25) == text(narrow, width: 25).prefix(25))
    }

    /// Pausing freezes the tape's position (the band shows whole words, page by page, each
    /// for its reading time); resuming continues from where the tape stood.
    @Test func pauseAndResume() throws {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages(String(repeating: "paused text ", count: 10)), at: t0, width: 30)
        marquee.pause(at: t0 + 2 * second)
        let frame = marquee.frame(at: t0 + 60 * second, width: 30)
        #expect(frame.position == 10 && !frame.isMoving)
        #expect(text(frame, width: 30).split(separator: " ").allSatisfy { $0 == "paused" || $0 == "text" })
        let turn = try #require(marquee.nextFrameChange(after: t0 + 60 * second, effectStep: second / 10))
        #expect(turn > t0 + 60 * second && turn <= t0 + 63 * second)
        #expect(text(marquee.frame(at: turn - 1, width: 30), width: 30) == text(frame, width: 30))
        marquee.resume(at: t0 + 60 * second)
        #expect(marquee.frame(at: t0 + 61 * second, width: 30).position == 15)
    }

    /// Standing still (paused, or still for the night) shows the messages active now, never
    /// the tape where it stood: a change of messages shows at once, as whole words, centred if
    /// they fit, else the first words that fit and the rest on the pages after.
    @Test func standingStillShowsTheTruthInWholeWords() throws {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages("Good evening, supper is ready in the kitchen and the tea is warm"), at: t0, width: 30)
        marquee.pause(at: t0 + 7 * second)
        marquee.update(messages: messages("It's night-time", "sleep well"), at: t0 + 8 * second, width: 30)
        #expect(text(marquee.frame(at: t0 + 8 * second, width: 30), width: 30) == " It's night-time • sleep well ")
        marquee.update(messages: messages("It's night-time. You should be in bed now, it is late"), at: t0 + 9 * second, width: 30)
        var pages: [String] = []
        var t = t0 + 9 * second
        for _ in 0..<3 {
            pages.append(String(text(marquee.frame(at: t, width: 30), width: 30).split(separator: " ").joined(separator: " ")))
            t = try #require(marquee.nextFrameChange(after: t, effectStep: second / 10))
        }
        #expect(pages == ["It's night-time. You should be", "in bed now, it is late", "It's night-time. You should be"])
    }

    /// The next frame change is the next whole-cell boundary while moving.
    @Test func nextFrameChangeIsTheNextCell() {
        let marquee = controller(speed: 4)
        marquee.update(messages: messages(String(repeating: "x", count: 100)), at: t0, width: 10)
        #expect(marquee.nextFrameChange(after: t0, effectStep: second) == t0 + second / 4)
        #expect(marquee.nextFrameChange(after: t0 + second / 4, effectStep: second) == t0 + second / 2)
    }
}

@Suite struct UnicodeTests {
    /// Grapheme clusters are one glyph; control characters are removed; a wide glyph is
    /// never cut in half at the edges.
    @Test func clustersControlsAndWideGlyphs() {
        let marquee = controller(speed: 3)
        marquee.update(messages: messages("e\u{301}\u{7}👨‍👩‍👧 漢字"), at: t0, width: 12)
        let glyphs = marquee.frame(at: t0, width: 12).glyphs
        #expect(glyphs.map(\.character) == ["e\u{301}", "👨‍👩‍👧", " ", "漢", "字"])
        #expect(glyphs.map(\.advance) == [1, 2, 1, 2, 2])
        let scrolling = controller(speed: 3)
        scrolling.update(messages: messages(String(repeating: "漢字かな🎂", count: 6)), at: t0, width: 11)
        for step in 0..<200 {
            let frame = scrolling.frame(at: t0 + Nanoseconds(step) * second / 7, width: 11)
            #expect(frame.glyphs.allSatisfy { $0.x >= 0 && $0.x + $0.advance <= 11 })
        }
    }
}

@Suite struct EffectTests {
    /// Typewriter: letters appear at 30 ms each at their final place; a second announcement
    /// waits for the first. No ▶ after an announcement that is whole on one page: nothing
    /// more follows.
    @Test func typewriterTypesThenBobsAndQueues() throws {
        let marquee = controller(speed: 5)
        let first = MarqueeMessage(text: "Take your pills", effect: .typewriter)
        let second_ = MarqueeMessage(text: "Dinner", effect: .typewriter)
        marquee.update(messages: [first, second_], at: t0, width: 40)
        let typing = try #require(marquee.frame(at: t0 + 95_000_000, width: 40).announcement)
        #expect(typing.visibleCount == 3)
        #expect(typing.glyphs.count == 15)
        #expect(typing.arrowBob == nil)
        let done = try #require(marquee.frame(at: t0 + second, width: 40).announcement)
        #expect(done.visibleCount == 15)
        #expect(done.arrowBob == nil)
        // 15 letters: 0.45 s typing + max(3 s, 15/5 s) reading; then "Dinner" types.
        let next = try #require(marquee.frame(at: t0 + 3_450_000_000 + 60_000_000, width: 40).announcement)
        #expect(String(next.glyphs.map(\.character)) == "Dinner")
        #expect(next.visibleCount == 2)
        #expect(marquee.frame(at: t0 + 20 * second, width: 40).announcement == nil)
    }

    /// Dance: every letter bobs with its own phase, under 1 Hz, and never flickers: sampled
    /// every 10 ms, a letter turns around at most twice a second.
    @Test func danceIsGentle() {
        let marquee = controller(speed: 5)
        marquee.update(messages: [MarqueeMessage(text: "Happy birthday", effect: .dance)], at: t0, width: 30)
        let frames = (0..<1000).map { marquee.frame(at: t0 + Nanoseconds($0) * 10_000_000, width: 30) }
        let lifts = frames.map { $0.glyphs.map(\.lift) }
        #expect(Set(lifts[0]).count > 3)
        for letter in 0..<lifts[0].count {
            let series = lifts.map { $0[letter] }
            #expect(series.allSatisfy { (0...1).contains($0) })
            var turns = 0
            for i in 2..<series.count where (series[i] - series[i - 1]) * (series[i - 1] - series[i - 2]) < 0 { turns += 1 }
            #expect(turns <= 2 * 10)
        }
        #expect(marquee.nextFrameChange(after: t0, effectStep: second / 10) == t0 + second / 10)
    }
}

/// A box that holds `size` glyphs a page.
struct FixedPages: AnnouncementBox {
    let size: Int
    func pages(of glyphs: [LaidGlyph]) -> [Range<Int>] {
        stride(from: 0, to: glyphs.count, by: size).map { $0..<min($0 + size, glyphs.count) }
    }
}

/// An announcement longer than the box is typed a page at a time, each read before the next;
/// the ▶ bobs after each page that another follows, not after the last.
@Suite struct PagingTests {
    @Test func aLongAnnouncementIsTypedPageByPage() throws {
        let marquee = controller(speed: 5)
        marquee.announcementBox = FixedPages(size: 10)
        let text = "Leave now for the dentist"  // 25 glyphs: pages of 10, 10 and 5
        marquee.update(messages: [MarqueeMessage(text: text, effect: .typewriter)], at: t0, width: 40)
        func shown(_ t: SteadyInstant) -> (String, Int, Bool)? {
            marquee.frame(at: t, width: 40).announcement.map { (String($0.glyphs.map(\.character)), $0.visibleCount, $0.arrowBob != nil) }
        }
        // Each page: 30 ms a letter, then at least 3 s of reading.
        #expect(shown(t0 + 150_000_000)! == ("Leave now ", 5, false))
        #expect(shown(t0 + 2 * second)! == ("Leave now ", 10, true))
        #expect(shown(t0 + 3_300_000_000 + 60_000_000)! == ("for the de", 2, false))
        #expect(shown(t0 + 6_600_000_000 + 90_000_000)! == ("ntist", 3, false))
        #expect(shown(t0 + 6_600_000_000 + 150_000_000 + 2_900_000_000)! == ("ntist", 5, false))
        #expect(shown(t0 + 6_600_000_000 + 150_000_000 + 3_000_000_000) == nil)
    }

    /// The box's change of page is the calmest change on the screen: every page of a paged
    /// announcement keeps the box's full height, and a page fades out over 0.6 s before the next
    /// is typed (it vanished in one frame); the last page, and one that is alone, do not fade.
    @Test func pagesKeepTheBoxAndFade() throws {
        let marquee = controller(speed: 5)
        marquee.announcementBox = FixedPages(size: 10)
        marquee.update(messages: [MarqueeMessage(text: "Leave now for the dentist", effect: .typewriter)], at: t0, width: 40)
        func shown(_ t: SteadyInstant) throws -> Announcement { try #require(marquee.frame(at: t, width: 40).announcement) }
        // The first page ends at 3.3 s.
        #expect(try shown(t0 + 2 * second).opacity == 1 && shown(t0 + 2 * second).isPaged)
        let fading = try (0..<6).map { try shown(t0 + 2_700_000_000 + Nanoseconds($0) * 100_000_000).opacity }
        #expect(fading.first == 1 && zip(fading, fading.dropFirst()).allSatisfy { $0 > $1 } && fading.last! <= 0.2, "\(fading)")
        let last = try shown(t0 + 6_600_000_000 + 150_000_000 + 2_900_000_000)
        #expect(last.isPaged && last.opacity == 1)
        let alone = controller(speed: 5)
        alone.announcementBox = FixedPages(size: 40)
        alone.update(messages: [MarqueeMessage(text: "Leave now", effect: .typewriter)], at: t0, width: 40)
        let single = try #require(alone.frame(at: t0 + 2_900_000_000, width: 40).announcement)
        #expect(!single.isPaged && single.opacity == 1)
    }
}

/// Pause (WCAG 2.2.2) stills everything: the line, the dance, the announcement box; what was
/// typed shows whole, what is queued waits, and on resume everything goes on from there.
@Suite struct PauseTests {
    /// Paused, dancing letters rest upright and nothing asks for frames; after resume the
    /// dance grows back over a second without a jump.
    @Test func dancingLettersRestUprightAndEaseBackIn() {
        let marquee = controller(speed: 5)
        marquee.update(messages: [MarqueeMessage(text: "Happy birthday", effect: .dance)], at: t0, width: 30)
        #expect(marquee.frame(at: t0 + 1_300_000_000, width: 30).glyphs.contains { $0.lift > 0.2 })
        marquee.pause(at: t0 + 1_300_000_000)
        for t in [t0 + 2 * second, t0 + 50 * second] {
            let glyphs = marquee.frame(at: t, width: 30).glyphs
            #expect(glyphs.allSatisfy { $0.lift == 0 && $0.tilt == 0 && $0.scale == 1 && $0.hueShift == 0 })
            #expect(String(glyphs.map(\.character)) == "Happy birthday")
        }
        #expect(marquee.nextFrameChange(after: t0 + 2 * second, effectStep: second / 10) == nil)
        let resume = t0 + 60 * second
        marquee.resume(at: resume)
        let lifts = (0..<300).map { marquee.frame(at: resume + Nanoseconds($0) * 10_000_000, width: 30).glyphs.map(\.lift) }
        #expect(lifts[0].allSatisfy { $0 == 0 })
        #expect(lifts[25].allSatisfy { $0 <= 0.25 })
        #expect(lifts[200].contains { $0 > 0.2 })
        for (before, after) in zip(lifts, lifts.dropFirst()) {
            #expect(zip(before, after).allSatisfy { abs($0 - $1) < 0.05 })
        }
    }

    /// Paused while an announcement types: it shows whole (the ▶ of a page that another
    /// follows at rest); the next one waits however long the pause lasts, and the first is
    /// still read in full after resume.
    @Test func theBoxKeepsItsTextAndTheQueueWaits() throws {
        let marquee = controller(speed: 5)
        let pills = MarqueeMessage(text: "Take your pills", effect: .typewriter)
        marquee.update(messages: [pills, MarqueeMessage(text: "Dinner", effect: .typewriter)], at: t0, width: 40)
        marquee.pause(at: t0 + 200_000_000)
        for t in [t0 + second, t0 + 10 * second, t0 + 59 * second] {
            let shown = try #require(marquee.frame(at: t, width: 40).announcement)
            #expect(String(shown.glyphs.map(\.character)) == "Take your pills")
            #expect(shown.visibleCount == 15)
            #expect(shown.arrowBob == nil)
        }
        let paged = controller(speed: 5)
        paged.announcementBox = FixedPages(size: 10)
        paged.update(messages: [pills], at: t0, width: 40)
        paged.pause(at: t0 + 200_000_000)
        let firstPage = try #require(paged.frame(at: t0 + 10 * second, width: 40).announcement)
        #expect(firstPage.visibleCount == 10 && firstPage.arrowBob == 0)
        #expect(marquee.nextFrameChange(after: t0 + second, effectStep: second / 10) == nil)
        let resume = t0 + 60 * second
        marquee.resume(at: resume)
        // 3 s of reading from the moment it was shown whole, then "Dinner" types.
        let stillReading = try #require(marquee.frame(at: resume + 2_900_000_000, width: 40).announcement)
        #expect(String(stillReading.glyphs.map(\.character)) == "Take your pills")
        let next = try #require(marquee.frame(at: resume + 3_000_000_000 + 65_000_000, width: 40).announcement)
        #expect(String(next.glyphs.map(\.character)) == "Dinner")
        #expect(next.visibleCount == 2)
    }

    /// A typewriter message that becomes active during a pause is announced after resume.
    @Test func anAnnouncementArrivingWhilePausedWaits() throws {
        let marquee = controller(speed: 5)
        marquee.update(messages: messages("Tea"), at: t0, width: 40)
        marquee.pause(at: t0 + second)
        marquee.update(messages: messages("Tea") + [MarqueeMessage(text: "Leave now", effect: .typewriter)],
                       at: t0 + 5 * second, width: 40)
        #expect(marquee.frame(at: t0 + 6 * second, width: 40).announcement == nil)
        marquee.resume(at: t0 + 10 * second)
        let typing = try #require(marquee.frame(at: t0 + 10 * second + 95_000_000, width: 40).announcement)
        #expect(String(typing.glyphs.map(\.character)) == "Leave now")
        #expect(typing.visibleCount == 3)
    }

    /// As a display mode the box never goes blank while paused, whenever the pause comes.
    @Test func typewriterModeShowsAMessageAllThroughAPause() {
        for pauseAfter in stride(from: 0, through: 8_000, by: 250) {
            let marquee = controller(speed: 5, effectForAll: .typewriter)
            marquee.update(messages: messages("Good morning", "Breakfast at eight"), at: t0, width: 40)
            let paused = t0 + Nanoseconds(pauseAfter) * 1_000_000
            _ = marquee.frame(at: paused, width: 40)
            marquee.pause(at: paused)
            for later in [0, 1, 30, 600].map({ paused + $0 * second }) {
                let shown = marquee.frame(at: later, width: 40).announcement
                #expect(shown != nil && shown?.visibleCount == shown?.glyphs.count, "paused after \(pauseAfter) ms")
            }
        }
    }
}

/// A screen that measures text differently (a new framebuffer with another text size, the
/// console instead of the framebuffer) continues the text where it was.
@Suite struct RemeasureTests {
    /// Terminal cells, each `scale` units wide.
    struct ScaledCells: GlyphMetrics {
        let scale: Int
        var unitsPerCharacter: Int { scale }
        func advance(of character: Character) -> Int { CellMetrics().advance(of: character) * scale }
    }

    /// Letters of different widths, 48 units for an average one.
    struct ProportionalMetrics: GlyphMetrics {
        var unitsPerCharacter: Int { 48 }
        func advance(of character: Character) -> Int {
            guard let scalar = character.unicodeScalars.first else { return 0 }
            return CellMetrics().advance(of: character) * (32 + Int(scalar.value % 5) * 8)
        }
    }

    static func randomTexts(_ random: inout SplitMix64) -> [MarqueeMessage] {
        (0..<Int.random(in: 2...5, using: &random)).map { _ in
            MarqueeMessage(text: words.randomElement(using: &random)! + " " + words.randomElement(using: &random)!)
        }
    }

    /// Measured again in units 64 times as fine, nothing changes on screen, then or later:
    /// the same letters at the same places, moving at the same speed, the messages in the
    /// same order.
    @Test func aFinerMeasureChangesNothing() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<60 {
            let texts = Self.randomTexts(&random)
            let width = Int.random(in: 12...40, using: &random)
            let reference = controller(), remeasured = controller()
            reference.update(messages: texts, at: t0, width: width)
            remeasured.update(messages: texts, at: t0, width: width)
            let t = t0 + Nanoseconds.random(in: 0...(600 * second), using: &random)
            _ = reference.frame(at: t, width: width)
            _ = remeasured.frame(at: t, width: width)
            remeasured.remeasure(with: ScaledCells(scale: 64), at: t, width: width * 64)
            for later in [0, 1, 7, 30, 95].map({ t + $0 * second / 2 }) {
                let expected = Self.placed(reference.frame(at: later, width: width, includingPartialGlyphs: true), scale: 1)
                let shown = Self.placed(remeasured.frame(at: later, width: width * 64, includingPartialGlyphs: true), scale: 64)
                let inside = { (letters: [(Character, Double)]) in letters.filter { $0.1 >= 0 && $0.1 <= Double(width - 2) } }
                let (a, b) = (inside(expected), inside(shown))
                #expect(a.map(\.0) == b.map(\.0), "\(texts.map(\.text)) at +\(Double(later - t) / 1e9) s")
                #expect(zip(a, b).allSatisfy { abs($0.1 - $1.1) < 0.02 })
            }
        }
    }

    /// Each letter shown and where its left edge is, in cells from the window's left edge.
    static func placed(_ frame: Frame, scale: Int) -> [(Character, Double)] {
        let shift = frame.position.rounded(.down) - frame.position
        return frame.glyphs.map { ($0.character, (Double($0.x) + shift) / Double(scale)) }
    }

    /// Measured in proportional letters, the letter at the window's left edge stays there, as
    /// far into it as it was.
    @Test func theLetterAtTheLeftEdgeStays() {
        var random = SplitMix64(seed: 12)
        var moving = 0
        for _ in 0..<80 {
            let marquee = controller()
            marquee.update(messages: Self.randomTexts(&random), at: t0, width: 20)
            let t = t0 + Nanoseconds.random(in: 0...(600 * second), using: &random)
            let before = marquee.frame(at: t, width: 20, includingPartialGlyphs: true)
            guard before.isMoving else { continue }
            moving += 1
            marquee.remeasure(with: ProportionalMetrics(), at: t, width: 20 * 48)
            let after = marquee.frame(at: t, width: 20 * 48, includingPartialGlyphs: true)
            #expect(after.glyphs.first?.character == before.glyphs.first?.character)
            #expect(abs(Self.intoFirstLetter(after) - Self.intoFirstLetter(before)) < 0.03)
        }
        #expect(moving > 40)
    }

    /// How far the window's left edge is into the first letter shown (0 at its start, 1 at its end).
    static func intoFirstLetter(_ frame: Frame) -> Double {
        guard let glyph = frame.glyphs.first else { return -1 }
        return (frame.position - frame.position.rounded(.down) - Double(glyph.x)) / Double(glyph.advance)
    }

    /// A still line is centred again in the new width; a paused line stays paused, its pages of
    /// whole words laid out again in the new measure.
    @Test func stillLinesAreCentredAndPausedOnesStay() {
        let still = controller()
        still.update(messages: messages("Tea at four"), at: t0, width: 20)
        #expect(text(still.frame(at: t0, width: 20), width: 20) == "    Tea at four     ")
        still.remeasure(with: ScaledCells(scale: 2), at: t0 + second, width: 60)
        let frame = still.frame(at: t0 + second, width: 60)
        #expect(!frame.isMoving)
        #expect(frame.glyphs.first?.x == (60 - 2 * 11) / 2 && frame.glyphs.first?.character == "T")

        let paused = controller()
        paused.update(messages: messages("Leave for the dentist at half past ten"), at: t0, width: 20)
        paused.pause(at: t0 + 3 * second)
        let shown = text(paused.frame(at: t0 + 3 * second, width: 20), width: 20)
        paused.remeasure(with: ScaledCells(scale: 4), at: t0 + 4 * second, width: 80)
        #expect(paused.isPaused && !paused.frame(at: t0 + 9 * second, width: 80).isMoving)
        let kept = paused.frame(at: t0 + 9 * second, width: 80, includingPartialGlyphs: true)
        #expect(shown == "Leave for the       " || shown == "   Leave for the    ")
        let page = String(Self.placed(kept, scale: 4).map(\.0))
        let words = "Leave for the dentist at half past ten".split(separator: " ")
        #expect(page == "dentist at half past", "the second page, 6 s into the pause")
        #expect(page.split(separator: " ").allSatisfy { words.contains($0) })
    }
}
