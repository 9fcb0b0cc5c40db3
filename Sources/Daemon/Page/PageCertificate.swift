import NIOSSL
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// How the carer's page is encrypted (`web_tls`, `web_certificate`, `web_certificate_key`).
package enum PageTLS: Sendable, Equatable {
    /// A certificate the box makes for itself on its first start and keeps in `folder` (the
    /// state folder's `page-tls`): the browser warns once, and the carer can check its
    /// fingerprint against `marquee status`.
    case own(folder: String)
    /// The carer's own certificate chain and its key, PEM files.
    case given(certificate: String, key: String)
}

/// The page's certificate and key, ready for swift-nio-ssl, with the fingerprint a carer
/// compares with what the browser shows.
struct PageCertificate: Sendable {
    /// What swift-nio-ssl encrypts each connection with.
    let context: NIOSSLContext
    /// The SHA-256 fingerprint of the certificate, as browsers show it (`AB:CD:…`).
    let fingerprint: String

    /// Why the page cannot be encrypted, with the file concerned.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The `openssl` command: it makes the box's own certificate and says fingerprints.
    static let openssl = "/usr/bin/openssl"
    static let certificateName = "page.crt"
    static let keyName = "page.key"
    /// The box's own certificate lasts this long: a box is not looked after every year.
    static let ownDays = 3650

    /// Loads the certificate `tls` names, making the box's own first when there is none yet.
    static func load(_ tls: PageTLS, hostName: String) throws(Problem) -> PageCertificate {
        let (certificate, key): (String, String)
        switch tls {
        case .given(let given, let givenKey):
            (certificate, key) = (given, givenKey)
        case .own(let folder):
            (certificate, key) = (folder + "/" + certificateName, folder + "/" + keyName)
            if access(certificate, F_OK) != 0 || access(key, F_OK) != 0 {
                try make(in: folder, hostName: hostName)
            }
        }
        let chain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw Problem(description: "\(certificate): not a certificate in PEM form (\(error))")
        }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw Problem(description: "\(key): not a private key in PEM form (\(error))")
        }
        guard !chain.isEmpty else { throw Problem(description: "\(certificate): holds no certificate") }
        let fingerprint = try fingerprint(of: certificate)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            return PageCertificate(context: try NIOSSLContext(configuration: configuration), fingerprint: fingerprint)
        } catch {
            throw Problem(description: "\(key): does not go with \(certificate) (\(error))")
        }
    }

    /// Makes the box's own certificate (an ECDSA P-256 key; the box's names and loopback as
    /// its subject's alternative names) in `folder`, the key readable by the service alone.
    private static func make(in folder: String, hostName: String) throws(Problem) {
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw Problem(description: "\(folder): cannot be made (\(String(cString: strerror(errno))))")
        }
        let names = Set([hostName, hostName + ".local", "localhost"].filter(isHostName)).sorted()
        let alternatives = (names.map { "DNS:" + $0 } + ["IP:127.0.0.1", "IP:::1"]).joined(separator: ",")
        let (certificate, key) = (folder + "/" + certificateName, folder + "/" + keyName)
        let made = runProgram(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-sha256", "-nodes",
            "-days", String(ownDays), "-subj", "/CN=" + (isHostName(hostName) ? hostName : "marquee") + "/O=marquee",
            "-addext", "subjectAltName=" + alternatives, "-keyout", key + ".new", "-out", certificate + ".new",
        ])
        guard made.status == 0, rename(key + ".new", key) == 0, rename(certificate + ".new", certificate) == 0 else {
            unlink(key + ".new")
            unlink(certificate + ".new")
            throw Problem(description: "\(folder): the page's certificate cannot be made (\(openssl): "
                + (made.status == 127 ? "not installed" : made.errors.trimmingCharacters(in: "\n ")) + ")")
        }
    }

    /// The SHA-256 fingerprint of the first certificate in `path`, as `AB:CD:…`.
    private static func fingerprint(of path: String) throws(Problem) -> String {
        let said = runProgram(openssl, ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
        // "sha256 Fingerprint=AB:CD:…" (the case of its first word varies with the version).
        guard said.status == 0, let equals = said.output.firstIndex(of: "=") else {
            throw Problem(description: "\(path): its fingerprint cannot be read (\(openssl): \(said.errors))")
        }
        return String(said.output[said.output.index(after: equals)...]).trimmingCharacters(in: "\n ")
    }

    /// A host name a certificate may name: letters, digits, `-` and `.`.
    private static func isHostName(_ name: String) -> Bool {
        !name.isEmpty && name.count < 254 && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }
    }
}
