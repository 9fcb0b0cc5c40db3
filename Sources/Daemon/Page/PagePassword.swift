import CArgon2
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The carer's page password, kept only as an Argon2id hash (the reference library, Debian's
/// libargon2): memory-hard, so a stolen file costs an attacker 19 MiB and two passes per guess.
/// The parameters are OWASP's first choice for Argon2id; they are in the encoded hash, so a
/// later change still verifies the old ones.
package enum PagePassword {
    /// The file in the state folder that holds the hash.
    package static let fileName = "page-password"
    static let passes: UInt32 = 2
    static let memoryKiB: UInt32 = 19 * 1024
    static let lanes: UInt32 = 1
    static let saltLength = 16
    static let hashLength = 32
    /// Shorter passwords are refused: a carer's page on a home network is still a door.
    package static let shortest = 8
    /// Longer ones are refused before hashing (a megabyte posted as a password costs nothing).
    static let longest = 256

    /// The encoded hash (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`.
    package static func hash(_ password: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let length = argon2_encodedlen(passes, memoryKiB, lanes, UInt32(saltLength), UInt32(hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let bytes = Array(password.utf8)
        let result = argon2id_hash_encoded(passes, memoryKiB, lanes, bytes, bytes.count, salt, salt.count, hashLength,
                                           &encoded, encoded.count)
        precondition(result == ARGON2_OK.rawValue, "argon2id with fixed parameters cannot fail: \(result)")
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `encoded` was made from (false for a hash that is not one).
    package static func verify(_ password: String, against encoded: String) -> Bool {
        guard password.utf8.count <= longest else { return false }
        let bytes = Array(password.utf8)
        return argon2id_verify(encoded, bytes, bytes.count) == ARGON2_OK.rawValue
    }

    /// Why `password` cannot be the page's (nil: it can).
    package static func refusal(of password: String) -> String? {
        if password.count < shortest { return "the password must have at least \(shortest) characters" }
        if password.utf8.count > longest { return "the password must have at most \(longest) bytes" }
        return nil
    }

    /// Keeps the hash of `password` in `folder` (the state folder), readable by the service as
    /// the folder is — its owner and group, nobody else; why not, when it cannot be written.
    package static func keep(_ password: String, inStateFolder folder: String) -> String? {
        let path = folder + "/" + fileName
        if let problem = writeFileAtomically(Array((hash(password) + "\n").utf8), to: path, ownedLikeItsFolder: true) {
            return "cannot write \(path): \(problem)"
        }
        return nil
    }

    /// The hash kept at `path`; nil when there is none (the page stays off); why not, when the
    /// file cannot be read or does not hold a hash.
    package static func read(at path: String) -> Result<String?, FileReadError> {
        guard access(path, F_OK) == 0 else { return .success(nil) }
        return readFile(path, limit: 1024).flatMap { bytes in
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n\r ")
            return text.hasPrefix("$argon2id$") ? .success(text)
                : .failure(FileReadError(message: "it does not hold an Argon2id hash (set one with `marquee web-password`)"))
        }
    }
}
