import Schedule

/// The address of a calendar subscription as a carer pastes it: the private address Google
/// Calendar, iCloud (`webcal://`), Nextcloud or Outlook gives. Knows what is fetched
/// (`webcal` is https) and how the address may be shown: such an address is a password, so
/// userinfo is dropped and the long tokens in its path and query are cut to their first
/// characters and a check sum that tells two subscriptions apart.
public struct SubscriptionAddress: Sendable, Hashable, CustomStringConvertible {
    /// As written in the configuration or on the command line.
    public let given: String
    /// What is fetched.
    public let url: String
    /// Safe to log and to show in the status.
    public let shown: String
    /// Names the subscription's files in the cache folder; says nothing of the address.
    public let key: String

    /// nil unless `text` is an `https://`, `http://`, `webcal://` or `webcals://` address with a host.
    public init?(_ text: String) {
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
        let tail = rest[authorityEnd...].prefix { $0 != "#" }
        given = text
        url = fetchedScheme + "://" + rest.prefix { $0 != "#" }
        shown = scheme + "://" + host + Self.redacted(tail, salt: text)
        key = String(stableHash(text), radix: 16)
    }

    public var description: String { shown }

    /// The path and query with every part that may be a secret token cut short.
    private static func redacted(_ tail: Substring, salt: String) -> String {
        var result = ""
        var part = ""
        func flush() {
            result += isSecretLike(part) ? String(part.prefix(4)) + "…" + String(stableHash(salt) & 0xFFFFFF, radix: 16) : part
            part = ""
        }
        for character in tail {
            if "/?&=".contains(character) {
                flush()
                result.append(character)
            } else {
                part.append(character)
            }
        }
        flush()
        return result
    }

    /// A part of 12 characters or more with a digit and no dot or escape in it: tokens are;
    /// words, file names (`basic.ics`) and e-mail addresses (`mum%40gmail.com`) are not.
    private static func isSecretLike(_ part: String) -> Bool {
        part.count >= 12 && part.contains(where: \.isNumber) && !part.contains(".") && !part.contains("%")
    }
}
