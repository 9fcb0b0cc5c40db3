import CLinux
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// An HDMI-CEC adapter through the kernel's CEC API (`/dev/cec*`, group `video`): a logical
/// address of the Playback kind claimed under marquee's name, then messages sent and received.
/// Every call blocks (at most its timeout): use it on a thread of its own.
package final class CECAdapter {
    package let path: String
    /// Where the box is on the HDMI tree (`1.0.0.0`: the television's first input).
    package let physicalAddress: UInt16
    package let logicalAddress: UInt8
    private let descriptor: Int32

    /// Why an adapter cannot be used, or a message was not sent.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package var description: String
        /// The adapter is gone (a USB adapter pulled out) or moved: it is to be looked for again.
        package var isAdapterGone = false

        package init(description: String, isAdapterGone: Bool = false) {
            self.description = description
            self.isAdapterGone = isAdapterGone
        }
    }

    /// Opens the adapter at `path` and claims a logical address under `name`.
    package init(path: String, name: String) throws(Failure) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "\(path) cannot be opened: \(String(cString: strerror(errno)))") }
        var address: UInt16 = 0xFFFF
        guard mq_cec_physical_address(descriptor, &address) == 0 else {
            let problem = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "\(path) is not a CEC adapter: \(problem)")
        }
        guard address != 0xFFFF else {
            close(descriptor)
            throw Failure(description: "\(path) has no physical address: nothing is connected to its HDMI port")
        }
        // 0.0.0.0 is the television's own place on the tree: that adapter is a television's.
        guard address != 0 else {
            close(descriptor)
            throw Failure(description: "\(path) is a television's adapter (physical address 0.0.0.0), not a source's")
        }
        physicalAddress = address
        let claimed = mq_cec_claim(descriptor, name)
        guard claimed >= 0, claimed != 0xF else {
            let problem = claimed < 0 ? String(cString: strerror(errno)) : "no logical address is free on the bus"
            close(descriptor)
            throw Failure(description: "\(path): cannot take part on the CEC bus: \(problem)")
        }
        logicalAddress = UInt8(claimed)
    }

    deinit { close(descriptor) }

    /// The adapters there are (`/dev/cec0`…), in order.
    package static func paths(in folder: String = "/dev") -> [String] {
        (directoryEntries(folder) ?? []).map(\.name).compactMap { name in
            name.hasPrefix("cec") ? Int(name.dropFirst(3)).map { ($0, folder + "/" + name) } : nil
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Sends one message; with `reply` waits up to `timeoutMilliseconds` for that answer and
    /// returns its operands (nil: no answer). A message nobody acknowledged (a television
    /// that is not there or does not speak CEC) is a failure.
    @discardableResult
    package func send(
        _ opcode: CECMessage.Opcode, to: UInt8, operands: [UInt8] = [], reply: CECMessage.Opcode? = nil,
        timeoutMilliseconds: UInt32 = 1_000
    ) throws(Failure) -> [UInt8]? {
        var answer = [UInt8](repeating: 0, count: 16)
        var (answerLength, sent, received): (Int32, UInt8, UInt8) = (0, 0, 0)
        let result = operands.withUnsafeBufferPointer { operands in
            answer.withUnsafeMutableBufferPointer { answer in
                mq_cec_transmit(descriptor, to, opcode.rawValue, operands.baseAddress, Int32(operands.count),
                                reply?.rawValue ?? 0, timeoutMilliseconds, answer.baseAddress, &answerLength, &sent, &received)
            }
        }
        guard result == 0 else { throw failure("cannot send") }
        guard sent & UInt8(CEC_TX_STATUS_OK) != 0 else {
            throw Failure(description: sent & UInt8(CEC_TX_STATUS_NACK) != 0
                ? "nobody on the CEC bus answered at address \(to)" : "the CEC bus did not carry the message (status \(sent))")
        }
        guard reply != nil, received & UInt8(CEC_RX_STATUS_OK) != 0 else { return nil }
        return Array(answer.prefix(Int(answerLength)))
    }

    /// Why the adapter must be opened again (nil: it is as it was opened): the box is at
    /// another physical address (plugged into another input), or at none (the television's
    /// side unplugged).
    package func movedTo() -> Failure? {
        var address: UInt16 = 0xFFFF
        guard mq_cec_physical_address(descriptor, &address) == 0 else { return failure("cannot read its physical address") }
        guard address != physicalAddress else { return nil }
        return Failure(description: address == 0xFFFF ? "\(path): nothing is connected to its HDMI port any more"
                           : "\(path): the box is now at \(CECMessage.shown(address))", isAdapterGone: true)
    }

    /// Why a call failed, from `errno`.
    private func failure(_ what: String) -> Failure {
        let gone = errno == ENODEV
        return Failure(description: "\(path): \(what): \(String(cString: strerror(errno)))", isAdapterGone: gone)
    }

    /// The next message for marquee or for everybody within `timeoutMilliseconds`; nil if none.
    package func receive(timeoutMilliseconds: UInt32) throws(Failure) -> CECMessage? {
        var (from, to, opcode): (UInt8, UInt8, UInt8) = (0, 0, 0)
        var operands = [UInt8](repeating: 0, count: 16)
        var length: Int32 = 0
        let result = operands.withUnsafeMutableBufferPointer {
            mq_cec_receive(descriptor, timeoutMilliseconds, &from, &to, &opcode, $0.baseAddress, &length)
        }
        guard result >= 0 else { throw failure("cannot receive") }
        guard result == 1 else { return nil }
        return CECMessage(from: from, to: to, opcode: opcode, operands: Array(operands.prefix(Int(length))))
    }
}
