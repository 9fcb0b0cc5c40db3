/// How many single-character edits turn one text into the other (Levenshtein).
package func editDistance(_ first: String, _ second: String) -> Int {
    let a = Array(first), b = Array(second)
    guard !a.isEmpty else { return b.count }
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1] + [Int](repeating: 0, count: b.count)
        for (j, y) in b.enumerated() {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// The bytes a base64 text stands for (RFC 4648, as iCalendar's `ENCODING=BASE64` writes it:
/// line breaks and spaces between the characters are allowed, padding is optional); nil when
/// it holds anything else.
package func decodeBase64(_ text: some Collection<UInt8>) -> [UInt8]? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count / 4 * 3)
    var group: UInt32 = 0
    var count = 0
    var padding = 0
    for character in text {
        let value: UInt32
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): value = 62
        case UInt8(ascii: "/"): value = 63
        case UInt8(ascii: "="):
            padding += 1
            continue
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): continue
        default: return nil
        }
        // Nothing but padding and spaces after the padding.
        guard padding == 0 else { return nil }
        group = group << 6 | value
        count += 1
        if count == 4 {
            bytes += [UInt8(group >> 16), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)]
            group = 0
            count = 0
        }
    }
    switch count {
    case 0: break
    case 2: bytes.append(UInt8(group >> 4))
    case 3: bytes += [UInt8(group >> 10), UInt8(group >> 2 & 0xFF)]
    default: return nil
    }
    return padding <= 2 ? bytes : nil
}
