#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--json` output: one compact JSON object per line. DEL and the C1 controls, which JSON
/// lets stand raw, are written as `\u` escapes: the line stays JSON and cannot drive a terminal.
func jsonLine(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    let line = String(decoding: try encoder.encode(value), as: UTF8.self)
    guard line.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return line }
    var escaped = ""
    for scalar in line.unicodeScalars {
        if (0x7F...0x9F).contains(scalar.value) {
            escaped += "\\u00" + String(scalar.value, radix: 16)
        } else {
            escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
