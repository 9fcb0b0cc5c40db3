/// The carer's page in the display's language: English and German complete, the rest English.
struct PageWords: Sendable {
    var language = "en"
    var title = "marquee"
    var signIn = "Sign in"
    var signOut = "Sign out"
    var password = "Password"
    var wrongPassword = "That password is not right."
    var lockedOut = "Too many wrong passwords from this device. Try again at"
    var now = "Now"
    var reminders = "Reminders"
    var onTheScreen = "On the screen"
    var nothingShown = "Nothing but the date"
    var everythingWell = "Everything works."
    var problems = "Needs attention"
    var paused = "The text is paused."
    var muted = "Reminders are muted: they are shown, not heard."
    var darkUntil = "The screen is dark until"
    var litFor = "The screen is lit for a while:"
    var television = "Television"
    var acknowledge = "Acknowledge the reminder"
    var mute = "Mute reminders"
    var unmute = "Hear reminders again"
    var wake = "Wake the screen"
    var pause = "Pause the text"
    var resume = "Move the text again"
    var sayNow = "Show a message now"
    var text = "Message"
    var minutes = "For how many minutes"
    var heard = "Also say it aloud"
    var send = "Show it"
    var clear = "Take the message off"
    var done = "Done."
    var picture = "What the screen shows now"
    var today = "Today"
    var lastWeek = "The last 7 days"
    var noReminders = "No reminders in these days."
    var due = "Due"
    var what = "Reminder"
    var became = "What happened"
    var by = "by"
    var outcomes: [String: String] = [:]

    /// The words for `language` (a locale such as `de_DE` or `de`).
    static func forLanguage(_ language: String) -> PageWords {
        language.lowercased().hasPrefix("de") ? german : PageWords()
    }

    /// A ledger's fate in words (`LedgerEntry.Fate`'s raw value).
    func outcome(_ fate: String) -> String { outcomes[fate] ?? fate }

    static let german: PageWords = {
        var words = PageWords()
        words.language = "de"
        words.signIn = "Anmelden"
        words.signOut = "Abmelden"
        words.password = "Passwort"
        words.wrongPassword = "Dieses Passwort stimmt nicht."
        words.lockedOut = "Zu viele falsche Passwörter von diesem Gerät. Wieder möglich um"
        words.now = "Jetzt"
        words.reminders = "Erinnerungen"
        words.onTheScreen = "Auf dem Bildschirm"
        words.nothingShown = "Nur das Datum"
        words.everythingWell = "Alles funktioniert."
        words.problems = "Braucht Aufmerksamkeit"
        words.paused = "Der Text ist angehalten."
        words.muted = "Erinnerungen sind stumm: sie werden gezeigt, nicht gesprochen."
        words.darkUntil = "Der Bildschirm ist dunkel bis"
        words.litFor = "Der Bildschirm ist eine Weile hell:"
        words.television = "Fernseher"
        words.acknowledge = "Erinnerung bestätigen"
        words.mute = "Erinnerungen stumm schalten"
        words.unmute = "Erinnerungen wieder hören"
        words.wake = "Bildschirm wecken"
        words.pause = "Text anhalten"
        words.resume = "Text wieder bewegen"
        words.sayNow = "Jetzt eine Nachricht zeigen"
        words.text = "Nachricht"
        words.minutes = "Für wie viele Minuten"
        words.heard = "Auch vorlesen"
        words.send = "Zeigen"
        words.clear = "Nachricht wegnehmen"
        words.done = "Erledigt."
        words.picture = "Was der Bildschirm jetzt zeigt"
        words.today = "Heute"
        words.lastWeek = "Die letzten 7 Tage"
        words.noReminders = "Keine Erinnerungen in diesen Tagen."
        words.due = "Fällig"
        words.what = "Erinnerung"
        words.became = "Was geschah"
        words.by = "durch"
        words.outcomes = [
            "sounding": "erklingt", "acknowledged": "bestätigt", "not acknowledged": "nicht bestätigt",
            "missed": "verpasst", "quiet at night": "nachts still", "muted": "stumm", "shown only": "nur gezeigt",
        ]
        return words
    }()
}
