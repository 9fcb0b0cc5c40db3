import Marquee
import Sound
import Support
import TestSupport
import Testing

@testable import Daemon
@testable import Schedule

/// The box's desk alone: instants in, effects out, in the order the loop carries them out —
/// no loop, screen, clock or television.
struct BoxDeskTests {
    private static let offset = 3600

    private func zoned(_ rfc3339: String) -> ZonedTime { ZonedTime(instant: instant(rfc3339), utcOffset: Self.offset) }

    private func snapshot(_ messages: [Message] = [], night began: String? = nil, morning: String? = nil,
                          darkUntil: String? = nil) -> ScheduleSnapshot {
        let part: (PartOfDay, Instant)? = began.map { (.night, instant($0)) } ?? morning.map { (.morning, instant($0)) }
        return ScheduleSnapshot(
            messages: messages, validUntil: zoned("2026-11-25T00:00:00+01:00"), utcOffset: Self.offset, idleText: "",
            orientation: nil, partOfDay: part, darkUntil: darkUntil.map(zoned), feeds: [])
    }

    private func pills(at trigger: String) -> Message {
        let start = zoned(trigger)
        return Message(
            text: "Pills now, Anna", start: start, end: ZonedTime(instant: start.instant + 1_800, utcOffset: Self.offset),
            source: "/feeds/a.ics", uid: "pills", kind: .alarm, priority: 5, color: nil, effect: nil,
            sounding: Sounding(origin: .audioAlarm, trigger: start, repeats: 0, repeatSeconds: 0))
    }

    private func wall(_ rfc3339: String) -> WallInstant { WallInstant(instant(rfc3339)) }

    /// `screen_off` from 23:00 to 06:30 with the television to standby: dark at once, lit by a
    /// key for five minutes (the television woken for it), dark again, lit at the end of the
    /// hours with the television woken — and nothing said twice.
    @Test func theDarkHoursDarkenAndLight() {
        let settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 5), televisionStandby: true)
        var desk = BoxDesk(settings: settings, snapshot: snapshot(darkUntil: "2026-11-25T06:30:00+01:00"),
                           reminders: nil, hasTelevision: true)
        #expect(!desk.start(at: instant("2026-11-24T23:30:00+01:00")).contains(.wakeTelevisionIfOff(because: "marquee started")))
        #expect(desk.turn(at: wall("2026-11-24T23:30:00+01:00")) == [.darkenScreen, .standbyTelevision(because: "screen_off"), .publishScreen])
        #expect(desk.turn(at: wall("2026-11-24T23:30:01+01:00")).isEmpty)
        #expect(desk.keyPressed(at: instant("2026-11-25T02:00:00+01:00")) == [.wakeTelevision(because: "a key"), .publishScreen])
        #expect(desk.turn(at: wall("2026-11-25T02:00:00+01:00")) == [.lightScreen(because: "a key"), .publishScreen])
        #expect(desk.nextDue(after: wall("2026-11-25T02:00:00+01:00")) == wall("2026-11-25T02:05:00+01:00"))
        #expect(desk.turn(at: wall("2026-11-25T02:05:00+01:00")) == [.darkenScreen, .standbyTelevision(because: "screen_off"), .publishScreen])
        #expect(desk.show(snapshot(), at: instant("2026-11-25T06:30:00+01:00"), runBegan: instant("2026-11-24T20:00:00+01:00")).isEmpty)
        #expect(desk.turn(at: wall("2026-11-25T06:30:00+01:00"))
            == [.lightScreen(because: nil), .wakeTelevision(because: "the end of screen_off"), .publishScreen])
    }

    /// A reminder's order: its fate kept first, then the television woken, then the journal and
    /// the sound; a key acknowledges it (kept, the band marked ✓) and nothing sounds again.
    @Test func aReminderIsKeptBeforeItIsHeard() throws {
        let message = pills(at: "2026-11-24T09:00:00+01:00")
        let plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 3))
        var desk = BoxDesk(settings: DisplaySettings(marquee: MarqueeConfiguration()), snapshot: snapshot(),
                           reminders: plan, hasTelevision: true)
        _ = desk.start(at: instant("2026-11-24T08:59:00+01:00"))
        #expect(desk.turn(at: wall("2026-11-24T08:59:00+01:00")).isEmpty)
        // The message begins: the schedule's answer brings it.
        _ = desk.show(snapshot([message]), at: instant("2026-11-24T09:00:00+01:00"), runBegan: instant("2026-11-24T08:00:00+01:00"))
        let due = desk.turn(at: wall("2026-11-24T09:00:00+01:00"))
        guard case .record(let kept) = due.first, case .wakeTelevision(because: "a reminder") = due[1],
              case .play(let played) = due.dropLast().last, case .publishReminders(let changed, _) = due.last
        else { Issue.record("out of order: \(due)"); return }
        #expect(kept.map(\.fate) == [.sounding] && changed == kept)
        #expect(played.text == "Pills now, Anna" && played.of == 4)
        #expect(due.contains(.journal(.notice, "reminder heard: \"Pills now, Anna\" (1 of 4)")))
        #expect(desk.turn(at: wall("2026-11-24T09:00:01+01:00")).isEmpty)
        let repeatAt = try #require(desk.nextDue(after: wall("2026-11-24T09:00:01+01:00")))
        let key = desk.keyPressed(at: instant("2026-11-24T09:00:30+01:00"))
        guard case .record(let acknowledged) = key.first else { Issue.record("not kept first: \(key)"); return }
        #expect(acknowledged.map(\.fate) == [.acknowledged] && key[1] == .showMessages)
        #expect(desk.shownSnapshot.messages.map(\.text) != [message.text])
        #expect(!desk.turn(at: repeatAt).contains { if case .play = $0 { true } else { false } })
    }

    /// A still night stills the text from the start; the morning wakes the television and
    /// resumes the text, unless the carer paused it; muting is said and kept.
    @Test func theNightAndTheMorning() {
        var settings = DisplaySettings(marquee: MarqueeConfiguration(charactersPerSecond: 8))
        settings.night = NightSettings(dims: true, motion: .still)
        var desk = BoxDesk(settings: settings, snapshot: snapshot(night: "2026-11-24T22:00:00+01:00"),
                           reminders: ReminderPlan(settings: SoundSettings()), hasTelevision: true)
        let start = desk.start(at: instant("2026-11-24T22:00:00+01:00"))
        #expect(start.first == .stillText && !start.contains(.wakeTelevisionIfOff(because: "marquee started")))
        #expect(desk.turn(at: wall("2026-11-24T22:05:00+01:00")).first == .shade(step: 8))
        #expect(desk.turn(at: wall("2026-11-24T23:00:00+01:00")).first == .shade(step: NightPolicy.shadeSteps))
        #expect(desk.mute(true, at: instant("2026-11-24T23:00:00+01:00")).prefix(2)
            == [.keepMuted(true), .journal(.notice, "reminders muted by request: they are shown, not heard")])
        _ = desk.show(snapshot(morning: "2026-11-25T07:00:00+01:00"), at: instant("2026-11-25T07:00:00+01:00"),
                      runBegan: instant("2026-11-24T20:00:00+01:00"))
        let morning = desk.turn(at: wall("2026-11-25T07:00:00+01:00"))
        #expect(morning.contains(.wakeTelevision(because: "the morning")) && morning.contains(.resumeText))
        #expect(morning.contains(.moveText(MarqueeConfiguration(charactersPerSecond: 8))))

        var paused = BoxDesk(settings: settings, snapshot: snapshot(night: "2026-11-24T22:00:00+01:00"),
                             reminders: nil, hasTelevision: false)
        _ = paused.start(at: instant("2026-11-24T22:00:00+01:00"))
        #expect(paused.pause().first == .stillText)
        _ = paused.show(snapshot(morning: "2026-11-25T07:00:00+01:00"), at: instant("2026-11-25T07:00:00+01:00"),
                        runBegan: instant("2026-11-24T20:00:00+01:00"))
        #expect(!paused.turn(at: wall("2026-11-25T07:00:00+01:00")).contains(.resumeText) && paused.isTextStill)
        #expect(paused.wakeRequested(at: instant("2026-11-25T07:01:00+01:00"))
            == [.journal(.notice, "asked to wake the television, but HDMI-CEC is off (cec = \"off\")")])
    }

    /// A message typed in since the run began lights the screen and wakes the television; one
    /// that began before the run (a restart) does not; other changes by day take the input back.
    @Test func anAnnouncementAndAChange() {
        var typed = pills(at: "2026-11-24T10:00:00+01:00")
        typed.effect = .typewriter
        var desk = BoxDesk(settings: DisplaySettings(marquee: MarqueeConfiguration()), snapshot: snapshot(),
                           reminders: nil, hasTelevision: true)
        #expect(desk.show(snapshot([typed]), at: instant("2026-11-24T10:00:00+01:00"), runBegan: instant("2026-11-24T10:30:00+01:00"))
            == [.reclaimTelevisionInput])
        var restarted = BoxDesk(settings: DisplaySettings(marquee: MarqueeConfiguration()), snapshot: snapshot(),
                                reminders: nil, hasTelevision: true)
        #expect(restarted.show(snapshot([typed]), at: instant("2026-11-24T10:00:00+01:00"),
                               runBegan: instant("2026-11-24T09:00:00+01:00")) == [.wakeTelevision(because: "an announcement")])
    }
}
