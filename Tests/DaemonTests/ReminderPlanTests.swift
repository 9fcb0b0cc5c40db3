import Schedule
import Support
import Sound
import TestSupport
import Testing

@testable import Daemon

/// Which reminders sound and when, on instants the test gives: at the trigger and never
/// before, once per trigger (across a restart too), not hours late, quiet at night unless
/// urgent, silent when muted, repeated until acknowledged.
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
        #expect(first.keptChanged)
        #expect(plan.look(at: messages, now: at(1), isNight: false).play.isEmpty)
        // A feed that changes the text does not make it a new reminder.
        var changed = messages
        changed[0].text = "Leave now for the dentist"
        #expect(plan.look(at: changed, now: at(2), isNight: false).play.isEmpty)
        // A clock set back and forward again does not replay it.
        #expect(plan.look(at: messages, now: at(-600), isNight: false).play.isEmpty)
        #expect(plan.look(at: messages, now: at(5), isNight: false).play.isEmpty)
    }

    /// What was decided is kept (the state folder's record) and read by the next run; the
    /// first version's record (a list of decided triggers) is read too.
    @Test func aRestartDoesNotReplay() throws {
        var plan = ReminderPlan(settings: SoundSettings())
        _ = plan.look(at: [message()], now: at(0), isNight: false)
        let read = try #require(ReminderPlan.Kept.decode(plan.kept.encoded))
        var restarted = ReminderPlan(settings: SoundSettings(), kept: read)
        let decisions = restarted.look(at: [message()], now: at(10), isNight: false)
        #expect(decisions.play.isEmpty && decisions.journal.isEmpty)
        #expect(restarted.recent == plan.recent)
        #expect(ReminderPlan.Kept.decode(Array("{not json".utf8)) == nil)
        let firstVersion = #"[{"key":{"event":"dentist","trigger":1782898200,"origin":"audio"},"decidedAt":1782898200}]"#
        let old = try #require(ReminderPlan.Kept.decode(Array(firstVersion.utf8)))
        #expect(old.heard == [ReminderPlan.Key(event: "dentist", trigger: 1_782_898_200, origin: "audio"): 1_782_898_200])
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
        var restarted = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 2),
                                     kept: try #require(ReminderPlan.Kept.decode(plan.kept.encoded)))
        #expect(restarted.nextDue == at(ReminderPlan.repeatSeconds))
        #expect(restarted.look(at: [dentist, birthday], now: at(60), isNight: true).play.isEmpty)
        let repeated = restarted.look(at: [dentist, birthday], now: at(ReminderPlan.repeatSeconds), isNight: false)
        #expect(repeated.play.map(\.text) == ["It's Johnny's birthday!", "Leave for the dentist"])
        #expect(repeated.play.last?.number == 2 && repeated.play.last?.of == 3)
        #expect(repeated.play.last?.recording == .bytes([7, 7, 7], describedAs: "written into /feeds/a.ics"))
        #expect(restarted.acknowledge(at: at(ReminderPlan.repeatSeconds + 5)).sorted()
            == ["It's Johnny's birthday!", "Leave for the dentist"])
        #expect(restarted.lastAcknowledged?.text != nil && !restarted.isWaiting)
    }

    /// More than a minute late (the box was off at its time) it is said as missed, not played.
    @Test func aReminderMissedWhileOffIsSaidNotPlayed() {
        var plan = ReminderPlan(settings: SoundSettings())
        let decisions = plan.look(at: [message()], now: at(3 * 3_600), isNight: false)
        #expect(decisions.play.isEmpty)
        #expect(decisions.journal.count == 1 && decisions.journal[0].contains("was missed"))
        #expect(plan.recent.map(\.outcome) == [.missed])
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
        #expect(Set(plan.recent.map(\.outcome)) == [.quietAtNight, .sounding])
        // Late by night (the box was off at its time): missed, not kept for the morning.
        var late = ReminderPlan(settings: SoundSettings())
        #expect(late.look(at: [message("Calm", uid: "a")], now: at(600), isNight: true).journal.count == 1)
        #expect(late.look(at: [message("Calm", uid: "a")], now: at(9 * 3_600), isNight: false).play.isEmpty)
    }

    /// What the night kept quiet is heard when it ends, if its message still shows (an all-day
    /// birthday asked to be heard at its start, midnight); repeats count from then.
    @Test func whatTheNightKeptQuietIsHeardInTheMorning() {
        var plan = ReminderPlan(settings: SoundSettings(repeatUntilAcknowledged: 1))
        let birthday = message("It's Johnny's birthday!", origin: .event, uid: "birthday")
        let bins = message("Put the bins out", origin: .event, uid: "bins")
        #expect(plan.look(at: [birthday, bins], now: at(0), isNight: true).play.isEmpty)
        #expect(plan.recent.map(\.outcome) == [.quietAtNight, .quietAtNight])
        #expect(plan.look(at: [birthday, bins], now: at(3_600), isNight: true).play.isEmpty)
        // Morning, seven hours on: the bins' message ended, the birthday shows all day.
        let morning = plan.look(at: [birthday], now: at(7 * 3_600), isNight: false)
        #expect(morning.play.map(\.text) == ["It's Johnny's birthday!"] && morning.journal.isEmpty)
        #expect(plan.nextDue == at(7 * 3_600 + ReminderPlan.repeatSeconds))
        #expect(plan.recent.first { $0.text == "It's Johnny's birthday!" }?.outcome == .sounding)
        #expect(plan.look(at: [birthday], now: at(7 * 3_600 + 10), isNight: false).play.isEmpty)
    }

    @Test func mutedNothingSounds() {
        var plan = ReminderPlan(settings: SoundSettings())
        plan.muted = true
        #expect(plan.look(at: [message(priority: 1)], now: at(0), isNight: false).play.isEmpty)
        #expect(plan.recent.map(\.outcome) == [.muted])
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
        #expect(plan.look(at: messages, now: at(0), isNight: false).play.map(\.text) == heard.map(\.rawValue))
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
        #expect(plan.recent.first?.outcome == .notAcknowledged && plan.recent.first?.soundings == 3)
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
        #expect(plan.acknowledge(at: at(30)) == ["Leave for the dentist"])
        #expect(plan.nextDue == nil && !plan.isWaiting)
        #expect(plan.look(at: messages, now: at(ReminderPlan.repeatSeconds), isNight: false).play.isEmpty)
        #expect(plan.recent.first?.outcome == .acknowledged && plan.recent.first?.at == at(30))
        #expect(plan.acknowledge(at: at(40)).isEmpty)
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
        #expect(found.source == path.map(Recording.Source.file) && found.unplayable == unplayable)
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

    /// What is remembered is forgotten after a week and a day.
    @Test func oldTriggersAreForgotten() {
        var plan = ReminderPlan(settings: SoundSettings())
        _ = plan.look(at: [message()], now: at(0), isNight: false)
        #expect(plan.heard.count == 1)
        let later = plan.look(at: [], now: at(ReminderPlan.rememberedSeconds + 1), isNight: false)
        #expect(later.keptChanged && plan.heard.isEmpty)
    }
}
