import CCurl

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP GET of a calendar (or a reminder's recording) through libcurl: TLS verified against the system's certificate
/// store, redirects followed (at most 5, and only to http or https), gzip accepted, a
/// conditional request when validators are known, bounded in time and in size. Blocks the
/// calling thread: run it on a thread of its own.
struct HTTPFetch: Sendable {
    /// Refused beyond this many bytes (after decompression), as a feed file is.
    var maximumBytes = 16 << 20
    /// Giving up on a server that does not connect within this time, or sends less than
    /// `slowestBytesPerSecond` for it (a server that trickles a byte a second stalls too).
    var stallSeconds = 30
    static let slowestBytesPerSecond = 1024
    /// Giving up on a transfer that takes longer than this altogether.
    var totalSeconds = 120
    /// A file of trusted certificate authorities instead of the system's (`SSL_CERT_FILE`).
    var certificateAuthorities: String?
    /// What is fetched, as failures name it.
    var thing = "calendar"

    struct Request: Sendable, Hashable {
        var url: String
        /// The validators of the copy in hand, for a conditional request.
        var entityTag: String?
        var lastModified: String?
    }

    struct Response: Sendable, Hashable {
        var status: Int
        var body: [UInt8]
        var entityTag: String?
        var lastModified: String?
        var contentType: String?
        /// Seconds the server asks to wait (`Retry-After`, in seconds or as a date).
        var retryAfter: Int64?
    }

    /// Why a fetch brought no response.
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        var description: String
        /// No server was reached: the name did not resolve or no connection was made, as while
        /// the box's own network is not up yet.
        var reachedNoServer = false
    }

    func get(_ request: Request) -> Result<Response, Failure> {
        if let problem = mq_curl_load() { return .failure(Failure(description: String(cString: problem))) }
        guard let handle = mq_curl_easy_init() else { return .failure(Failure(description: "libcurl cannot start")) }
        defer { mq_curl_easy_cleanup(handle) }
        let sink = BodySink(limit: maximumBytes)
        var headers: UnsafeMutablePointer<curl_slist>?
        if let tag = request.entityTag { headers = mq_curl_slist_append(headers, "If-None-Match: \(tag)") }
        if let date = request.lastModified { headers = mq_curl_slist_append(headers, "If-Modified-Since: \(date)") }
        defer { mq_curl_slist_free_all(headers) }
        var error = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let encrypted = request.url.lowercased().hasPrefix("https://")
        let performed: CURLcode = withExtendedLifetime(sink) {
            error.withUnsafeMutableBufferPointer { errorBuffer in
                _ = mq_curl_set_string(handle, CURLOPT_URL, request.url)
                _ = mq_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                // A private calendar asked for over https is never sent on over plain http.
                _ = mq_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, encrypted ? "https" : "http,https")
                _ = mq_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
                _ = mq_curl_set_long(handle, CURLOPT_MAXREDIRS, 5)
                _ = mq_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
                _ = mq_curl_set_string(handle, CURLOPT_USERAGENT, "marquee (calendar display)")
                _ = mq_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = mq_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, stallSeconds)
                _ = mq_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, Self.slowestBytesPerSecond)
                _ = mq_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, stallSeconds)
                _ = mq_curl_set_long(handle, CURLOPT_TIMEOUT, totalSeconds)
                _ = mq_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumBytes))
                _ = mq_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
                if let certificateAuthorities { _ = mq_curl_set_string(handle, CURLOPT_CAINFO, certificateAuthorities) }
                _ = mq_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer.baseAddress))
                _ = mq_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
                _ = mq_curl_set_write(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                    let sink = Unmanaged<BodySink>.fromOpaque(context!).takeUnretainedValue()
                    let length = size * count
                    guard sink.bytes.count + length <= sink.limit else {
                        sink.overflowed = true
                        return 0
                    }
                    sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
                    return length
                }
                return mq_curl_easy_perform(handle)
            }
        }
        if sink.overflowed || performed == CURLE_FILESIZE_EXCEEDED {
            return .failure(Failure(description: "the \(thing) is larger than \(maximumBytes >> 20) MB"))
        }
        if performed == CURLE_UNSUPPORTED_PROTOCOL, encrypted {
            return .failure(Failure(
                description: "the server sent the \(thing) on to an address without encryption (not https://); refused"))
        }
        if performed == CURLE_OUT_OF_MEMORY {
            // What libcurl says of a header line longer than it takes (100 KB), as of real want.
            return .failure(Failure(description: "the server's answer is too large to read (a header over 100 KB)"))
        }
        guard performed == CURLE_OK else {
            let detail = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let said = detail.isEmpty ? String(cString: mq_curl_easy_strerror(performed)) : detail
            let reachedNoServer = [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT]
                .contains(performed)
            return .failure(Failure(description: Self.inWords(said), reachedNoServer: reachedNoServer))
        }
        var status = 0
        _ = mq_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var retryAfter: curl_off_t = 0
        _ = mq_curl_get_offset(handle, CURLINFO_RETRY_AFTER, &retryAfter)
        func header(_ name: String) -> String? {
            var found: UnsafeMutablePointer<curl_header>?
            guard mq_curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
                  let value = found?.pointee.value
            else { return nil }
            return String(cString: value)
        }
        return .success(Response(
            status: status, body: sink.bytes, entityTag: header("ETag"), lastModified: header("Last-Modified"),
            contentType: header("Content-Type"), retryAfter: retryAfter > 0 ? Int64(retryAfter) : nil))
    }

    /// libcurl's words for a certificate it does not trust, with what a carer can do about it.
    static func inWords(_ said: String) -> String {
        if said.contains("unable to get local issuer certificate") || said.contains("self-signed certificate")
            || said.contains("self signed certificate")
        {
            return said + " (the server's certificate is not signed by an authority this box trusts: if the server has "
                + "a private one, name its certificate in subscription_ca_file)"
        }
        if said.contains("certificate has expired") {
            return said + " (the server's certificate has expired, or this box's clock is wrong)"
        }
        return said
    }
}

/// Where libcurl's write callback puts the body.
private final class BodySink {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }

}
