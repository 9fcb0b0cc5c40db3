import ArgumentParser
import Daemon
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee setup`: applies the setup file a carer wrote on the card's FAT partition
/// (`marquee-setup.txt`: Wi-Fi, time zone, language, calendars, the page's password, the quiet
/// night) — run by `marquee-setup.service` at boot and whenever the file changes. Writes the file
/// back without its secrets and with what was applied; what could not be used is said there, on
/// standard error, and on the screen (the state folder's `setup-problems`, shown by the display
/// as a problem of the box). The display is restarted when something changed.
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Apply the setup file written on the card (marquee-setup.txt): Wi-Fi, time zone, language, calendars, page password.")

    /// Where the card's FAT partition is mounted: a Raspberry Pi's firmware, a PC's EFI partition.
    static let defaultFiles = ["/boot/firmware/marquee-setup.txt", "/boot/efi/marquee-setup.txt"]

    @Option(name: .long, help: "The setup file (default: marquee-setup.txt on /boot/firmware or /boot/efi).")
    var file: String?

    @OptionGroup var stateFolder: StateFolderOptions

    @Option(name: .long, help: "NetworkManager's connections folder.")
    var networkFolder = "/etc/NetworkManager/system-connections"

    @Flag(name: .long, help: "Restart marquee.service when something changed (as the setup service does).")
    var restartDisplay = false

    @Flag(name: .long, help: "First join the Wi-Fi through NetworkManager (a device or NetworkManager not there yet waited for up to 2 minutes); what stood in the way is said as the setup's problems (as marquee-wifi.service does).")
    var joinWifi = false

    /// NetworkManager's command line: it is asked in the C locale (its words are read).
    static let networkManager = "/usr/bin/nmcli"

    func run() throws {
        guard let path = file ?? Self.defaultFiles.first(where: { access($0, F_OK) == 0 }) else {
            print("marquee setup: no setup file (\(Self.defaultFiles.joined(separator: " or "))); nothing to apply")
            return
        }
        let text: String
        switch readFile(path, limit: 1 << 16) {
        case .success(let bytes): text = String(decoding: bytes, as: UTF8.self)
        case .failure(let failure):
            standardError("marquee setup: \(path): \(failure.message)")
            throw ExitCode(1)
        }
        let file = try stateFolder.configuration()
        let folder = try stateFolder.folder(for: "setup", file: file)
        let places = BoxSetup.Places(configurationFile: stateFolder.config ?? defaultConfiguration, stateFolder: folder,
                                     networkFolder: networkFolder)
        if joinWifi { Self.join(places) }
        let outcome = BoxSetup.apply(text, path: path, to: places, day: Self.today())
        if let rewritten = outcome.rewritten, let problem = writeFileAtomically(Array(rewritten.utf8), to: path) {
            standardError("marquee setup: \(path): cannot be written back (\(problem)); its secrets are still in it")
        }
        // The display shows these among the box's problems from its next start.
        let problems = folder + "/" + BoxSetup.problemsFile
        let said = outcome.problemsSaid.isEmpty ? [] : Array((outcome.problemsSaid.joined(separator: "\n") + "\n").utf8)
        let before = (try? readFile(problems, limit: 1 << 16).get()) ?? []
        if said != before {
            if said.isEmpty { unlink(problems) } else { _ = writeFileAtomically(said, to: problems, ownedLikeItsFolder: true) }
        }
        print(outcome.applied.isEmpty ? "marquee setup: nothing new in \(path)" : "marquee setup: applied " + outcome.applied.joined(separator: ", "))
        for problem in outcome.problems { standardError("marquee setup: not used: \(problem)") }
        // A running NetworkManager reads a connection written beside it only when told (at boot the
        // setup comes first, and NetworkManager reads it as it starts).
        if outcome.applied.contains(where: { $0.hasPrefix("Wi-Fi") }) {
            if access(Self.networkManager, X_OK) == 0,
               runProgram("/bin/systemctl", ["is-active", "--quiet", "NetworkManager.service"]).status == 0 {
                let reloaded = runProgram(Self.networkManager, ["connection", "reload"])
                if reloaded.status != 0 { standardError("marquee setup: nmcli connection reload: \(reloaded.errors)") }
            }
            // Joined (or not) by a service of its own: that may take a minute, and the display
            // waits for this one at boot.
            if restartDisplay {
                let started = runProgram("/bin/systemctl", ["--no-block", "restart", "marquee-wifi.service"])
                if started.status != 0 { standardError("marquee setup: systemctl restart marquee-wifi.service: \(started.errors)") }
            }
        }
        if restartDisplay, !outcome.applied.isEmpty || said != before {
            // Not waited for: the setup service is ordered before the display, whose restart
            // would wait for the setup to end.
            let restarted = runProgram("/bin/systemctl", ["--no-block", "try-restart", "marquee.service"])
            if restarted.status != 0 { standardError("marquee setup: systemctl try-restart marquee.service: \(restarted.errors)") }
        }
        if !outcome.problems.isEmpty { throw ExitCode(1) }
    }

    /// Asks NetworkManager to join the box's Wi-Fi (unless it is joined, or joining: at boot
    /// NetworkManager does it by itself) and keeps what stood in the way in the state folder, for
    /// the setup to say in the file and on the screen. A device not there yet is waited for.
    static func join(_ places: BoxSetup.Places) {
        guard let network = BoxSetup.wifiName(in: places) else {
            _ = BoxSetup.keepJoinVerdict(nil, network: "", in: places)
            return
        }
        let connection = places.networkFolder + "/" + BoxSetup.wifiConnection
        let id = BoxSetup.wifiConnectionID
        // On the monotonic clock: the wall clock may be set meanwhile (the network's time, at boot).
        let seconds = { readClock(CLOCK_MONOTONIC) / 1_000_000_000 }
        let deadline = seconds() + 120
        var answer: (status: Int32, output: String, errors: String) = (127, "", "")
        var problem: BoxSetup.WifiProblem?
        repeat {
            if access(networkManager, X_OK) == 0 {
                let shown = runProgram(networkManager, ["-g", "GENERAL.STATE", "connection", "show", "id", id])
                switch shown.status == 0 ? shown.output.trimmingCharacters(in: " \n") : "" {
                case "activated":
                    answer = (0, "", "")
                case "activating":
                    problem = BoxSetup.joinProblem(network: network, status: 3, said: "")
                    sleep(1)
                    continue
                default:
                    _ = runProgram(networkManager, ["connection", "load", connection])
                    answer = runProgram(networkManager, ["--wait", "90", "connection", "up", "id", id])
                }
            }
            problem = BoxSetup.joinProblem(network: network, status: answer.status, said: answer.output + answer.errors)
            guard problem?.passing == true, seconds() + 5 < deadline else { break }
            sleep(5)
        } while seconds() < deadline
        if let problem {
            standardError("marquee setup: the Wi-Fi \"\(network)\" is not joined: \(problem.why)")
        } else {
            print("marquee setup: joined the Wi-Fi \"\(network)\"")
        }
        if let failure = BoxSetup.keepJoinVerdict(problem, network: network, in: places) {
            standardError("marquee setup: \(failure)")
        }
    }

    /// Today on the machine's clock, in its zone (`2026-11-29`), as the file says when it was applied.
    static func today() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}
