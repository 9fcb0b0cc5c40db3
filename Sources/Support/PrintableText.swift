extension String {
    /// The text with control characters (C0, DEL, C1) written as visible escapes — `\e`,
    /// `\n`, `\u{9B}` — so that text from a calendar file or a file name can never drive the
    /// terminal, or start a new journal line, where it is shown.
    package var withControlCharactersEscaped: String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard unicodeScalars.contains(where: isControl) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            guard isControl(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\u{1B}": escaped += "\\e"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }
}
