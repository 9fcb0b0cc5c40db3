import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The Linux virtual console marquee draws on: switched to graphics mode so the console
/// stops painting its text and cursor over the ticker, and asked to let marquee agree to
/// console switches (VT_PROCESS), so nothing is drawn while another console is shown and
/// everything is drawn again when it comes back. Given back in text mode on every exit.
package final class VirtualConsole {
    private let fd: Int32
    /// This console's number (tty1 is 1).
    package let number: Int
    /// False while another console is shown.
    private(set) var isShown = true

    /// The console on `fd`, or nil if it is not a Linux virtual console.
    package init?(fd: Int32) {
        let number = Int(mq_console_number(fd))
        guard number > 0, mq_is_linux_console(fd) == 1 else { return nil }
        self.fd = fd
        self.number = number
    }

    /// Whether the kernel will let marquee set this console's mode, and why: it is the
    /// controlling terminal of marquee's session (as under the unit's `TTYPath=` with
    /// `StandardInput=tty-force`, or a login on it), or marquee is root. The kernel checks
    /// exactly this (`current->signal->tty == tty`, else CAP_SYS_TTY_CONFIG).
    package var ownership: Ownership {
        if geteuid() == 0 { return .root }
        let session = getsid(0)
        let owner = tcgetsid(fd)
        if owner >= 0, owner == session { return .controllingTerminal }
        return .notOurs(owner < 0 ? "tty\(number) is not the controlling terminal of marquee's session"
                                  : "tty\(number) belongs to session \(owner), marquee runs in session \(session)")
    }

    /// Whether marquee may put this console in graphics mode (see `ownership`).
    package enum Ownership: Equatable, Sendable {
        case root, controllingTerminal
        /// Not allowed, with the reason.
        case notOurs(String)
    }

    /// Graphics mode and switch requests by SIGUSR2. Fails when marquee may not (the console
    /// is not its controlling terminal and it lacks CAP_SYS_TTY_CONFIG).
    package func takeOver() throws(FramebufferError) {
        guard mq_console_set_graphics(fd, 1) == 0 else {
            throw FramebufferError(description: "tty\(number): cannot switch to graphics mode: \(String(cString: strerror(errno)))")
        }
        guard mq_console_process_switching(fd, SIGUSR2) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = mq_console_set_graphics(fd, 0)
            throw FramebufferError(description: "tty\(number): cannot take console switching: \(reason)")
        }
        isShown = Int(mq_console_active(fd)) == number
    }

    /// Answers a switch request (SIGUSR2): while shown it is a request to switch away, which
    /// is let go ahead (the console is still the active one until then); while hidden it is
    /// the console coming back, which is acknowledged. True when it was just given back
    /// (draw everything again).
    func answerSwitch() -> Bool {
        if isShown {
            if mq_console_release(fd, 1) == 0 { isShown = false }
            return false
        }
        _ = mq_console_release(fd, 2)
        isShown = true
        return true
    }

    /// Text mode and automatic switching again: the console repaints its own text.
    package func giveBack() {
        Self.reset(fd: fd)
    }

    /// Puts a console back in text mode with automatic switching (also for `marquee
    /// reset-console` after a crash).
    package static func reset(fd: Int32) {
        _ = mq_console_auto_switching(fd)
        _ = mq_console_set_graphics(fd, 0)
    }
}
