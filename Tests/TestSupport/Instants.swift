import Marquee
import Schedule
import Support

/// An instant written in RFC 3339 with an offset or Z (tests name only such times).
package func instant(_ text: String) -> Instant {
    guard case .instant(let instant)? = TimeArgument(text) else { fatalError("not an RFC 3339 instant: \(text)") }
    return instant
}

/// Tests write readings of the steady clock as plain nanoseconds (`now: 999_000_000`); the
/// product cannot, it names `SteadyInstant(sinceOrigin:)` where it reads the clock.
extension SteadyInstant: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Nanoseconds) {
        self.init(sinceOrigin: value)
    }
}
