import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The setup a carer writes on any computer into `marquee-setup.txt` on the card's FAT
/// partition, in the form of `marquee.toml`: the Wi-Fi, the time zone, the language, the
/// calendars to subscribe to, the page's password, the quiet night. Applied at the first boot and
/// whenever the file changes: the Wi-Fi into a NetworkManager connection, the rest into the
/// configuration (written whole, judged as `marquee run` reads it) and the state folder. Then the
/// secrets (the Wi-Fi's and the page's passwords, the calendars' private addresses) are taken
/// out of the file, and lines of the box's own at its top say what was applied and what could
/// not be, with the line.
package enum BoxSetup {
    /// Where a setup is applied (the box's own places; a test's folders).
    package struct Places: Sendable {
        package var configurationFile: String
        package var stateFolder: String
        /// NetworkManager's connections (`/etc/NetworkManager/system-connections`).
        package var networkFolder: String

        package init(configurationFile: String, stateFolder: String, networkFolder: String) {
            (self.configurationFile, self.stateFolder, self.networkFolder) = (configurationFile, stateFolder, networkFolder)
        }
    }

    /// What became of a setup file.
    package struct Outcome: Sendable, Equatable {
        /// What was applied, in words (`Wi-Fi "Home"`, `1 calendar`…); empty when nothing was new.
        package var applied: [String] = []
        /// What could not be used, each `FILE:LINE: key: why`.
        package var problems: [String] = []
        /// The same as the file and the screen say them: `key: why`, without the line (the lines
        /// of the box's own written at its top move the others down).
        package var problemsSaid: [String] = []
        /// The file as it is written back (nil: left as it is).
        package var rewritten: String?
        /// The configuration's settings that changed (the display must reload them).
        package var changedSettings: [String] = []
    }

    /// The keys a setup file may hold.
    static let keys = ["wifi_name", "wifi_password", "timezone", "language", "calendar", "page_password", "quiet_night"]
    /// The start of the lines the box writes at the top of the file.
    static let said = "# marquee: "
    /// A configuration that is not `key = value` lines.
    static let unreadable = "has lines that are not `key = value`: mend it with `marquee check`"
    /// In the state folder: what the last setup could not use, one per line (the display shows
    /// them among the box's problems).
    package static let problemsFile = "setup-problems"
    /// The NetworkManager connection the Wi-Fi is kept in: its file, and its name to `nmcli`.
    package static let wifiConnection = "marquee-wifi.nmconnection"
    package static let wifiConnectionID = "marquee-wifi"
    /// In the state folder: why the Wi-Fi could not be joined, as `marquee setup --join-wifi`
    /// last found it — the network's name, the key, and why, one per line (none: joined, or not
    /// tried yet). The setup says it in the file and on the screen while that network is the box's.
    static let wifiNotJoinedFile = "wifi-not-joined"

    /// The settings a setup file holds, each with its lines (from 1, the end exclusive), and
    /// what could not be used, in the order found.
    struct Found {
        let path: String
        var settings: [String: (value: TOMLValue, lines: Range<Int>)] = [:]
        /// What could not be used: where (the line, 0: not a line of the file), what (a key, a
        /// line's text, another file) and why.
        var problems: [(line: Int, subject: String, why: String)] = []
        /// The secrets in effect on the box now: only these are taken out of the file (one
        /// that could not be applied stays, never lost).
        var secretsInEffect: Set<String> = []

        /// Says why `key` cannot be used, at its line, and forgets it (a refused secret stays in
        /// the file for the carer to mend).
        mutating func refuse(_ key: String, _ why: String) {
            problems.append((settings[key]?.lines.lowerBound ?? 0, key, why))
            settings[key] = nil
        }

        /// `key`'s text, if the file has it in quotes.
        mutating func string(_ key: String) -> String? {
            guard let value = settings[key]?.value else { return nil }
            guard case .string(let text) = value else {
                refuse(key, "must be written in quotes")
                return nil
            }
            return text
        }
    }

    /// Reads `text` as `key = value` lines, each mistake said with its line.
    static func read(_ text: String, path: String) -> Found {
        var found = Found(path: path)
        var scanner = TOMLScanner(Substring(text))
        while true {
            scanner.skipSpaces()
            if scanner.atEnd { break }
            if scanner.takeLineEnd() { continue }
            let first = scanner.line
            let key = scanner.bareKey()
            scanner.skipSpaces()
            guard !key.isEmpty, scanner.take("=") else {
                let line = text.split(separator: "\n", omittingEmptySubsequences: false)[first - 1]
                found.problems.append((first, "\"\(String(line.prefix(40)).withControlCharactersEscaped)\"",
                                       "expected `key = value` (a line such as timezone = \"Europe/Berlin\")"))
                scanner.skipLine()
                continue
            }
            scanner.skipSpaces()
            do throws(TOMLError) {
                let value = try scanner.value()
                scanner.skipSpaces()
                let ended = scanner.atEnd
                if !ended, !scanner.takeLineEnd() { throw TOMLError("unexpected text after the value") }
                guard keys.contains(key) else {
                    found.problems.append((first, key, "not a setting of this file (it knows \(keys.joined(separator: ", ")))"))
                    continue
                }
                found.settings[key] = (value, first..<(ended ? scanner.line + 1 : scanner.line))
            } catch {
                found.problems.append((first, key, error.message))
                scanner.skipLine()
            }
        }
        return found
    }

    /// Applies `text` (read from `path`) to `places` on `day` (`2026-11-29`, said in the file).
    package static func apply(_ text: String, path: String, to places: Places, day: String) -> Outcome {
        var outcome = Outcome()
        var found = read(text, path: path)
        var changes = configurationChanges(&found)
        // The calendars are added to those the box has (the carer may have added some on the page).
        var calendars: [String] = []
        if let value = found.settings["calendar"]?.value {
            switch value {
            case .string(let one): calendars = [one]
            case .strings(let many): calendars = many
            default: found.refuse("calendar", "must be an address in quotes, or a list of them: [\"https://…\", \"webcal://…\"]")
            }
            if let wrong = calendars.first(where: { SubscriptionAddress($0) == nil }) {
                found.refuse("calendar", "\(SubscriptionAddress.redacted(wrong)) is not an https://, http:// or webcal:// address")
                calendars = []
            }
        }
        let before: String
        switch ConfigurationEdit.text(of: places.configurationFile) {
        case .success(let text): before = text
        case .failure(let failure):
            found.problems.append((0, places.configurationFile, failure.message))
            return finish(outcome, text: text, found: found, day: day)
        }
        guard let settings = ConfigurationEdit.settings(in: before) else {
            found.problems.append((0, places.configurationFile, unreadable))
            return finish(outcome, text: text, found: found, day: day)
        }
        if !calendars.isEmpty {
            var known: [String] = []
            if case .strings(let listed)? = settings["subscriptions"]?.value { known = listed }
            let new = calendars.compactMap(SubscriptionAddress.init).filter { address in
                !known.contains { SubscriptionAddress($0)?.key == address.key }
            }
            if new.isEmpty {
                found.secretsInEffect.insert("calendar")
            } else {
                changes.append(("subscriptions", .strings(known + new.map(\.given)), new.count == 1 ? "1 calendar" : "\(new.count) calendars"))
            }
        }
        // What the configuration has already is no change (a second run, woken by the file written back).
        changes = changes.filter { change in settings[change.key]?.value != change.value }
        if !changes.isEmpty {
            // Written by root, it stays the service's to read (and the page's to write).
            if let problem = ConfigurationEdit.write(changes.map { ($0.key, $0.value) }, to: before, at: places.configurationFile,
                                                     unreadable: unreadable) {
                found.problems.append((0, "", problem))
            } else {
                outcome.changedSettings = changes.map(\.key)
                outcome.applied += changes.compactMap(\.said)
                if changes.contains(where: { $0.key == "subscriptions" }) { found.secretsInEffect.insert("calendar") }
            }
        }
        if let password = found.string("page_password") {
            if let refusal = PagePassword.refusal(of: password) {
                found.refuse("page_password", refusal)
            } else if let problem = PagePassword.keep(password, inStateFolder: places.stateFolder) {
                found.refuse("page_password", problem)
            } else {
                outcome.applied.append("the page's password")
                found.secretsInEffect.insert("page_password")
            }
        }
        applyWifi(&outcome, &found, places: places)
        if let (key, why) = wifiNotJoined(places) { found.problems.append((0, key, why)) }
        return finish(outcome, text: text, found: found, day: day)
    }

    /// The network the box's Wi-Fi connection joins (nil: there is none).
    package static func wifiName(in places: Places) -> String? {
        guard let kept = try? readFile(places.networkFolder + "/" + wifiConnection, limit: 1 << 16).get() else { return nil }
        return String(decoding: kept, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("ssid=") }.map { String($0.dropFirst(5)) }
    }

    /// Keeps why `network` was not joined (nil: it was), for the setup to say; why that could
    /// not be kept.
    package static func keepJoinVerdict(_ problem: WifiProblem?, network: String, in places: Places) -> String? {
        let path = places.stateFolder + "/" + wifiNotJoinedFile
        guard let problem else {
            unlink(path)
            return nil
        }
        return writeFileAtomically(Array("\(network)\n\(problem.key)\n\(problem.why)\n".utf8), to: path, ownedLikeItsFolder: true)
            .map { "\(path): \($0)" }
    }

    /// Why the box's Wi-Fi was not joined when last tried (nil: joined, not tried, or the
    /// connection changed since).
    static func wifiNotJoined(_ places: Places) -> (key: String, why: String)? {
        guard let kept = try? readFile(places.stateFolder + "/" + wifiNotJoinedFile, limit: 1 << 12).get() else { return nil }
        let lines = String(decoding: kept, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, lines[0] == wifiName(in: places), keys.contains(lines[1]) else { return nil }
        return (lines[1], lines[2])
    }

    /// What stood in the way of joining the Wi-Fi: the setting the carer must mend and why, in
    /// plain words.
    package struct WifiProblem: Sendable, Equatable {
        package var key: String
        package var why: String
        /// It may pass by itself in a moment: NetworkManager still starting, the Wi-Fi device
        /// not there yet (its firmware loading at boot). Asked again before it is said.
        package var passing = false
    }

    /// What stood in the way of joining `network`, from what `nmcli connection up` answered
    /// (its exit status, 127 when there is no nmcli, and its words in the C locale); nil when
    /// it was joined.
    package static func joinProblem(network: String, status: Int32, said: String) -> WifiProblem? {
        if status == 0 { return nil }
        let name = "\"\(network)\""
        if said.contains("Secrets were required") || said.contains("802-11-wireless-security.psk") {
            return WifiProblem(key: "wifi_password", why: "\(name) did not accept the password: write it again (wifi_password = \"…\")")
        }
        if said.contains("could not be found") || said.contains("No network with SSID") || said.contains("access point not found") {
            return WifiProblem(key: "wifi_name", why: "no network called \(name) is in reach of the box (write its name as a phone shows it)")
        }
        if status == 127 {
            return WifiProblem(key: "wifi_name", why: "NetworkManager is not on this box: the Wi-Fi cannot be joined")
        }
        if status == 8 {
            return WifiProblem(key: "wifi_name", why: "NetworkManager does not run: the Wi-Fi cannot be joined", passing: true)
        }
        if said.contains("No suitable device") || said.contains("not available because") {
            return WifiProblem(key: "wifi_name", why: "the box has no Wi-Fi to join \(name) with (switched off, or none in it)", passing: true)
        }
        if said.contains("IP configuration could not be reserved") {
            return WifiProblem(key: "wifi_name", why: "\(name) was joined but gave the box no address")
        }
        if status == 3 { return WifiProblem(key: "wifi_name", why: "\(name) was not joined in time") }
        let reason = said.split(separator: "\n").first { $0.hasPrefix("Error: ") }.map { String($0.dropFirst(7)) } ?? "exit status \(status)"
        return WifiProblem(key: "wifi_name", why: "\(name) was not joined (\(reason.withControlCharactersEscaped))")
    }

    /// A change of the configuration: its key, its value, and what it is in words (nil: said
    /// with another).
    typealias Change = (key: String, value: TOMLValue?, said: String?)

    /// The configuration's settings the setup changes (time zone, language, quiet night), each
    /// judged as `marquee run` reads it; a value that cannot be used is refused with its line.
    private static func configurationChanges(_ found: inout Found) -> [Change] {
        var changes: [Change] = []
        for (key, words) in [("timezone", "the time zone"), ("language", "the language")] {
            guard let text = found.string(key) else { continue }
            var scratch = ConfigurationFile()
            do {
                try ConfigurationKey.named(key)!.read(.string(text), &scratch)
                changes.append((key, .string(text), "\(words) \(text)"))
            } catch {
                found.refuse(key, error.message)
            }
        }
        if let night = found.string("quiet_night") {
            let ends = night.split(separator: "-").map { String($0).trimmingCharacters(in: " ") }
            var scratch = ConfigurationFile()
            if ends.count == 2, (try? ConfigurationKey.named("night")!.read(.string(ends[0]), &scratch)) != nil,
               (try? ConfigurationKey.named("morning")!.read(.string(ends[1]), &scratch)) != nil {
                changes += [("night", .string(ends[0]), "the quiet night \(ends[0])–\(ends[1])"), ("morning", .string(ends[1]), nil)]
            } else {
                found.refuse("quiet_night", "must be the hours of the night, such as \"22:00-07:00\"")
            }
        }
        return changes
    }

    /// The Wi-Fi as a NetworkManager connection (readable by root alone: it holds the password).
    private static func applyWifi(_ outcome: inout Outcome, _ found: inout Found, places: Places) {
        guard let name = found.string("wifi_name") else {
            if found.settings["wifi_password"] != nil { found.refuse("wifi_password", "needs wifi_name, the name of the network") }
            return
        }
        let password = found.string("wifi_password")
        guard !name.isEmpty, name.utf8.count <= 32, !name.contains(where: { $0.isNewline || $0 == "\\" }) else {
            found.refuse("wifi_name", "must be the network's name as the phone shows it (1 to 32 characters)")
            return
        }
        if let password, !(8...63).contains(password.count) || password.contains(where: \.isNewline) {
            found.refuse("wifi_password", "a Wi-Fi password (WPA2) has 8 to 63 characters")
            return
        }
        // A second run with only the name left in the file keeps the password the first one wrote.
        let path = places.networkFolder + "/" + wifiConnection
        if password == nil, wifiName(in: places) == name { return }
        var keyfile = "[connection]\nid=\(wifiConnectionID)\ntype=wifi\nautoconnect=true\n\n[wifi]\nmode=infrastructure\nssid=\(name)\n\n"
        if let password { keyfile += "[wifi-security]\nkey-mgmt=wpa-psk\npsk=\(password)\n\n" }
        keyfile += "[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n"
        // Made with its parents (NetworkManager may come after the setup: it reads them then).
        var made = ""
        for part in places.networkFolder.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o755) != 0, errno != EEXIST {
                found.refuse("wifi_name", "\(places.networkFolder) cannot be made (\(String(cString: strerror(errno))))")
                return
            }
        }
        let old = umask(0o077)
        defer { umask(old) }
        if let problem = writeFileAtomically(Array(keyfile.utf8), to: path) {
            found.refuse("wifi_name", "\(path): \(problem)")
            return
        }
        chmod(path, 0o600)
        // Not yet tried: `marquee setup --join-wifi` says whether it is joined.
        _ = keepJoinVerdict(nil, network: name, in: places)
        if password != nil { found.secretsInEffect.insert("wifi_password") }
        outcome.applied.append("Wi-Fi \"\(name)\"")
    }

    /// The file written back: the secrets applied taken out (a comment says so), the lines of
    /// the box's own at the top saying what was applied and what was not. Left as it is when
    /// nothing is new (so writing it back, which wakes the setup again, ends there).
    private static func finish(_ result: Outcome, text: String, found: Found, day: String) -> Outcome {
        var outcome = result
        // A problem that is no line's names its subject (another file), or says it all.
        let worded = found.problems.map { $0.subject.isEmpty ? $0.why : "\($0.subject): \($0.why)" }
        outcome.problems = zip(found.problems, worded).map { ($0.line == 0 ? "" : "\(found.path):\($0.line): ") + $1 }
        outcome.problemsSaid = worded
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let oldSaid = lines.prefix { $0.hasPrefix(said) }
        var removed = false
        for (key, setting) in found.settings.sorted(by: { $0.value.lines.lowerBound > $1.value.lines.lowerBound })
        where found.secretsInEffect.contains(key) {
            lines.replaceSubrange((setting.lines.lowerBound - 1)..<min(lines.count, setting.lines.upperBound - 1),
                                  with: ["# \(key): applied on \(day) and taken out of this file"])
            removed = true
        }
        lines.removeFirst(oldSaid.count)
        let oldApplied = oldSaid.filter { $0.hasPrefix(said + "applied") }
        let oldProblems = oldSaid.filter { !$0.hasPrefix(said + "applied") }
        let problems = outcome.problemsSaid.map { "\(said)not used: \($0)" }
        guard removed || !outcome.applied.isEmpty || problems != oldProblems else { return outcome }
        let applied = outcome.applied.isEmpty ? oldApplied : ["\(said)applied on \(day): " + outcome.applied.joined(separator: ", ")]
        outcome.rewritten = (applied + problems + lines).joined(separator: "\n") + "\n"
        return outcome
    }
}
