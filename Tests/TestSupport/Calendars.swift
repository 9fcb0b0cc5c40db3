import Foundation

/// A VCALENDAR around the given components, CRLF line endings as RFC 5545 writes them.
package func calendar(_ components: String..., header: [String] = []) -> String {
    calendar(components, header: header)
}

/// A VCALENDAR around the given components.
package func calendar(_ components: [String], header: [String] = []) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//marquee tests//EN"] + header + components + ["END:VCALENDAR"])
        .joined(separator: "\r\n") + "\r\n"
}

/// A VEVENT with the given property lines (and a UID unless one is given).
package func event(_ lines: String...) -> String {
    event(lines)
}

/// A VEVENT with the given property lines (and a UID unless one is given).
package func event(_ lines: [String]) -> String {
    let uid = lines.contains { $0.hasPrefix("UID") } ? [] : ["UID:\(UUID().uuidString)"]
    return (["BEGIN:VEVENT"] + uid + lines + ["END:VEVENT"]).joined(separator: "\r\n")
}
