#if canImport(Glibc)
    import Glibc
#endif

/// The machine's host name ("kitchen"): it names the box on a broker unless told, and in the
/// carer's page's own certificate.
package func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "marquee" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
