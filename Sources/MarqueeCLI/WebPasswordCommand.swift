import ArgumentParser
import Daemon
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// `marquee web-password`: sets the carer's page password. It is read from standard input (not
/// echoed on a terminal) and only its Argon2id hash is kept, in the configuration's state
/// folder, readable by the service; a running marquee serves the page within seconds.
struct WebPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-password",
        abstract: "Set the password of the carer's page (read from standard input; only its hash is kept).")

    @OptionGroup var stateFolder: StateFolderOptions

    func run() throws {
        let file = try stateFolder.configuration()
        let folder = try stateFolder.folder(for: "web-password", file: file)
        let password = readPassword()
        if let refusal = PagePassword.refusal(of: password) {
            standardError("marquee web-password: \(refusal); nothing was changed")
            throw ExitCode(1)
        }
        if let problem = PagePassword.keep(password, inStateFolder: folder) {
            standardError("marquee web-password: \(problem)")
            throw ExitCode(1)
        }
        let listen = file.webListen ?? ConfigurationKey.defaultListen
        print(listen == "off"
            ? "The password is set, but the page is off (web_listen = \"off\" in the configuration)."
            : "The password is set. The page is at \(file.webTLS == "off" ? "http" : "https")://THIS-BOX:"
                + "\(listen.split(separator: ":").last ?? "8080")/ (a running marquee serves it within seconds; `marquee status` "
                + "says where" + (file.webTLS == "off" || file.webCertificate != nil ? ")." : ", and the fingerprint of the box's "
                    + "own certificate, which the browser warns of once: compare the two before you go on)."))
    }

    /// One line of standard input, without its line ending; not echoed when it is a terminal.
    private func readPassword() -> String {
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            let prompt = Array("Password for the carer's page (at least \(PagePassword.shortest) characters): ".utf8)
            _ = prompt.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                standardError("")
            }
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
