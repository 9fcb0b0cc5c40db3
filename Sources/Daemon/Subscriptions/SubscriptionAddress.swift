import Support

/// The address of a calendar subscription as a carer pastes it: the private address Google
/// Calendar, iCloud (`webcal://`), Nextcloud or Outlook gives. Knows what is fetched
/// (`webcal` is https) and how the address may be shown: such an address is a password (see
/// `redacted(_:)`). Spaces pasted around it are trimmed.
package struct SubscriptionAddress: Sendable, Hashable, CustomStringConvertible {
    /// As written in the configuration or on the command line, without spaces around it.
    package let given: String
    /// What is fetched.
    package let url: String
    /// Safe to log and to show in the status.
    package let shown: String
    /// Names the subscription's files in the cache folder; says nothing of the address.
    package let key: String

    /// nil unless `text` (spaces around it aside) is an `https://`, `http://`, `webcal://` or
    /// `webcals://` address with a host.
    package init?(_ pasted: String) {
        let text = pasted.trimmingCharacters(in: " \t\r\n")
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let rest = text[schemeEnd.upperBound...]
        let fetchedScheme: String
        switch scheme {
        case "https", "webcal", "webcals": fetchedScheme = "https"
        case "http": fetchedScheme = "http"
        default: return nil
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        guard !host.isEmpty, !text.contains(where: \.isWhitespace) else { return nil }
        given = text
        url = fetchedScheme + "://" + rest.prefix { $0 != "#" }
        shown = Self.redacted(text)
        key = String(stableHash(text), radix: 16)
    }

    package var description: String { shown }

    /// Whether `text` looks like a web address (a scheme and `://`, or a host name and a path),
    /// parsed or not: then it is shown only redacted.
    package static func looksLikeAddress(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: " \t\r\n")
        if trimmed.contains("://") { return true }
        guard let slash = trimmed.firstIndex(of: "/"), slash > trimmed.startIndex else { return false }
        let first = trimmed[..<slash]
        if first.contains("@") { return true }
        let labels = first.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
            && (labels.last?.allSatisfy(\.isLetter) ?? false) && (labels.last?.count ?? 0) >= 2
    }

    /// An address as it may be shown, whether or not it parses: the user name and password
    /// left out (before the `@` of the authority; one with a `/` in the password runs to the
    /// `@` after it), every path segment and
    /// query value that is not plainly a word replaced by `…` and a check sum that tells two
    /// apart, and every value of a parameter named like a secret (`token`, `key`, `auth`,
    /// `password`, `secret`, `sig`, `code`…) replaced whatever it looks like. The fragment is
    /// left out.
    package static func redacted(_ pasted: String) -> String {
        let text = pasted.trimmingCharacters(in: " \t\r\n")
        var rest = Substring(text)
        var scheme = ""
        if let separator = rest.firstRange(of: "://") {
            scheme = String(rest[..<separator.upperBound])
            rest = rest[separator.upperBound...]
        }
        let queryStart = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<(rest[..<queryStart].firstIndex(of: "/") ?? queryStart)]
        var hostStart = rest.startIndex
        if let at = authority.lastIndex(of: "@") {
            hostStart = rest.index(after: at)
        } else if let colon = authority.firstIndex(of: ":"), !authority[authority.index(after: colon)...].allSatisfy(\.isNumber),
                  let at = rest[..<queryStart].firstIndex(of: "@") {
            // "user:pa/ss@host": a colon not followed by a port is a password's.
            hostStart = rest.index(after: at)
        }
        let hostEnd = rest[hostStart...].firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let withoutFragment = rest[hostEnd...].prefix { $0 != "#" }
        let path = withoutFragment.prefix { $0 != "?" }
        let query = withoutFragment.dropFirst(path.count)
        func hidden(_ part: Substring) -> String { "…" + String(stableHash(text + "\u{0}" + part) & 0xFFFFFF, radix: 16) }
        var shown = scheme + rest[hostStart..<hostEnd]
        shown += path.split(separator: "/", omittingEmptySubsequences: false)
            .map { isPlainWord($0) || $0.isEmpty ? String($0) : hidden($0) }.joined(separator: "/")
        if !query.isEmpty {
            shown += "?" + query.dropFirst().split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                let name = parameter.prefix { $0 != "=" }
                let value = parameter.dropFirst(name.count + 1)
                let shownName = isPlainWord(name) || name.isEmpty ? String(name) : hidden(name)
                guard name.count < parameter.count else { return shownName }
                let secret = secretNames.contains { name.lowercased().contains($0) }
                let shownValue = value.isEmpty || (!secret && isPlainWord(value)) ? String(value) : hidden(value)
                return shownName + "=" + shownValue
            }.joined(separator: "&")
        }
        return shown
    }

    /// Parameter names whose values are secrets whatever they look like.
    static let secretNames = ["token", "key", "auth", "pass", "pwd", "secret", "sig", "code", "session", "cred", "private"]

    /// A word as words are written: pieces between `-`, `_` and `.` each of lower-case letters
    /// (perhaps capitalised) up to 15, or of up to 4 digits (`basic.ics`, `public-calendars`,
    /// `remote.php`, `2`). Tokens are not: mixed case, digits among letters, long runs,
    /// escapes (`%40`).
    static func isPlainWord(_ part: Substring) -> Bool {
        guard !part.isEmpty, part.count <= 40 else { return false }
        return part.split(omittingEmptySubsequences: false) { "-_.".contains($0) }.allSatisfy { piece in
            guard let first = piece.first, piece.allSatisfy(\.isASCII) else { return false }
            if piece.allSatisfy(\.isNumber) { return piece.count <= 4 }
            return piece.count <= 15 && (first.isLowercase || first.isUppercase) && piece.dropFirst().allSatisfy(\.isLowercase)
        }
    }
}
