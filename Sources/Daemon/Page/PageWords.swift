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
    var theBox = "The box"
    var version = "Version"
    var runningFor = "Running for"
    var disk = "Disk (state folder)"
    var freeOf = "free of"
    var parts = "Its parts"
    var partRunning = "running"
    var partFailed = "failed, tried again in a while"
    var partStopped = "stopped"
    var days = "days"
    var hours = "hours"
    var minutesShort = "minutes"
    var write = "Write"
    var writeHeading = "Reminders written here"
    var noneWritten = "None yet: write the first below."
    var newReminder = "A new reminder"
    var changeReminder = "Change the reminder"
    var change = "Change"
    var removeIt = "Remove"
    var whatItSays = "What it says"
    var wordsHint = "{age} in a yearly one is the age: “Johnny is {age} today”"
    var day = "Day"
    var time = "Time (empty: the whole day)"
    var repeats = "Repeats"
    var repetitions: [String: String] = [
        "once": "Once", "daily": "Every day", "weekdays": "Monday to Friday", "weekly": "Every week on these days",
        "yearly": "Every year (a birthday)",
    ]
    var weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    var showsFor = "Shows for how many minutes"
    var heardAloud = "Heard: a chime, then the words"
    var urgent = "Urgent: heard at night too"
    var voice = "Your own voice"
    var record = "Record"
    var stopRecording = "Stop"
    var pickRecording = "Or choose a recording"
    var recordingWorking = "Preparing the recording…"
    var recorded = "Recorded: {s} seconds. It is played instead of the words."
    var hasVoice = "It plays your recorded voice."
    var dropVoice = "Remove the recorded voice"
    var noRecorder = "This browser records only over HTTPS or on the box itself: choose a recording made on the phone."
    var save = "Keep the reminder"
    var kept = "The reminder is kept."
    var noStateFolder = "The box keeps nothing (no state_dir): reminders cannot be written here."
    var calendars = "Calendars"
    var files = "Files on the box"
    var subscriptions = "Subscriptions"
    var calendarRead = "read"
    var calendarKeptEarlier = "cannot be read: the last good version shows"
    var calendarUnusable = "cannot be read, and nothing earlier to show"
    var event = "event"
    var events = "events"
    var saidNowCalendar = "The message shown now (the box's own)"
    var writtenCalendar = "The reminders written here (the box's own)"
    var lastRead = "last read"
    var neverRead = "not read yet"
    var noCalendars = "No calendar files."
    var noSubscriptions = "No subscriptions."
    var subscriptionLabel = "Subscribe to a calendar: its private address (iCal, https:// or webcal://)"
    var subscribe = "Subscribe"
    var notAnAddress = "not a calendar address the box can fetch: it starts with https://, http:// or webcal:// and has no spaces"
    var subscriptionAdded = "The subscription is kept; its calendar is fetched now."
    var subscriptionRemoved = "The subscription is removed."
    var subscriptionKnown = "The box already subscribes to this calendar."
    var subscriptionUnknown = "The box does not subscribe to this calendar (any more)."
    var uploadLabel = "Add a calendar file (.ics), or replace one of the same name"
    var upload = "Upload"
    var uploading = "Reading the calendar…"
    var calendarKept = "The calendar is read and kept."
    var settings = "Settings"
    var settingsNote = "An empty field is the default. Kept in {file}, used at once."
    var keepSettings = "Keep the settings"
    var settingsKept = "The settings are kept and in use."
    var nothingChanged = "Nothing was changed."
    var settingsUnreadable = "the file has lines that are not `key = value`: mend it with `sudo marquee check` first"
    var testReminder = "This is a test reminder. Is it loud enough?"
    var testReminderButton = "Play a test reminder"
    var settingWords: [String: (String, String)] = [
        "language": ("Language", "de, en, fr, es… (default: the system's)"),
        "timezone": ("Time zone", "Europe/Berlin… (default: the system's)"),
        "morning": ("The morning begins", "HH:MM (default 07:00)"),
        "afternoon": ("The afternoon begins", "HH:MM (default 12:00)"),
        "evening": ("The evening begins", "HH:MM (default 18:00)"),
        "night": ("The night begins (the quiet night)", "HH:MM (default 22:00)"),
        "screen_off": ("The screen is dark", "23:00-06:30, or night (default: never)"),
        "speak": ("Which reminders are heard", "alarms, audio-only or off (default: alarms)"),
        "volume_day": ("Volume by day", "0 to 100 (default 80)"),
        "volume_night": ("Volume at night", "0 to 100 (default 30)"),
        "cec": ("The television (HDMI-CEC)", "auto: turned on and to the box for reminders; off: left alone (default: auto)"),
        "cec_standby": ("The television sleeps while the screen is dark", "default: no"),
        "reclaim_input": ("The television is taken back to the box by day", "default: yes"),
    ]
    var takesARestart = "Takes effect when the box restarts."
    var byDefault = "(as by default)"
    var choiceWords = [
        "true": "yes", "false": "no", "alarms": "reminders with an alarm", "audio-only": "only those with a sound",
        "off": "off", "auto": "auto",
    ]
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
        words.theBox = "Das Gerät"
        words.version = "Version"
        words.runningFor = "Läuft seit"
        words.disk = "Speicher (Zustandsordner)"
        words.freeOf = "frei von"
        words.parts = "Seine Teile"
        words.partRunning = "läuft"
        words.partFailed = "gestört, wird bald wieder versucht"
        words.partStopped = "angehalten"
        words.days = "Tagen"
        words.hours = "Stunden"
        words.minutesShort = "Minuten"
        words.write = "Schreiben"
        words.writeHeading = "Hier geschriebene Erinnerungen"
        words.noneWritten = "Noch keine: schreiben Sie die erste unten."
        words.newReminder = "Eine neue Erinnerung"
        words.changeReminder = "Die Erinnerung ändern"
        words.change = "Ändern"
        words.removeIt = "Entfernen"
        words.whatItSays = "Was sie sagt"
        words.wordsHint = "{age} in einer jährlichen ist das Alter: „Johnny wird heute {age}“"
        words.day = "Tag"
        words.time = "Uhrzeit (leer: den ganzen Tag)"
        words.repeats = "Wiederholt sich"
        words.repetitions = [
            "once": "Einmal", "daily": "Jeden Tag", "weekdays": "Montag bis Freitag", "weekly": "Jede Woche an diesen Tagen",
            "yearly": "Jedes Jahr (ein Geburtstag)",
        ]
        words.weekdayNames = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
        words.showsFor = "Wird so viele Minuten gezeigt"
        words.heardAloud = "Zu hören: ein Klang, dann die Worte"
        words.urgent = "Dringend: auch nachts zu hören"
        words.voice = "Ihre eigene Stimme"
        words.record = "Aufnehmen"
        words.stopRecording = "Stopp"
        words.pickRecording = "Oder eine Aufnahme wählen"
        words.recordingWorking = "Die Aufnahme wird vorbereitet …"
        words.recorded = "Aufgenommen: {s} Sekunden. Sie wird statt der Worte abgespielt."
        words.hasVoice = "Sie spielt Ihre aufgenommene Stimme."
        words.dropVoice = "Die aufgenommene Stimme entfernen"
        words.noRecorder = "Dieser Browser nimmt nur über HTTPS oder am Gerät selbst auf: wählen Sie eine auf dem Telefon gemachte Aufnahme."
        words.save = "Erinnerung behalten"
        words.kept = "Die Erinnerung ist gespeichert."
        words.noStateFolder = "Das Gerät speichert nichts (kein state_dir): hier können keine Erinnerungen geschrieben werden."
        words.calendars = "Kalender"
        words.files = "Dateien auf dem Gerät"
        words.subscriptions = "Abonnements"
        words.calendarRead = "gelesen"
        words.calendarKeptEarlier = "nicht lesbar: die letzte gute Fassung wird gezeigt"
        words.calendarUnusable = "nicht lesbar, und nichts Früheres zu zeigen"
        words.event = "Termin"
        words.events = "Termine"
        words.saidNowCalendar = "Die jetzt gezeigte Nachricht (des Geräts eigene)"
        words.writtenCalendar = "Die hier geschriebenen Erinnerungen (des Geräts eigene)"
        words.lastRead = "zuletzt gelesen"
        words.neverRead = "noch nicht gelesen"
        words.noCalendars = "Keine Kalenderdateien."
        words.noSubscriptions = "Keine Abonnements."
        words.subscriptionLabel = "Einen Kalender abonnieren: seine private Adresse (iCal, https:// oder webcal://)"
        words.subscribe = "Abonnieren"
        words.notAnAddress = "keine Kalenderadresse, die die Box abrufen kann: sie beginnt mit https://, http:// oder webcal:// und hat keine Leerzeichen"
        words.subscriptionAdded = "Das Abonnement ist gespeichert; sein Kalender wird jetzt abgerufen."
        words.subscriptionRemoved = "Das Abonnement ist entfernt."
        words.subscriptionKnown = "Dieser Kalender ist schon abonniert."
        words.subscriptionUnknown = "Dieser Kalender ist nicht (mehr) abonniert."
        words.uploadLabel = "Eine Kalenderdatei (.ics) hinzufügen, oder eine gleichnamige ersetzen"
        words.upload = "Hochladen"
        words.uploading = "Der Kalender wird gelesen …"
        words.calendarKept = "Der Kalender ist gelesen und gespeichert."
        words.settings = "Einstellungen"
        words.settingsNote = "Ein leeres Feld ist die Voreinstellung. Gespeichert in {file}, sofort verwendet."
        words.keepSettings = "Einstellungen behalten"
        words.settingsKept = "Die Einstellungen sind gespeichert und in Gebrauch."
        words.nothingChanged = "Nichts wurde geändert."
        words.settingsUnreadable = "die Datei hat Zeilen, die nicht `key = value` sind: zuerst mit `sudo marquee check` reparieren"
        words.testReminder = "Dies ist eine Probe-Erinnerung. Ist sie laut genug?"
        words.testReminderButton = "Probe-Erinnerung abspielen"
        words.settingWords = [
            "language": ("Sprache", "de, en, fr, es … (Voreinstellung: die des Systems)"),
            "timezone": ("Zeitzone", "Europe/Berlin … (Voreinstellung: die des Systems)"),
            "morning": ("Der Morgen beginnt", "HH:MM (Voreinstellung 07:00)"),
            "afternoon": ("Der Nachmittag beginnt", "HH:MM (Voreinstellung 12:00)"),
            "evening": ("Der Abend beginnt", "HH:MM (Voreinstellung 18:00)"),
            "night": ("Die Nacht beginnt (die ruhige Nacht)", "HH:MM (Voreinstellung 22:00)"),
            "screen_off": ("Der Bildschirm ist dunkel", "23:00-06:30, oder night (Voreinstellung: nie)"),
            "speak": ("Welche Erinnerungen zu hören sind", "alarms, audio-only oder off (Voreinstellung: alarms)"),
            "volume_day": ("Lautstärke am Tag", "0 bis 100 (Voreinstellung 80)"),
            "volume_night": ("Lautstärke in der Nacht", "0 bis 100 (Voreinstellung 30)"),
            "cec": ("Der Fernseher (HDMI-CEC)", "auto: für Erinnerungen eingeschaltet und auf die Box gestellt; off: in Ruhe gelassen (Voreinstellung: auto)"),
            "cec_standby": ("Der Fernseher schläft, während der Bildschirm dunkel ist", "Voreinstellung: nein"),
            "reclaim_input": ("Der Fernseher wird tagsüber auf die Box zurückgestellt", "Voreinstellung: ja"),
        ]
        words.takesARestart = "Wirkt, wenn die Box neu startet."
        words.byDefault = "(wie voreingestellt)"
        words.choiceWords = [
            "true": "ja", "false": "nein", "alarms": "Erinnerungen mit Alarm", "audio-only": "nur die mit einem Klang",
            "off": "aus", "auto": "automatisch",
        ]
        words.outcomes = [
            "sounding": "erklingt", "acknowledged": "bestätigt", "not acknowledged": "nicht bestätigt",
            "missed": "verpasst", "quiet at night": "nachts still", "muted": "stumm", "shown only": "nur gezeigt",
        ]
        return words
    }()
}
