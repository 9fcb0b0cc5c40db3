import CLibical

#if canImport(Glibc)
    import Glibc
#endif

/// The one place libical runs. libical keeps thread-local error state, a global zone cache
/// that is only partly locked, and per-component iterators that even reads mutate, so every
/// call into it is isolated to this actor and only Swift values leave it.
@globalActor actor ICalActor {
    static let shared = ICalActor()

    /// Process-wide libical switches, set once before the first use.
    @ICalActor static let configured: Bool = {
        icalerror_set_errors_are_fatal(0)
        // Loads zone.tab once, so later lookups never initialise the cache concurrently.
        _ = icaltimezone_get_builtin_timezones()
        return true
    }()

    @ICalActor static func ensureConfigured() {
        _ = configured
    }
}

/// Copies a C string owned by libical into Swift, repairing invalid UTF-8.
func swiftString(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}
