import Dispatch
import Hummingbird
import HummingbirdCore
import Ledger
import Logging
import Schedule
import Support
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where and to whom the carer's page is served (`web_listen`, `web_peers`), and where its
/// password's hash is kept.
package struct PageSettings: Sendable, Equatable {
    package var host: String
    package var port: Int
    package var peers: PagePeers
    /// The hash of the password (`marquee web-password` writes it); without one the page is off.
    package var passwordFile: String
    /// The display's language: the page's words.
    package var language: String
    /// marquee's version, on the box's page.
    package var version: String
    /// The state folder, whose disk the box's page reports.
    package var stateFolder: String
    /// The configuration file the settings are written to (`/etc/marquee/marquee.toml`).
    package var configurationFile: String
    /// How the page is encrypted (nil: plain HTTP, `web_tls = "off"`).
    package var tls: PageTLS?

    package init(host: String, port: Int, peers: PagePeers, passwordFile: String, language: String, version: String,
                 stateFolder: String, configurationFile: String, tls: PageTLS? = nil) {
        (self.host, self.port, self.peers, self.passwordFile, self.language) = (host, port, peers, passwordFile, language)
        (self.version, self.stateFolder, self.configurationFile, self.tls) = (version, stateFolder, configurationFile, tls)
    }

    /// `host:port` as the status says it.
    package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    /// `https` or `http`.
    package var scheme: String { tls == nil ? "http" : "https" }
}

/// The request context of the page: the peer's address, and a body no larger than a form.
struct PageContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address in text (nil: not an IP peer).
    let peer: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }

    var maxUploadSize: Int { WrittenCalendar.largestRecording }
}

/// The carer's page: served by the daemon as one of its running parts (Hummingbird, on
/// swift-nio's threads, never the render thread's), to the home network only unless told
/// otherwise, behind a password. "Now" follows the box by server-sent events; every change a
/// carer makes goes through the same `ControlDesk` as the socket's, and is said in the journal
/// with the carer's address.
final class CarerPage: Sendable {
    /// The largest form accepted (a message sent now is at most 500 characters).
    static let largestForm = 16 * 1024
    /// Connections open at once (a flood beyond it waits in the kernel's backlog).
    static let mostConnections = 64
    /// A connection that sends nothing this long is closed (a slow client holds no slot long).
    static let idleSeconds: Int64 = 15
    /// A wrong password's answer waits this long.
    static let wrongPasswordDelay: Duration = .seconds(1)
    static let sessionCookie = "marquee_session"

    private let settings: PageSettings
    private let state: DisplayState
    private let desk: ControlDesk
    /// The carer's written reminders and uploaded calendars (nil: no state folder keeps them).
    private let written: WrittenCalendar?
    private let uploaded: UploadedCalendars?
    /// Judges an uploaded calendar before it is kept (the display's schedule reading it).
    private let schedule: Schedule?
    private let pictures: ScreenPictures?
    private let clock: any BoxClock
    private let log: EventLog?
    private let words: PageWords
    private let sessions = PageSessions()
    private let throttle = Mutex(LoginThrottle())

    init(settings: PageSettings, state: DisplayState, desk: ControlDesk, written: WrittenCalendar?, uploaded: UploadedCalendars?,
         schedule: Schedule?, pictures: ScreenPictures?, clock: any BoxClock, log: EventLog?) {
        self.settings = settings
        self.state = state
        self.desk = desk
        self.written = written
        self.uploaded = uploaded
        self.schedule = schedule
        self.pictures = pictures
        self.clock = clock
        self.log = log
        words = PageWords.forLanguage(settings.language)
    }

    /// How often a page without a password looks whether one was set.
    static let passwordLook: Duration = .seconds(5)

    /// The page as a running part: it waits for a password (`marquee web-password`), then
    /// serves until cancelled, the status saying where or why not.
    func run() async throws {
        let peers = settings.peers.rawValue
        var said = false
        while !Task.isCancelled {
            switch PagePassword.read(at: settings.passwordFile) {
            case .success(nil):
                if !said {
                    let problem = "no password is set for it: `sudo marquee web-password`"
                    log?.log(.notice, "the carer's page is off until a password is set (`sudo marquee web-password`)")
                    tell(.init(address: nil, peers: peers, problem: problem))
                    said = true
                }
                await clock.sleep(for: Self.passwordLook)
            case .failure(let problem):
                let problem = "\(settings.passwordFile): \(problem.message)"
                tell(.init(address: nil, peers: peers, problem: problem))
                throw PartFailure(description: problem)
            case .success(.some):
                var certificate: PageCertificate?
                if let tls = settings.tls {
                    do {
                        certificate = try PageCertificate.load(tls, hostName: hostName())
                    } catch {
                        tell(.init(address: nil, peers: peers, problem: error.description))
                        throw PartFailure(description: error.description)
                    }
                }
                let fingerprint = certificate?.fingerprint
                do {
                    try await serve(certificate: certificate) { [self] _ in
                        tell(.init(address: settings.address, peers: peers, scheme: settings.scheme, certificate: fingerprint))
                        log?.log(.notice, "the carer's page: \(settings.scheme)://\(settings.address)/ "
                            + "(\(settings.peers == .home ? "the home network only" : "any address")"
                            + (fingerprint.map { "; its certificate's SHA-256 fingerprint: \($0)" } ?? "") + ")")
                    }
                } catch {
                    let problem = "cannot serve on \(settings.address): \(error)"
                    tell(.init(address: nil, peers: peers, problem: problem))
                    throw PartFailure(description: problem)
                }
                return
            }
        }
    }

    /// Puts where the page is served, or why not, in the status, and tells the display (its
    /// row says how to add calendars on the page).
    private func tell(_ page: StatusReport.PageStatus) {
        state.update { $0.page = page }
        desk.mailbox.post(.pageChanged)
    }

    /// Serves until the task is cancelled, over TLS with `certificate` if given; throws when
    /// the address cannot be bound.
    func serve(certificate: PageCertificate? = nil, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let http = HTTP1Channel.Configuration(idleTimeout: .seconds(Self.idleSeconds))
        let application = Application(
            router: router(),
            server: certificate.map { certificate in
                HTTPServerBuilder { PageTLSChannel(http: HTTP1Channel(responder: $0, configuration: http), context: certificate.context) }
            } ?? .http1(configuration: http),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil, reuseAddress: true,
                                 availableConnectionsDelegate: MaximumAvailableConnections(Self.mostConnections)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "marquee.page", factory: { _ in SwiftLogNoOpLogHandler() }))
        // On threads of the page's own: a flood of requests never waits for, nor holds up, the
        // few threads the box's other tasks share.
        try await withTaskExecutorPreference(Self.executor) { try await application.run() }
    }

    /// Where the page's tasks run.
    private static let executor = QueueTaskExecutor(label: "marquee-page")

    private func router() -> Router<PageContext> {
        let router = Router(context: PageContext.self)
        router.add(middleware: PageGate(peers: settings.peers))
        router.get("page.css") { _, _ in Self.asset(PageAssets.css, type: "text/css; charset=utf-8") }
        router.get("page.js") { _, _ in Self.asset(PageAssets.javascript, type: "text/javascript; charset=utf-8") }
        router.get("/") { [self] request, context in
            guard let session = session(of: request) else { return html(PageViews.signIn(words, problem: nil)) }
            return html(PageViews.now(words, now(), changeToken: session.changeToken, notice: sessions.takeNotice(session.token)))
        }
        router.post("login") { [self] request, context in try await signIn(request, context: context) }
        router.post("logout") { [self] request, _ in
            if let token = request.cookies[Self.sessionCookie]?.value { sessions.close(token) }
            var response = Self.redirect(to: "/")
            response.setCookie(Cookie(name: Self.sessionCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        router.get("picture.png") { [self] request, _ in
            guard session(of: request) != nil else { return Response(status: .unauthorized) }
            pictures?.want()
            guard let latest = pictures?.current else { return Response(status: .notFound) }
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: latest.bytes)))
        }
        router.get("events") { [self] request, _ in
            guard session(of: request) != nil else { return Response(status: .unauthorized) }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                            body: ResponseBody { [self] writer in try await follow(into: &writer) })
        }
        router.get("reminders") { [self] request, _ in
            guard session(of: request) != nil else { return Self.redirect(to: "/") }
            let reply = desk.answer(ControlRequest(type: .reminders, since: 7 * 86_400))
            let rows = reply.reminders ?? []
            // Today in the display's zone, as the trigger times are written.
            let today = String(ZonedTime(instant: clock.wallTime().instant, utcOffset: state.utcOffset).rfc3339.prefix(10))
            return html(PageViews.reminders(words, today: rows.filter { $0.trigger.hasPrefix(today) },
                                            earlier: rows.filter { !$0.trigger.hasPrefix(today) }, problem: reply.error))
        }
        router.get("box") { [self] request, _ in
            guard session(of: request) != nil else { return Self.redirect(to: "/") }
            return html(PageViews.box(words, BoxView(report: state.report, version: settings.version,
                                                      disk: BoxView.disk(of: settings.stateFolder),
                                                      problems: state.errors(atMost: 20) + state.warnings(atMost: 20))))
        }
        router.post("act") { [self] request, context in try await act(request, context: context) }
        router.get("calendars") { [self] request, _ in
            guard let session = session(of: request) else { return Self.redirect(to: "/") }
            let report = state.report
            return html(PageViews.calendars(words, feeds: report.feeds, subscriptions: report.subscriptions, uploaded: uploaded,
                                            changeToken: session.changeToken, notice: sessions.takeNotice(session.token)))
        }
        router.get("settings") { [self] request, _ in
            guard let session = session(of: request) else { return Self.redirect(to: "/") }
            return settingsPage(session)
        }
        router.post("settings") { [self] request, context in try await changeSettings(request, context: context) }
        router.post("calendars/subscribe") { [self] request, context in try await changeSubscriptions(request, context: context, adding: true) }
        router.post("calendars/unsubscribe") { [self] request, context in
            try await changeSubscriptions(request, context: context, adding: false)
        }
        router.post("calendars/upload") { [self] request, context in try await upload(request, context: context) }
        router.post("calendars/remove") { [self] request, context in
            let (session, form) = try await change(RemoveCalendarForm.self, of: request, context: context)
            let problem = uploaded.map { $0.remove(form.name) } ?? words.noStateFolder
            log?.log(.notice, "the page: calendar \"\(form.name)\" removed by the carer from \(context.peer ?? "?")"
                + (problem.map { " refused: \($0)" } ?? ""))
            sessions.note(session.token, problem ?? words.done)
            return Self.redirect(to: "/calendars")
        }
        router.get("write") { [self] request, _ in
            guard let session = session(of: request) else { return Self.redirect(to: "/") }
            return writePage(session, editing: request.uri.queryParameters["edit"].map(String.init))
        }
        router.post("write") { [self] request, context in try await write(request, context: context) }
        router.post("recording") { [self] request, context in try await receiveRecording(request, context: context) }
        return router
    }

    /// What "Now" shows at this moment.
    private func now() -> PageNow {
        pictures?.want()
        return PageNow(report: state.report, problems: state.errors(atMost: 10), changes: state.changes,
                picture: pictures?.current?.number ?? 0, words: words)
    }

    /// Sends "Now" whenever it changes, until the browser goes or the page ends.
    private func follow(into writer: inout any ResponseBodyWriter) async throws {
        var sent: PageNow?
        while !Task.isCancelled {
            let now = now()
            if now != sent {
                try await writer.write(ByteBuffer(string: "event: now\ndata: \(PageViews.json(now))\n\n"))
                sent = now
            }
            await clock.sleep(for: ScreenPictures.lookInterval)
        }
        try await writer.finish(nil)
    }

    private func signIn(_ request: Request, context: PageContext) async throws -> Response {
        let peer = context.peer ?? "?"
        let at = clock.wallTime().instant.secondsSinceEpoch
        if let until = throttle.withLock({ $0.lockedUntil(peer, at: at) }) {
            return html(PageViews.signIn(words, problem: "\(words.lockedOut) \(clockTime(until))."), status: .tooManyRequests)
        }
        let form = try await Self.form(LoginForm.self, of: request, context: context)
        // Read at each sign-in: a password changed with `marquee web-password` counts at once.
        let file = settings.passwordFile
        let right = await onThread(named: "marquee-page-password") {
            guard case .success(let hash?) = PagePassword.read(at: file) else { return false }
            return PagePassword.verify(form.password, against: hash)
        }
        guard right == true else {
            let locked = throttle.withLock { $0.failed(peer, at: at) }
            log?.log(.warning, "the page: a wrong password from \(peer)" + (locked.map { "; locked out until \(clockTime($0))" } ?? ""))
            await clock.sleep(for: Self.wrongPasswordDelay)
            let problem = locked.map { "\(words.lockedOut) \(clockTime($0))." } ?? words.wrongPassword
            return html(PageViews.signIn(words, problem: problem), status: locked == nil ? .unauthorized : .tooManyRequests)
        }
        throttle.withLock { $0.succeeded(peer) }
        let session = sessions.open(at: at)
        log?.log(.notice, "the page: the carer signed in from \(peer)")
        var response = Self.redirect(to: "/")
        // Over HTTPS the browser never sends it in the clear.
        response.setCookie(Cookie(name: Self.sessionCookie, value: session.token, maxAge: Int(PageSessions.lifetime), path: "/",
                                  secure: settings.tls != nil, httpOnly: true, sameSite: .strict))
        return response
    }

    /// A carer's button: checked against the session's change token, carried out by the
    /// control desk, said in the journal.
    private func act(_ request: Request, context: PageContext) async throws -> Response {
        let (session, form) = try await change(ActionForm.self, of: request, context: context)
        let kinds: [String: ControlRequest.Kind] = [
            "ack": .acknowledge, "mute": .mute, "unmute": .unmute, "wake": .wake, "pause": .pause, "resume": .resume,
            "show": .show, "clear": .clear,
        ]
        // "Play a test reminder": a message of one minute, heard as a reminder is now.
        let test = form.action == "test"
        guard let kind = test ? .show : kinds[form.action] else { return Response(status: .badRequest) }
        let reply = desk.answer(test ? ControlRequest(type: .show, text: words.testReminder, minutes: 1, speak: true)
                                     : ControlRequest(type: kind, text: form.text, minutes: form.minutes, speak: form.speak == "on"))
        let what = test ? "a test reminder" : kind == .show ? "show \"\(form.text ?? "")\"" : kind.rawValue
        log?.log(.notice, "the page: \(what) by the carer from \(context.peer ?? "?")" + (reply.error.map { " refused: \($0)" } ?? ""))
        sessions.note(session.token, reply.ok ? words.done : reply.error ?? "")
        return Self.redirect(to: test ? "/settings" : "/")
    }

    /// The written reminders, and the form (a new reminder, or the one being changed).
    private func writePage(_ session: PageSessions.Session, editing: String?, problem: String? = nil,
                           form: WrittenCalendar.Form? = nil, holdsVoice: Bool = false) -> Response {
        let kept = written?.reminders()
        let reminders = (try? kept?.get()) ?? []
        let today = ZonedTime(instant: clock.wallTime().instant, utcOffset: state.utcOffset).wallClock.date.rfc3339
        var trouble = problem
        if written == nil {
            trouble = words.noStateFolder
        } else if case .failure(let failure)? = kept {
            trouble = trouble ?? failure.description
        }
        return html(PageViews.write(words, reminders, editing: reminders.first { $0.id == editing }, form: form, today: today,
                                    holdsVoice: holdsVoice, changeToken: session.changeToken, problem: trouble,
                                    notice: sessions.takeNotice(session.token)),
                    status: problem == nil ? .ok : .badRequest)
    }

    /// A reminder written or changed (or removed) in the form: judged, kept, published as the
    /// box's calendar, said in the journal.
    private func write(_ request: Request, context: PageContext) async throws -> Response {
        let (session, form) = try await change(WriteForm.self, of: request, context: context)
        guard let written else { return writePage(session, editing: nil, problem: words.noStateFolder) }
        let peer = context.peer ?? "?"
        let now = clock.wallTime().instant
        let kept = (try? written.reminders().get()) ?? []
        let before = form.id.flatMap { id in kept.first { $0.id == id } }
        if form.remove == "on", let before {
            if let problem = written.remove(before.id, at: now) { return writePage(session, editing: nil, problem: problem) }
            log?.log(.notice, "the page: reminder \"\(before.text)\" removed by the carer from \(peer)")
            sessions.note(session.token, words.done)
            return Self.redirect(to: "/write")
        }
        let id = before?.id ?? String(PageSessions.randomToken().prefix(16))
        let recorded = form.voice == "new" ? sessions.takeRecording(of: session.token) : nil
        let recording = recorded != nil ? WrittenCalendar.recordingName(of: id)
            : form.voice == "keep" && form.dropvoice != "on" ? before?.recording : nil
        let typed = form.typed
        switch WrittenCalendar.reminder(typed, id: id, recording: recording, at: now) {
        case .failure(let refusal):
            // The voice just recorded waits for the corrected form.
            if let recorded { sessions.hold(recording: recorded, for: session.token, at: now.secondsSinceEpoch) }
            return writePage(session, editing: before?.id, problem: refusal.description, form: typed, holdsVoice: recorded != nil)
        case .success(let reminder):
            if let problem = written.keep(reminder, recorded: recorded, at: now) {
                return writePage(session, editing: before?.id, problem: problem, form: typed)
            }
            log?.log(.notice, "the page: reminder \"\(reminder.text)\" \(before == nil ? "added" : "changed") by the carer from \(peer)"
                + (recorded == nil ? "" : ", with a recorded voice"))
            sessions.note(session.token, words.kept)
            return Self.redirect(to: "/write")
        }
    }

    /// The settings as the configuration file has them (a setting not there: empty, the default).
    private func settingsPage(_ session: PageSessions.Session, problem: String? = nil, typed: [String: String]? = nil) -> Response {
        let path = settings.configurationFile
        // No file yet: the settings are the defaults, and the first change makes it.
        let text = ConfigurationEdit.text(of: path)
        var values: [String: String] = [:]
        var trouble = problem
        switch text {
        case .success(let text):
            if let found = ConfigurationEdit.settings(in: text) {
                for key in PageViews.settingKeys {
                    values[key] = found[key].map { setting in
                        if case .string(let words) = setting.value { return words }
                        return ConfigurationEdit.written(setting.value)
                    }
                }
            } else {
                trouble = trouble ?? "\(path): \(words.settingsUnreadable)"
            }
        case .failure(let failure):
            trouble = trouble ?? "\(path): \(failure.message)"
        }
        return html(PageViews.settings(words, file: path, values: typed ?? values, changeToken: session.changeToken, problem: trouble,
                                       notice: sessions.takeNotice(session.token)),
                    status: problem == nil ? .ok : .badRequest)
    }

    /// The settings form: the configuration file rewritten whole (an atomic rename) with the
    /// settings changed where they stand, judged first as `marquee run` reads it (refused with
    /// its `FILE:LINE: key: …` words, nothing written), then reloaded as `reload` does.
    private func changeSettings(_ request: Request, context: PageContext) async throws -> Response {
        let (session, form) = try await change(SettingsForm.self, of: request, context: context)
        let outcome = await changeConfiguration(by: context.peer ?? "?") { found throws(CarerRefusal) in
            PageViews.settingKeys.compactMap { key -> (key: String, value: TOMLValue?)? in
                // A setting the form did not send is left as it is; one sent empty is the default.
                guard let typed = form.fields[key]?.trimmingCharacters(in: " \t") else { return nil }
                let value: TOMLValue? = typed.isEmpty ? nil : Int(typed).map(TOMLValue.integer)
                    ?? (typed == "true" || typed == "false" ? .boolean(typed == "true") : .string(typed))
                let old = found[key].map(\.value)
                // A number kept as the file wrote it is no change.
                return value == old || (value == nil && old == nil) ? nil : (key, value)
            }
        }
        switch outcome {
        case .refused(let problem): return settingsPage(session, problem: problem, typed: form.fields)
        case .unchanged: sessions.note(session.token, words.nothingChanged)
        case .kept(let note): sessions.note(session.token, [words.settingsKept, note].compactMap { $0 }.joined(separator: " "))
        }
        return Self.redirect(to: "/settings")
    }

    /// What became of a change of the configuration file.
    private enum ConfigurationChange {
        /// Written and in use; the reload's note (keys that need a restart), if any.
        case kept(note: String?)
        case unchanged
        /// Not made, the file as it was: why, in words (`FILE:LINE: key: …` as `check` says it).
        case refused(String)
    }

    /// Changes settings of the configuration file whole-or-nothing and applies them as a reload
    /// does. `changes` says what changes, from the settings the file has; the changed text must
    /// read as `marquee run` reads it, and the display must take it, or the file stays as it
    /// was. Said in the journal with the carer's address (the keys, never their values).
    private func changeConfiguration(
        by peer: String, _ changes: ([String: ConfigurationEdit.Setting]) throws(CarerRefusal) -> [(key: String, value: TOMLValue?)]
    ) async -> ConfigurationChange {
        let path = settings.configurationFile
        let before: String
        switch ConfigurationEdit.text(of: path) {
        case .success(let text): before = text
        case .failure(let failure): return .refused("\(path): \(failure.message)")
        }
        guard let found = ConfigurationEdit.settings(in: before) else { return .refused("\(path): \(words.settingsUnreadable)") }
        let made: [(key: String, value: TOMLValue?)]
        do {
            made = try changes(found)
        } catch {
            return .refused(error.description)
        }
        guard !made.isEmpty else { return .unchanged }
        let names = made.map(\.key).joined(separator: ", ")
        if let problem = ConfigurationEdit.write(made, to: before, at: path, unreadable: words.settingsUnreadable) {
            log?.log(.warning, "the page: settings (\(names)) from \(peer) refused: \(problem)")
            return .refused(problem)
        }
        let taken = state.settingsTaken
        let reply = desk.answer(ControlRequest(type: .reload))
        guard reply.ok else {
            // What the display could not use is taken back: the file is as it was.
            _ = writeFileAtomically(Array(before.utf8), to: path)
            return .refused(reply.error ?? "")
        }
        // The page shown next shows the change in use (a subscription removed is listed no
        // more); a display slow to take it in holds the carer's answer a few seconds at most.
        _ = await state.settingsTaken(after: taken, within: .seconds(5))
        log?.log(.notice, "the page: settings changed (\(names)) by the carer from \(peer)")
        return .kept(note: reply.note)
    }

    /// Adds a calendar subscription (the address pasted on the page) to the configuration's,
    /// or removes one (named as the page shows it, secrets hidden): the address is never
    /// shown back in full, nor written to the journal.
    private func changeSubscriptions(_ request: Request, context: PageContext, adding: Bool) async throws -> Response {
        let (session, form) = try await change(SubscriptionForm.self, of: request, context: context)
        let peer = context.peer ?? "?"
        var shown = SubscriptionAddress.redacted(form.address)
        let outcome = await changeConfiguration(by: peer) { [words, settings] found throws(CarerRefusal) in
            var addresses: [String] = []
            if let setting = found["subscriptions"] {
                guard case .strings(let listed) = setting.value else {
                    throw CarerRefusal("\(settings.configurationFile):\(setting.lines.lowerBound): subscriptions: "
                        + "must be a list of addresses: [\"https://…\"]")
                }
                addresses = listed
            }
            if adding {
                guard let address = SubscriptionAddress(form.address) else {
                    throw CarerRefusal("\(shown): \(words.notAnAddress)")
                }
                shown = address.shown
                guard !addresses.contains(where: { SubscriptionAddress($0)?.key == address.key }) else {
                    throw CarerRefusal(words.subscriptionKnown)
                }
                addresses.append(address.given)
            } else {
                let kept = addresses.filter { (SubscriptionAddress($0)?.shown ?? SubscriptionAddress.redacted($0)) != form.address }
                guard kept.count < addresses.count else { throw CarerRefusal(words.subscriptionUnknown) }
                shown = form.address
                addresses = kept
            }
            return [("subscriptions", addresses.isEmpty ? nil : .strings(addresses))]
        }
        switch outcome {
        case .refused(let problem):
            log?.log(.notice, "the page: subscription \(shown) \(adding ? "added" : "removed") by the carer from \(peer) "
                + "refused: \(problem)")
            sessions.note(session.token, problem)
        case .unchanged:
            sessions.note(session.token, words.nothingChanged)
        case .kept:
            log?.log(.notice, "the page: subscription \(shown) \(adding ? "added" : "removed") by the carer from \(peer)")
            sessions.note(session.token, adding ? words.subscriptionAdded : words.subscriptionRemoved)
        }
        return Self.redirect(to: "/calendars")
    }

    /// A calendar file sent from the page (its name in `name`): judged by the schedule before
    /// it is kept, so a broken one replaces nothing; the problems come back with their lines.
    private func upload(_ request: Request, context: PageContext) async throws -> Response {
        guard let session = session(of: request) else { throw HTTPError(.unauthorized) }
        try check(request.headers[.init("X-Marquee-Token")!] ?? "", of: session, context: context)
        guard let uploaded, let schedule else { return Self.json(PageAnswer(error: words.noStateFolder), status: .badRequest) }
        let given = request.uri.queryParameters["name"].map(String.init) ?? ""
        let name: String
        switch UploadedCalendars.fileName(given) {
        case .failure(let refusal): return Self.json(PageAnswer(error: refusal.description), status: .badRequest)
        case .success(let fileName): name = fileName
        }
        let bytes = Array(buffer: try await request.body.collect(upTo: UploadedCalendars.largest))
        let peer = context.peer ?? "?"
        switch await uploaded.keep(bytes, as: name, judge: { await schedule.inspect($0, name: $1) }) {
        case .failure(let refusal):
            log?.log(.notice, "the page: calendar \"\(name)\" from \(peer) was refused: \(refusal)")
            return Self.json(PageAnswer(error: refusal.description), status: .badRequest)
        case .success(let events):
            log?.log(.notice, "the page: calendar \"\(name)\" (\(events) event(s)) uploaded by the carer from \(peer)")
            sessions.note(session.token, words.calendarKept)
            return Self.json(PageAnswer(events: events), status: .ok)
        }
    }

    /// A voice recorded in the browser (WAV, made there from what MediaRecorder or the phone's
    /// recorder gave): judged as the box plays it and held for the session's next reminder.
    private func receiveRecording(_ request: Request, context: PageContext) async throws -> Response {
        guard let session = session(of: request) else { throw HTTPError(.unauthorized) }
        try check(request.headers[.init("X-Marquee-Token")!] ?? "", of: session, context: context)
        let body = try await request.body.collect(upTo: WrittenCalendar.largestRecording)
        let bytes = Array(buffer: body)
        switch WrittenCalendar.judged(recording: bytes) {
        case .failure(let refusal):
            log?.log(.notice, "the page: a recording from \(context.peer ?? "?") was refused: \(refusal)")
            return Self.json(PageAnswer(error: refusal.description), status: .badRequest)
        case .success(let seconds):
            sessions.hold(recording: bytes, for: session.token, at: clock.wallTime().instant.secondsSinceEpoch)
            return Self.json(PageAnswer(seconds: (seconds * 10).rounded() / 10), status: .ok)
        }
    }

    /// A change's session and form: refused (401) without a session, and (403, said in the
    /// journal) without the session's change token.
    private func change<Form: ChangeForm>(_ type: Form.Type, of request: Request, context: PageContext) async throws
        -> (PageSessions.Session, Form) {
        guard let session = session(of: request) else { throw HTTPError(.unauthorized) }
        let form = try await Self.form(type, of: request, context: context)
        try check(form.token, of: session, context: context)
        return (session, form)
    }

    private func check(_ token: String, of session: PageSessions.Session, context: PageContext) throws {
        guard tokensMatch(token, session.changeToken) else {
            log?.log(.warning, "the page: a change without its token from \(context.peer ?? "?") was refused")
            throw HTTPError(.forbidden)
        }
    }

    private func session(of request: Request) -> PageSessions.Session? {
        request.cookies[Self.sessionCookie].flatMap { sessions.session($0.value, at: clock.wallTime().instant.secondsSinceEpoch) }
    }

    /// `seconds` as the display's clock shows it ("21:05").
    private func clockTime(_ seconds: Int64) -> String {
        ZonedTime(instant: Instant(secondsSinceEpoch: seconds), utcOffset: state.utcOffset).wallClock.clock()
    }

    private func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=3600"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// What the box says of a file sent to it: a recording's length, a calendar's events, or
    /// why it was refused.
    private struct PageAnswer: Encodable {
        var seconds: Double?
        var events: Int?
        var error: String?
    }

    private static func json(_ answer: PageAnswer, status: HTTPResponse.Status) -> Response {
        let text = (try? JSONEncoder().encode(answer)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }

    private static func form<Form: Decodable>(_ type: Form.Type, of request: Request, context: PageContext) async throws -> Form {
        let body = try await request.body.collect(upTo: largestForm)
        do {
            return try URLEncodedFormDecoder().decode(type, from: String(buffer: body))
        } catch {
            throw HTTPError(.badRequest)
        }
    }

    private struct LoginForm: Decodable {
        var password: String
    }

    /// The written reminder's form: a new one (no `id`), a change, or a removal.
    private struct WriteForm: ChangeForm {
        var token: String
        var id: String?
        var text: String?
        var day: String?
        var time: String?
        var repetition: String?
        var MO: String?, TU: String?, WE: String?, TH: String?, FR: String?, SA: String?, SU: String?
        var minutes: Int?
        var heard: String?
        var urgent: String?
        /// "new": the recording just made; "keep": the one it has; else none.
        var voice: String?
        var dropvoice: String?
        var remove: String?

        var typed: WrittenCalendar.Form {
            let days = zip(WrittenCalendar.weekdays, [MO, TU, WE, TH, FR, SA, SU]).filter { $0.1 == "on" }.map(\.0)
            return WrittenCalendar.Form(text: text ?? "", day: day ?? "", time: time ?? "", repetition: repetition ?? "once",
                                        weekdays: days, minutes: minutes, heard: heard == "on", urgent: urgent == "on")
        }
    }

    /// The settings form: each of `PageViews.settingKeys` sent (empty: the default).
    private struct SettingsForm: ChangeForm {
        var token: String
        var fields: [String: String] = [:]

        private struct Field: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let form = try decoder.container(keyedBy: Field.self)
            token = try form.decode(String.self, forKey: Field(stringValue: "token"))
            for key in PageViews.settingKeys {
                if let value = try form.decodeIfPresent(String.self, forKey: Field(stringValue: key)) { fields[key] = value }
            }
        }
    }

    private struct SubscriptionForm: ChangeForm {
        var token: String
        /// Pasted whole to subscribe; as the page shows it to remove.
        var address: String
    }

    private struct RemoveCalendarForm: ChangeForm {
        var token: String
        var name: String
    }

    private struct ActionForm: ChangeForm {
        var token: String
        var action: String
        var text: String?
        var minutes: Int?
        var speak: String?
    }
}

/// A form that changes something: it carries the session's change token.
private protocol ChangeForm: Decodable {
    var token: String { get }
}

/// Every request passes here first: a peer the settings do not admit is refused before
/// anything is read, and every answer carries the headers that keep it to this page.
struct PageGate: RouterMiddleware {
    typealias Context = PageContext
    let peers: PagePeers

    func handle(_ request: Request, context: PageContext, next: (Request, PageContext) async throws -> Response) async throws -> Response {
        guard peers.admits(context.peer) else {
            return Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "marquee's page answers the home network only (web_peers)\n")))
        }
        var response = try await next(request, context)
        response.headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        return response
    }
}

/// A task executor on a concurrent dispatch queue (threads of its own, grown as needed): the
/// tasks that prefer it never run on, or wait for, the cooperative pool's few threads.
final class QueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
