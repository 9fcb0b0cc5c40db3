// The part of TOML that marquee.toml uses: `key = value` lines with strings, integers,
// floats, booleans and arrays of strings (over several lines if need be), and `#` comments.

enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case strings([String])

    /// An integer or a float as a number.
    var number: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .float(let float): float
        default: nil
        }
    }
}

struct TOMLError: Error {
    var message: String
    init(_ message: String) {
        self.message = message
    }
}

/// Reads the TOML subset from the whole text, counting lines as it goes.
struct TOMLScanner {
    private var rest: Substring

    /// The line being read (from 1).
    private(set) var line = 1

    init(_ text: Substring) {
        rest = text
    }

    var peek: Character? { rest.first }
    var atEnd: Bool { rest.isEmpty }

    mutating func skipSpaces() {
        rest = rest.drop { $0 == " " || $0 == "\t" }
    }

    /// Skips a comment, then takes the line break that ends the line; false when the line
    /// goes on with something else.
    mutating func takeLineEnd() -> Bool {
        if rest.first == "#" { rest = rest.drop { !$0.isLineBreak } }
        guard rest.first?.isLineBreak == true else { return rest.isEmpty }
        rest.removeFirst()
        line += 1
        return true
    }

    /// Skips what is left of the line and its line break (after a mistake in it).
    mutating func skipLine() {
        rest = rest.drop { !$0.isLineBreak }
        _ = takeLineEnd()
    }

    mutating func take(_ character: Character) -> Bool {
        guard rest.first == character else { return false }
        rest.removeFirst()
        return true
    }

    mutating func bareKey() -> String {
        let key = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        rest = rest.dropFirst(key.count)
        return String(key)
    }

    mutating func value() throws(TOMLError) -> TOMLValue {
        switch rest.first {
        case "[":
            rest.removeFirst()
            return .strings(try stringArray())
        case "\"":
            rest.removeFirst()
            return .string(try basicString())
        case "'":
            rest.removeFirst()
            guard let end = rest.firstIndex(where: { $0 == "'" || $0.isLineBreak }), rest[end] == "'" else {
                throw TOMLError("the string has no closing '")
            }
            defer { rest = rest[rest.index(after: end)...] }
            return .string(String(rest[..<end]))
        default:
            let word = String(rest.prefix { !$0.isWhitespace && $0 != "#" })
            rest = rest.dropFirst(word.count)
            if word == "true" { return .boolean(true) }
            if word == "false" { return .boolean(false) }
            let digits = word.replacing("_", with: "")
            if let integer = Int(digits) { return .integer(integer) }
            if let float = Double(digits), digits.contains(where: { ".eE".contains($0) }), digits.first != "n",
                digits.first != "i"
            {
                return .float(float)
            }
            throw TOMLError(word.isEmpty ? "the value is missing" : "`\(word)` is not a value marquee understands (quote strings)")
        }
    }

    /// The strings of an array after its `[`: `"a", "b"`, a trailing comma allowed, and line
    /// breaks and comments between the items.
    private mutating func stringArray() throws(TOMLError) -> [String] {
        var items: [String] = []
        while true {
            skipBlanksAndComments()
            guard let next = rest.first else { throw TOMLError("the list has no closing ]") }
            if next == "]" {
                rest.removeFirst()
                return items
            }
            guard next == "\"" || next == "'", case .string(let item) = try value() else {
                throw TOMLError("a list here holds only strings in quotes")
            }
            items.append(item)
            skipBlanksAndComments()
            if !take(",") {
                skipBlanksAndComments()
                guard rest.first == "]" || rest.isEmpty else { throw TOMLError("expected , or ] in the list") }
            }
        }
    }

    private mutating func skipBlanksAndComments() {
        repeat {
            skipSpaces()
        } while !rest.isEmpty && takeLineEnd()
    }

    private mutating func basicString() throws(TOMLError) -> String {
        var result = ""
        while let character = rest.first {
            guard !character.isLineBreak else { break }
            rest.removeFirst()
            switch character {
            case "\"":
                return result
            case "\\":
                guard let escape = rest.first else { break }
                rest.removeFirst()
                switch escape {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "u", "U":
                    let length = escape == "u" ? 4 : 8
                    let hex = rest.prefix(length)
                    guard hex.count == length, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                        throw TOMLError("bad \\\(escape) escape in the string")
                    }
                    rest = rest.dropFirst(length)
                    result.unicodeScalars.append(scalar)
                default:
                    throw TOMLError("unknown escape \\\(escape) in the string")
                }
            default:
                result.append(character)
            }
        }
        throw TOMLError("the string has no closing \"")
    }
}

extension Character {
    /// Ends a line in the configuration file ("\r\n" is one Character).
    var isLineBreak: Bool { self == "\n" || self == "\r\n" || self == "\r" }
}
