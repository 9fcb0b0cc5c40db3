import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// The page's connections over TLS, as Hummingbird's HTTP/1 serves them — but a browser that
/// asks in plain HTTP on the same port (a carer typed `http://` or no scheme) is sent to the
/// HTTPS address instead of meeting a broken connection.
struct PageTLSChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http: HTTP1Channel
    let context: NIOSSLContext

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(PlainHTTPRedirect())
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            http.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}

/// Looks at the first bytes of a connection: a TLS handshake (a record of type 22) goes on to
/// TLS and this handler leaves; anything else is a request in plain HTTP, answered — once its
/// header is in, or 8 KB of it — with a redirect to `https://` and the host it asked for, then
/// closed.
final class PlainHTTPRedirect: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The start of a plain request, until its header ends.
    private var header = ByteBuffer()
    private var answered = false
    static let longestHeader = 8 * 1024
    /// What a TLS connection's first byte is: a handshake record.
    static let handshakeRecord: UInt8 = 0x16

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if header.readableBytes == 0, bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) == Self.handshakeRecord {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        guard !answered else { return }
        header.writeBuffer(&bytes)
        let text = String(buffer: header)
        guard text.contains("\r\n\r\n") || header.readableBytes >= Self.longestHeader else { return }
        answered = true
        let answer = "HTTP/1.1 301 Moved Permanently\r\nLocation: https://\(Self.host(in: text) ?? "localhost")/\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        context.close(promise: nil)
    }

    /// The `Host` a plain request named (with its port), if it is one a link may hold.
    static func host(in header: String) -> String? {
        for line in header.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "host" else { continue }
            let host = line[line.index(after: colon)...].trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            let allowed = host.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-.:[]".contains($0) }
            return !host.isEmpty && host.count < 256 && allowed ? String(host) : nil
        }
        return nil
    }
}
