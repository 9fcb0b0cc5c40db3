import Schedule

/// An instant written in RFC 3339 with an offset or Z (tests name only such times).
public func instant(_ text: String) -> Instant {
    guard case .instant(let instant)? = TimeArgument(text) else { fatalError("not an RFC 3339 instant: \(text)") }
    return instant
}
