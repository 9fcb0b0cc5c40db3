import ArgumentParser
import Daemon
import Support

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The option naming the running display's socket.
struct SocketOption: ParsableArguments {
    @Option(name: .long, help: "The running display's status socket (default: \(ControlSocket.systemPath), else $XDG_RUNTIME_DIR/marquee.sock, else /tmp/marquee-UID/marquee.sock).")
    var socket: String?

    /// The socket named, or where `marquee run` puts it.
    var path: String { socket ?? ControlSocket.pathForAsking(environment: environment()) }
}

/// Sends one request to the running display and returns its reply; a clear message and
/// exit 1 when nobody answers.
func ask(_ request: ControlRequest, socketPath: String) throws -> ControlReply {
    let connection: ControlConnection
    do {
        connection = try ControlConnection(path: socketPath)
    } catch .pathTooLong {
        throw ValidationError("socket path too long: \(socketPath)")
    } catch .cannotConnect(let code) {
        if code == EACCES {
            var info = stat()
            let group = stat(socketPath, &info) == 0 ? groupName(info.st_gid) : nil
            standardError("marquee: not allowed to use \(socketPath) (permission denied): it is for root and the members "
                + "of the group \(group ?? "of the socket") (sudo adduser $USER \(group ?? "GROUP"), then log in again)")
            throw ExitCode(1)
        }
        var info = stat()
        if stat(socketPath, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
            throw notRunning(socketPath, reason: "it is not a socket")
        }
        throw notRunning(socketPath, reason: String(cString: strerror(code)))
    }
    return try exchange(request, over: connection, socketPath: socketPath)
}

/// Sends one request on `connection` and returns the reply; a clear message and exit 1 when
/// none comes in time.
func exchange(_ request: ControlRequest, over connection: ControlConnection, socketPath: String) throws -> ControlReply {
    connection.send(Array(try JSONEncoder().encode(request)) + [0x0A])
    let line = connection.readLine(timeout: 3)
    guard let decoded = try? JSONDecoder().decode(ControlReply.self, from: Data(line)) else {
        // Connected, so it runs: too busy to answer in time, or it ended while answering.
        standardError("marquee did not answer on \(socketPath) in time (\(line.isEmpty ? "busy" : "an incomplete answer")); try again")
        throw ExitCode(1)
    }
    return decoded
}

private func notRunning(_ path: String, reason: String) -> ExitCode {
    standardError("marquee is not running: nothing answers on \(path) (\(reason))")
    return ExitCode(1)
}

/// A refused request: its reason on stderr, exit 1.
private func requireOK(_ reply: ControlReply) throws {
    guard reply.ok else {
        standardError("marquee: \(reply.error ?? "refused")")
        throw ExitCode(1)
    }
}

/// `marquee status`: what the running display shows.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what the running display shows.")

    @OptionGroup var socketOption: SocketOption

    @Flag(name: .long, help: "The raw reply: one JSON object.")
    var json = false

    func run() throws {
        let reply = try ask(ControlRequest(type: .status), socketPath: socketOption.path)
        try requireOK(reply)
        guard let status = reply.status else { return }
        if json {
            print(try jsonLine(status))
            return
        }
        let motion = status.paused ? "paused" : status.moving ? "moving" : "still"
        say("marquee on \(status.output): \(motion), \(status.framesPerSecond) frames/s, up \(status.uptimeSeconds) s")
        say("showing:")
        if status.messages.isEmpty {
            for text in status.showing { say("  \(text)  (nothing scheduled)") }
        }
        for message in status.messages {
            let place = status.screen?.state == .dark ? "the screen is dark"
                : status.onScreen.contains(message.text) ? "on screen now" : "next on the band"
            say("  \(message.text)  (\(place))")
            say("      \(message.kind) until \(message.end) · \(message.source)")
        }
        if let more = status.messagesNotListed { say("  … and \(more) more active messages") }
        if let orientation = status.orientation { say("orientation: \(orientation)") }
        for problem in status.boxProblems { say("problem: \(problem)") }
        for part in status.parts where part.state != .running {
            say("part not running: \(part.name): \(part.state.rawValue)" + (part.lastError.map { " (\($0))" } ?? ""))
        }
        if let cache = status.glyphCache {
            func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
            let found = cache.lookups == 0 ? 1 : Double(cache.found) / Double(cache.lookups)
            say("glyph cache: \(tenths(Double(cache.bytes) / 1_048_576)) MB of \(tenths(Double(cache.budget) / 1_048_576)) MB, "
                + "\(tenths(found * 100)) % of look-ups found")
        }
        if let flips = status.pageFlips {
            say("page flips: \(flips.shown) frames shown, \(flips.missedVblanks) vertical blanks missed")
        }
        if let mqtt = status.mqtt {
            let state = mqtt.connected ? "connected since \(mqtt.connectedSince ?? "?")"
                : mqtt.connecting ? "connecting" : "not connected"
            say("mqtt: \(state) to \(mqtt.broker)" + (mqtt.lastError.map { "; last error: \($0)" } ?? ""))
        }
        if let screen = status.screen { say("screen: \(screen.summary)") }
        if let television = status.television { say("television: \(television.summary)") }
        if let page = status.page {
            say("page: " + (page.address.map { "\(page.scheme ?? "http")://\($0)/ (\(page.peers == "home" ? "the home network only" : "any address")"
                + (page.certificate.map { "; certificate SHA-256 \($0)" } ?? "") + ")" }
                ?? "not served: \(page.problem ?? "starting")"))
        }
        if let sound = status.sound {
            let heard = sound.speak == "off" ? "off" : sound.muted ? "muted" : "on (\(sound.speak))"
            say("reminders heard: \(heard), on \(sound.device)" + (sound.problem.map { "; problem: \($0)" } ?? ""))
            if let voice = sound.voice {
                say("voice: \(voice.chosen); the last reminder spoken by \(voice.spoke)"
                    + (voice.whyNotChosen.map { " (\($0))" } ?? ""))
            }
            if let today = sound.today { say("reminders today: \(today.summary)") }
            for reminder in sound.reminders {
                let times = reminder.soundings > 1 ? ", sounded \(reminder.soundings) times" : ""
                say("  \(reminder.trigger)  \(reminder.text): \(reminder.outcome) at \(reminder.at)\(times)")
            }
            if let missed = sound.lastMissed, !sound.reminders.contains(missed) {
                say("  last missed: \(missed.text) (\(missed.trigger)), \(missed.outcome)")
            }
        }
        say("next change: \(status.nextChange ?? "none")")
        say("feeds:")
        for feed in status.feeds {
            let kept = feed.state == "error" ? (feed.lastGoodKept ? ", last good version kept" : ", nothing earlier to keep") : ""
            say("  \(feed.path): \(feed.state)\(kept), \(feed.events) event(s)")
            for problem in feed.problems { say("    \(problem)") }
        }
        if let more = status.feedsNotListed { say("  … and \(more) more feed files") }
        if !status.subscriptions.isEmpty { say("subscriptions:") }
        for subscription in status.subscriptions {
            let events = subscription.events.map { ", \($0) event(s)" } ?? ""
            let http = subscription.httpStatus.map { ", HTTP \($0)" } ?? ""
            say("  \(subscription.address): " + (subscription.error == nil ? "ok" : "error") + http + events)
            if let error = subscription.error { say("    \(error)") }
            say("    last success \(subscription.lastSuccess ?? "never"), last attempt \(subscription.lastAttempt ?? "never"), "
                + "next \(subscription.nextAttempt ?? "now")")
        }
    }
}

/// `marquee pause`: stops all motion on the display (the carer's WCAG 2.2.2 control).
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Stop the motion on the display.")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .pause), socketPath: socketOption.path))
    }
}

/// `marquee reload`: the running display reads its configuration and feeds again (as
/// `systemctl reload marquee`); a configuration that cannot be used is said, and nothing
/// changes.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload", abstract: "Read the configuration and the feeds again.")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        let reply = try ask(ControlRequest(type: .reload), socketPath: socketOption.path)
        try requireOK(reply)
        if let note = reply.note { say(note) }
    }
}

/// `marquee resume`: lets the display move again.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Let the display move again.")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .resume), socketPath: socketOption.path))
    }
}

/// `marquee ack`: the reminder sounding now was heard; its repeats stop.
struct AcknowledgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ack", abstract: "Acknowledge the reminder sounding now: its repeats stop.")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .acknowledge), socketPath: socketOption.path))
    }
}

/// `marquee mute`: no reminder is heard until `marquee unmute`; the screen is unchanged.
struct MuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mute", abstract: "Silence the reminders until unmuted (they are still shown).")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .mute), socketPath: socketOption.path))
    }
}

/// `marquee unmute`: reminders are heard again.
struct UnmuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unmute", abstract: "Hear the reminders again.")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .unmute), socketPath: socketOption.path))
    }
}

/// `marquee wake`: the television on and to marquee's input now, over HDMI-CEC.
struct WakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake", abstract: "Turn the television on and to marquee's input (HDMI-CEC).")

    @OptionGroup var socketOption: SocketOption

    func run() throws {
        try requireOK(try ask(ControlRequest(type: .wake), socketPath: socketOption.path))
    }
}

/// `marquee show "text"`: a message sent now, shown at once (typed into the announcement box,
/// then on the tape) for its minutes, as one sent from Home Assistant; `--clear` takes it off.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show a message now, for a while (as one sent from Home Assistant).")

    @Argument(help: "The message (one line, at most 255 characters).")
    var text: String?

    @Option(name: .long, help: "For how many minutes (1 to 1440; default 60).")
    var minutes: Int?

    @Option(name: .long, help: "Its colour: a CSS name or #rrggbb.")
    var colour: String?

    @Flag(name: .long, help: "Heard as a reminder is: the chime, then the words.")
    var speak = false

    @Flag(name: .long, help: "Take the message sent now off the screen.")
    var clear = false

    @OptionGroup var socketOption: SocketOption

    func validate() throws {
        if clear, text != nil || minutes != nil || colour != nil || speak {
            throw ValidationError("--clear takes nothing else")
        }
        if !clear, text == nil { throw ValidationError("say what to show, or --clear") }
    }

    func run() throws {
        let request = clear ? ControlRequest(type: .clear)
            : ControlRequest(type: .show, text: text, minutes: minutes, colour: colour, speak: speak ? true : nil)
        try requireOK(try ask(request, socketPath: socketOption.path))
    }
}
