import Display
import Schedule
import Support

/// The screen's power and the panel's backlight, as the box's desk decides (dimmed for the
/// night, dark for `screen_off`, on again): the part that carries it out, says what fails —
/// in the journal and in the box's problems, since a reminder lit on a screen that stays off
/// is seen by nobody — and tries again.
final class ScreenPower {
    /// The panel's backlight, dimmed at night instead of the colours (nil: none, or one that
    /// failed: the colours are dimmed from then on).
    private var backlight: Backlight?
    private let state: DisplayState
    private let log: EventLog?
    /// How the screen was made dark (said in the status).
    private(set) var darkBy: String?
    /// Why the screen or its backlight stayed off when it was to be on, and when that is tried
    /// again; nil: it is on.
    private var unlit: (problem: String, retryAt: Instant)?
    static let relightSeconds: Int64 = 10

    init(backlight: Backlight?, state: DisplayState, log: EventLog?) {
        self.backlight = backlight
        self.state = state
        self.log = log
    }

    /// When switching on is tried again (nil: it is on, or dark as wanted).
    var retryAt: Instant? { unlit?.retryAt }

    /// At the start: a backlight left off by a run that ended in the dark is switched on.
    func switchOnIfLeftOff(_ screen: any TickerScreen, at now: Instant) {
        guard backlight?.isSwitchedOff == true else { return }
        log?.log(.notice, "the backlight was left off (marquee stopped while the screen was dark); switched on")
        switchOn(screen, at: now)
    }

    /// Dims the screen to the night's `step`: the backlight where there is one, else the
    /// colours (and the colours from the first time the backlight cannot be set).
    func dim(_ screen: any TickerScreen, toStep step: Int, nightPercent: Int) {
        let shade = NightPolicy.shade(ofStep: step)
        if let backlight {
            do throws(Backlight.Problem) {
                try backlight.setShade(shade, nightPercent: nightPercent)
                return
            } catch {
                log?.tell(.warning, "\(error); the colours are darkened at night instead")
                self.backlight = nil
            }
        }
        screen.setShade(shade)
    }

    /// Darkens the screen and switches its backlight off, until `until`.
    func darken(_ screen: any TickerScreen, until: ZonedTime?) {
        if let unlit {
            // Dark is what is wanted now: whether it comes on is known when it is lit.
            state.update { $0.replaceBoxProblem(unlit.problem, with: nil) }
            self.unlit = nil
        }
        darkBy = screen.setDark(true)
        if let backlight {
            do throws(Backlight.Problem) {
                try backlight.setPower(false)
                darkBy = (darkBy ?? "") + ", the backlight off"
            } catch {
                log?.log(.warning, "\(error); the screen is dark with its backlight on")
            }
        }
        state.darkened()
        log?.log(.notice, "the screen is dark\(until.map { " until " + $0.wallClock.clock() } ?? "") (screen_off): \(darkBy ?? "")")
    }

    /// A new screen (its device replaced) made dark as the old one was.
    func keepDark(_ screen: any TickerScreen) { darkBy = screen.setDark(true) }

    /// Powers the screen and its backlight on. What fails is said and tried again every
    /// `relightSeconds` (`retryAt`); said again when it works.
    func switchOn(_ screen: any TickerScreen, at now: Instant) {
        var failures: [String] = []
        let screenFailure = screen.setDark(false)
        if !screenFailure.isEmpty { failures.append("the screen \(screenFailure)") }
        if let backlight {
            do throws(Backlight.Problem) { try backlight.setPower(true) } catch { failures.append(error.description) }
        }
        let problem = failures.isEmpty ? nil : failures.joined(separator: "; ") + ": what is shown may be seen by nobody"
        if problem != unlit?.problem {
            if let problem {
                log?.tell(.warning, problem)
            } else {
                log?.log(.notice, "the screen is on again")
            }
            let earlier = unlit?.problem
            state.update { $0.replaceBoxProblem(earlier, with: problem) }
        }
        unlit = problem.map { ($0, now + Self.relightSeconds) }
    }

    /// The run ended: the backlight as bright as by day.
    func brightenForTheDay() { backlight?.brightenForTheDay() }
}
