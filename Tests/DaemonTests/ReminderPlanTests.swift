import Ledger
import Schedule
import Support
import Sound
import TestSupport
import Testing

@testable import Daemon

/// The reminder desk's table (docs/design.md), row by row, on instants the test gives: at the
/// trigger and never before, once per trigger (across a restart too), heard late while current
/// and said why, not hours late, quiet at night unless urgent, silent when muted but still
/// lit, repeated until acknowledged or its event is gone.
struct ReminderPlanTests {
    private let trigger = instant("2026-07-01T09:30:00Z")

    private func message(
        _ text: String = "Leave for the dentist", at trigger: Instant? = nil, origin: Sounding.Origin = .audioAlarm,
        repeats: Int = 0, every seconds: Int64 = 0, priority: Int = 5, uid: String = "dentist"
    ) -> Message {
        let start = ZonedTime(instant: trigger ?? self.trigger, utcOffset: 0)
        return Message(
            text: text, start: start, end: ZonedTime(instant: start.instant + 1_800, utcOffset: 0), source: "/feeds/a.ics",
            uid: uid, kind: .alarm, priority: priority, color: nil, effect: nil,
            sounding: Sounding(origin: origin, trigger: start, repeats: repeats, repeatSeconds: seconds))
    }

    private func at(_ seconds: Int64) -> Instant { trigger + seconds }

    @Test func aReminderSoundsAtItsTriggerOnce() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 0))
        let messages = [message()]
        #expect(plan.look(at: messages, now: at(-1), isNight: false).play.isEmpty)
        let first = plan.look(at: messages, now: at(0), isNight: false)
        #expect(first.play.map(\.text) == ["Leave for the dentist"])
        #expect(first.play.first?.number == 1 && first.play.first?.of == 1)
        #expect(first.record.map(\.fate) == [.sounding] && first.light.count == 1 && first.wakeTelevision)
        #expect(plan.look(at: messages, now: at(1), isNight: false).play.isEmpty)
        // A feed that changes the text does not make it a new reminder.
        var changed = messages
        changed[0].text = "Leave now for the dentist"
        #expect(plan.look(at: changed, now: at(2), isNight: false).play.isEmpty)
        // A clock set back and forward again does not replay it.
        #expect(plan.look(at: messages, now: at(-600), isNight: false).play.isEmpty)
        #expect(plan.look(at: messages, now: at(5), isNight: false).play.isEmpty)
    }

    /// What the loop is handed for the journal, the band and the status, from the plan alone:
    /// the notices of a look, the line of an acknowledgement, the ✓ on the band, today's tally.
    @Test func theJournalTheBandAndTheStatusComeFromThePlan() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 2))
        let dentist = message()
        let first = plan.look(at: [dentist], now: at(0), isNight: false)
        #expect(first.notices == ["reminder heard: \"Leave for the dentist\" (1 of 3)"])
        let shown = [dentist, message("Lunch", uid: "lunch")]
        #expect(plan.marked(shown).map(\.text) == ["Leave for the dentist", "Lunch"])
        let acknowledged = plan.acknowledge(at: at(30), by: "a key")
        #expect(ReminderPlan.acknowledgedLine(by: "a key", changed: acknowledged)
            == "acknowledged by a key: \"Leave for the dentist\"")
        #expect(ReminderPlan.acknowledgedLine(by: "request", changed: []) == "acknowledged by request, but no reminder was sounding")
        #expect(plan.marked(shown).map(\.text) == ["✓ Leave for the dentist", "Lunch"])
        let day = ReminderTally.localDay(of: at(30).secondsSinceEpoch, utcOffset: 0)
        let status = plan.soundStatus(updating: nil, day: day, utcOffset: 0)
        #expect(status.reminders.map(\.outcome) == ["acknowledged"] && status.lastAcknowledged?.acknowledgedBy == "a key")
        #expect(status.today?.due == 1 && status.today?.fates == ["acknowledged": 1] && status.yesterday?.due == 0)
        // A reminder heard late says so among the notices, with why.
        var late = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 0), runStarted: at(120))
        let heardLate = late.look(at: [dentist], now: at(200), isNight: false)
        #expect(heardLate.notices.last == "reminder heard: \"Leave for the dentist\"")
        #expect(heardLate.record.first?.why != nil)
    }

    /// What was decided is kept in the ledger and read by the next run: nothing replays.
    @Test func aRestartDoesNotReplay() throws {
        try withTemporaryFolder { folder in
            let ledger = try ReminderLedger(path: folder.path + "/" + ReminderLedger.fileName)
            var plan = ReminderPlan(settings: SoundSettings())
            try ledger.record(plan.look(at: [message()], now: at(0), isNight: false).record)
            var restarted = ReminderPlan(settings: SoundSettings(), entries: try ledger.entries(since: 0), runStarted: at(8))
            let decisions = restarted.look(at: [message()], now: at(10), isNight: false)
            #expect(decisions.play.isEmpty && decisions.journal.isEmpty && decisions.record.isEmpty)
            #expect(restarted.recent == plan.recent)
        }
    }

    /// A restart between a reminder's soundings: its repeats come at their times with its
    /// recording (found again from its message), an acknowledgement still stops them, and a
    /// reminder the night kept for the morning is still heard then.
    @Test func aRestartKeepsWhatWaits() throws {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 2))
        var dentist = message()
        dentist.sounding?.embedded = EmbeddedSound([7, 7, 7])
        let birthday = message("It's Johnny's birthday!", origin: .event, uid: "birthday")
        #expect(plan.look(at: [dentist], now: at(0), isNight: false).play.count == 1)
        #expect(plan.look(at: [dentist, birthday], now: at(1), isNight: true).play.isEmpty)
        var restarted = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 2), entries: Array(plan.entries.values))
        #expect(restarted.nextDue == at(ReminderPlan.repeatSeconds))
        #expect(restarted.look(at: [dentist, birthday], now: at(60), isNight: true).play.isEmpty)
        let repeated = restarted.look(at: [dentist, birthday], now: at(ReminderPlan.repeatSeconds), isNight: false)
        #expect(repeated.play.map(\.text) == ["It's Johnny's birthday!", "Leave for the dentist"])
        #expect(repeated.play.last?.number == 2 && repeated.play.last?.of == 3)
        #expect(repeated.play.last?.recording == .bytes([7, 7, 7], describedAs: "written into /feeds/a.ics"))
        #expect(restarted.acknowledge(at: at(ReminderPlan.repeatSeconds + 5), by: "a key").map(\.text).sorted()
            == ["It's Johnny's birthday!", "Leave for the dentist"])
        #expect(restarted.lastAcknowledged?.text != nil && !restarted.isWaiting)
    }

    /// More than `latestHeard` late (the box was off at its time) it is said as missed, not
    /// played, nor lit.
    @Test func aReminderMissedWhileOffIsSaidNotPlayed() {
        var plan = ReminderPlan(settings: SoundSettings(), runStarted: at(3 * 3_600 - 30))
        let decisions = plan.look(at: [message()], now: at(3 * 3_600), isNight: false)
        #expect(decisions.play.isEmpty && decisions.light.isEmpty && !decisions.wakeTelevision)
        #expect(decisions.journal == ["reminder \"Leave for the dentist\" of 2026-07-01T09:30:00+00:00 was missed: it was due "
            + "3 h 0 min earlier: the box was off at its time (marquee started at 12:29); it is not played this late"])
        #expect(plan.recent.map(\.fate) == [.missed])
        #expect(plan.look(at: [message()], now: at(3 * 3_600 + 60), isNight: false).journal.isEmpty)
        // Within the minute it still sounds.
        var onTime = ReminderPlan(settings: SoundSettings())
        #expect(onTime.look(at: [message()], now: at(ReminderPlan.lateLimit), isNight: false).play.count == 1)
    }

    /// By night only urgent reminders (PRIORITY 1–4) sound, and at the night's volume.
    @Test func atNightOnlyUrgentRemindersSound() {
        var plan = ReminderPlan(settings: SoundSettings())
        let decisions = plan.look(at: [message("Calm", uid: "a"), message("Urgent", priority: 2, uid: "b")], now: at(0),
                                  isNight: true)
        #expect(decisions.play.map(\.text) == ["Urgent"])
        #expect(decisions.play.first?.atNight == true)
        #expect(Set(plan.recent.map(\.fate)) == [.quietAtNight, .sounding])
        // The quiet one does not light a dark bedroom; the urgent one does.
        #expect(decisions.light.map(\.text) == ["Urgent"])
        // Late by night, but current: kept for the morning like the others.
        var late = ReminderPlan(settings: SoundSettings())
        #expect(late.look(at: [message("Calm", uid: "a")], now: at(600), isNight: true).record.map(\.fate) == [.quietAtNight])
        #expect(late.look(at: [message("Calm", uid: "a")], now: at(9 * 3_600), isNight: false).play.count == 1)
    }

    /// What the night kept quiet is heard when it ends, if its message still shows (an all-day
    /// birthday asked to be heard at its start, midnight); repeats count from then.
    @Test func whatTheNightKeptQuietIsHeardInTheMorning() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 1))
        let birthday = message("It's Johnny's birthday!", origin: .event, uid: "birthday")
        let bins = message("Put the bins out", origin: .event, uid: "bins")
        #expect(plan.look(at: [birthday, bins], now: at(0), isNight: true).play.isEmpty)
        #expect(plan.recent.map(\.fate) == [.quietAtNight, .quietAtNight])
        #expect(plan.look(at: [birthday, bins], now: at(3_600), isNight: true).play.isEmpty)
        // Morning, seven hours on: the bins' message ended (missed, and said), the birthday shows all day.
        let morning = plan.look(at: [birthday], now: at(7 * 3_600), isNight: false)
        #expect(morning.play.map(\.text) == ["It's Johnny's birthday!"] && morning.light.map(\.text) == ["It's Johnny's birthday!"])
        #expect(morning.journal == ["reminder \"Put the bins out\" was not heard: its event ended in the quiet night, "
            + "before it could be heard"])
        #expect(plan.entries.values.first { $0.text == "Put the bins out" }?.fate == .missed)
        #expect(plan.nextDue == at(7 * 3_600 + ReminderPlan.repeatSeconds))
        #expect(plan.recent.first { $0.text == "It's Johnny's birthday!" }?.fate == .sounding)
        #expect(plan.look(at: [birthday], now: at(7 * 3_600 + 10), isNight: false).play.isEmpty)
    }

    @Test func mutedNothingSounds() {
        var plan = ReminderPlan(settings: SoundSettings())
        plan.muted = true
        let decisions = plan.look(at: [message(priority: 1)], now: at(0), isNight: false)
        #expect(decisions.play.isEmpty)
        #expect(plan.recent.map(\.fate) == [.muted])
        // Shown on something: the screen is lit and the television woken.
        #expect(decisions.light.count == 1 && decisions.wakeTelevision)
    }

    /// `speak` chooses which alarms sound.
    @Test(arguments: [
        (SoundSettings.Speak.alarms, [Sounding.Origin.audioAlarm, .displayAlarm, .event]),
        (.audioOnly, [.audioAlarm]),
        (.off, []),
    ])
    func speakChoosesWhatIsHeard(speak: SoundSettings.Speak, heard: [Sounding.Origin]) {
        var plan = ReminderPlan(settings: SoundSettings(speak: speak))
        let messages = [Sounding.Origin.audioAlarm, .displayAlarm, .event].map { message($0.rawValue, origin: $0, uid: $0.rawValue) }
        let decisions = plan.look(at: messages, now: at(0), isNight: false)
        #expect(decisions.play.map(\.text) == heard.map(\.rawValue))
        // What is not heard is shown only, and still lit.
        #expect(decisions.record.filter { $0.fate == .shownOnly }.count == 3 - heard.count)
        #expect(decisions.light.count == 3 && decisions.wakeTelevision)
    }

    /// The calendar's REPEAT and DURATION: repeats at the trigger plus each interval, then
    /// "not acknowledged" one interval after the last, said once.
    @Test func repeatsFollowTheCalendarThenNobodyAcknowledged() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 5))
        let messages = [message(repeats: 2, every: 120)]
        #expect(plan.look(at: messages, now: at(0), isNight: false).play.map(\.number) == [1])
        #expect(plan.nextDue == at(120))
        #expect(plan.look(at: messages, now: at(119), isNight: false).play.isEmpty)
        let second = plan.look(at: messages, now: at(120), isNight: false)
        #expect(second.play.map(\.number) == [2] && second.play.first?.of == 3)
        #expect(plan.look(at: messages, now: at(240), isNight: false).play.map(\.number) == [3])
        #expect(plan.nextDue == at(360))
        let end = plan.look(at: messages, now: at(360), isNight: false)
        #expect(end.play.isEmpty)
        #expect(end.journal == ["reminder \"Leave for the dentist\" sounded 3 times and nobody acknowledged it"])
        #expect(plan.recent.first?.fate == .notAcknowledged && plan.recent.first?.soundings == 3)
        #expect(plan.nextDue == nil)
    }

    /// Without a REPEAT, `repeat_until_acknowledged` repeats five minutes apart; an
    /// acknowledgement stops them.
    @Test func anAcknowledgementStopsTheRepeats() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 2))
        let messages = [message()]
        #expect(plan.look(at: messages, now: at(0), isNight: false).play.first?.of == 3)
        #expect(plan.nextDue == at(ReminderPlan.repeatSeconds))
        #expect(plan.isWaiting)
        #expect(plan.acknowledge(at: at(30), by: "a key").map(\.text) == ["Leave for the dentist"])
        #expect(plan.nextDue == nil && !plan.isWaiting)
        #expect(plan.look(at: messages, now: at(ReminderPlan.repeatSeconds), isNight: false).play.isEmpty)
        #expect(plan.recent.first?.fate == .acknowledged && plan.recent.first?.changedAt == at(30).secondsSinceEpoch)
        #expect(plan.recent.first?.acknowledgedBy == "a key")
        #expect(plan.acknowledge(at: at(40), by: "a key").isEmpty)
    }

    /// The clock set forward past several repeats: one sounds, the others are skipped.
    @Test func repeatsSkippedByAClockStepSoundOnce() {
        var plan = ReminderPlan(settings: SoundSettings())
        let messages = [message(repeats: 5, every: 60)]
        _ = plan.look(at: messages, now: at(0), isNight: false)
        let after = plan.look(at: messages, now: at(250), isNight: false)
        #expect(after.play.count == 1)
        #expect(plan.nextDue == at(300))
    }

    /// 500 reminders in one minute are all decided at once (the voice bounds what it plays).
    @Test func manyRemindersAtOnce() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 0))
        let messages = (0..<500).map { message("Reminder \($0)", uid: "r\($0)") }
        #expect(plan.look(at: messages, now: at(0), isNight: false).play.count == 500)
        #expect(plan.recent.count == ReminderPlan.listed)
    }

    /// An ATTACH plays a file in the calendar's own folder (of a path, its name), or the copy
    /// of one at an address fetched ahead; Apple's named sounds are the chime; names leaving
    /// the folder, other schemes, and addresses with nowhere to fetch them to are not played,
    /// and said.
    @Test(arguments: [
        ("Chord", nil, nil),
        ("dentist.ogg", "/feeds/dentist.ogg", nil),
        ("voices/pills.flac", "/feeds/voices/pills.flac", nil),
        ("file:///C:/Users/Anna/My%20Voice.wav", "/feeds/My Voice.wav", nil),
        ("file:///home/anna/Music/pills.ogg", "/feeds/pills.ogg", nil),
        ("/etc/shadow", "/feeds/shadow", nil),
        ("../secret.wav", nil, "ATTACH ../secret.wav is not a file in the calendar's folder /feeds"),
        ("voices//x.wav", nil, "ATTACH voices//x.wav is not a file in the calendar's folder /feeds"),
        ("ftp://example.com/a.mp3", nil, "ATTACH ftp://example.com/a.mp3 is neither a file nor an https address"),
        ("HTTPS://example.com/a.mp3", "/state/recordings/" + String(stableHash("HTTPS://example.com/a.mp3"), radix: 16) + ".sound",
         nil),
    ] as [(String, String?, String?)])
    func attachmentsNameRecordingsBesideTheCalendar(attachment: String, path: String?, unplayable: String?) {
        let sounding = Sounding(origin: .audioAlarm, trigger: ZonedTime(instant: at(0), utcOffset: 0), attachment: attachment)
        let found = AttachedRecording.resolve(sounding, calendar: "/feeds/family.ics", fetched: "/state/recordings")
        let expected = path.map { Recording.Source.file($0, within: $0.hasPrefix("/feeds/") ? "/feeds" : nil) }
        #expect(found.source == expected && found.unplayable == unplayable)
    }

    /// A recording written into the calendar plays from its bytes; one at an address is not
    /// played where nothing fetches it.
    @Test func recordingsInTheCalendarAndAtAddresses() {
        let trigger = ZonedTime(instant: at(0), utcOffset: 0)
        let inline = Sounding(origin: .audioAlarm, trigger: trigger, embedded: EmbeddedSound([1, 2, 3]))
        #expect(AttachedRecording.resolve(inline, calendar: "/feeds/a.ics", fetched: nil).source
            == .bytes([1, 2, 3], describedAs: "written into /feeds/a.ics"))
        let address = Sounding(origin: .audioAlarm, trigger: trigger, attachment: "https://example.com/a.mp3")
        let found = AttachedRecording.resolve(address, calendar: "/feeds/a.ics", fetched: nil)
        #expect(found.source == nil && found.unplayable == "the sound at an address (ATTACH https://example.com/a.mp3) is not fetched")
    }

    /// A trigger that reaches the box late (a subscription fetched every few minutes) is heard
    /// while its reminder shows, and called late, with why: never "the box was off" when it was on.
    @Test func aLateTriggerIsHeardWhileCurrent() {
        var plan = ReminderPlan(settings: SoundSettings(), runStarted: at(-3_600))
        let decisions = plan.look(at: [message()], now: at(600), isNight: false)
        #expect(decisions.play.count == 1 && decisions.light.count == 1)
        #expect(plan.recent.first?.why == "heard 10 min late: its calendar reached the box after its time")
        var offAtItsTime = ReminderPlan(settings: SoundSettings(), runStarted: at(500))
        _ = offAtItsTime.look(at: [message()], now: at(600), isNight: false)
        #expect(offAtItsTime.recent.first?.why == "heard 10 min late: the box was off at its time (marquee started at 09:38)")
        #expect(offAtItsTime.recent.first?.fate == .sounding)
    }

    /// Repeats stop when the event ends or is taken out of the calendar: not acknowledged, and why.
    @Test func repeatsStopWhenTheEventIsGone() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 3))
        #expect(plan.look(at: [message()], now: at(0), isNight: false).play.count == 1)
        let gone = plan.look(at: [], now: at(ReminderPlan.repeatSeconds), isNight: false)
        #expect(gone.play.isEmpty && plan.nextDue == nil && !plan.isWaiting)
        #expect(gone.record.first?.fate == .notAcknowledged)
        #expect(gone.record.first?.why == "its event ended or was taken out of the calendar before anyone acknowledged it")
    }

    /// `DURATION:PT1S` repeats a minute apart at the shortest: ten repeats are not ten seconds.
    @Test func aRepeatEverySecondIsAMinuteApart() {
        var plan = ReminderPlan(settings: SoundSettings())
        let messages = [message(repeats: 10, every: 1)]
        _ = plan.look(at: messages, now: at(0), isNight: false)
        #expect(plan.nextDue == at(ReminderPlan.shortestRepeat))
        #expect(plan.look(at: messages, now: at(5), isNight: false).play.isEmpty)
    }

    /// An event longer than the days a trigger is remembered is not missed again once it is
    /// forgotten: triggers older than that are not decided at all.
    @Test func aLongEventIsNotMissedAgain() {
        var plan = ReminderPlan(settings: SoundSettings())
        let holiday = message("Anna is on holiday", uid: "holiday")
        #expect(plan.look(at: [holiday], now: at(0), isNight: false).play.count == 1)
        _ = plan.acknowledge(at: at(10), by: "a key")
        for day in [7, 8, 9, 12, 20] as [Int64] {
            let decisions = plan.look(at: [holiday], now: at(day * 86_400 + 5), isNight: false)
            #expect(decisions.record.isEmpty && decisions.journal.isEmpty && decisions.play.isEmpty, "day \(day)")
        }
        var restarted = ReminderPlan(settings: SoundSettings(), runStarted: at(20 * 86_400))
        #expect(restarted.look(at: [holiday], now: at(20 * 86_400 + 5), isNight: false).record.isEmpty)
    }

    /// The quiet night is `screen_off`'s hours when they are set (the dark bedroom), else the
    /// orientation's night: one definition for the sound.
    @Test func theQuietNightIsTheScreensWhenItIsSet() {
        var settings = SoundSettings()
        let dark = ZonedTime(instant: at(3_600), utcOffset: 0)
        #expect(settings.isQuietNight(darkUntil: nil, partOfDay: .night))
        #expect(!settings.isQuietNight(darkUntil: dark, partOfDay: .evening))
        settings.quietNightIsScreenOff = true
        #expect(settings.isQuietNight(darkUntil: dark, partOfDay: .evening))
        #expect(!settings.isQuietNight(darkUntil: nil, partOfDay: .night))
    }

    /// What is remembered is forgotten after a week and a day (the ledger keeps it 90 days).
    @Test func oldTriggersAreForgotten() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 0))
        _ = plan.look(at: [message()], now: at(0), isNight: false)
        _ = plan.look(at: [message()], now: at(ReminderPlan.repeatSeconds), isNight: false)
        #expect(plan.entries.count == 1)
        _ = plan.look(at: [], now: at(ReminderPlan.rememberedSeconds + ReminderPlan.repeatSeconds + 1), isNight: false)
        #expect(plan.entries.isEmpty)
    }
}
