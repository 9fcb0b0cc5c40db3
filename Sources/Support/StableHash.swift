/// A hash of a text that is the same on every run and every machine, unlike `Hasher`
/// (FNV-1a): for names of files kept across restarts, and seeds that must not change.
package func stableHash(_ text: String) -> UInt64 { stableHash(text.utf8) }

/// `stableHash` of bytes.
package func stableHash(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    return hash
}

/// A stateless 64-bit mixer (SplitMix64's finaliser): seeded randomness that is the same on
/// every run.
package func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// SplitMix64: a seeded sequence of 64-bit numbers, the same on every run (the jitter of
/// retries, and the tests' and benchmarks' generated input).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        defer { state &+= 0x9E37_79B9_7F4A_7C15 }
        return mix(state)
    }
}
