/// A message on the HDMI-CEC bus (HDMI 1.4b, CEC 2.0): who sent it to whom, its opcode and
/// operands. Only what marquee says to a television and hears from it is named here.
package struct CECMessage: Sendable, Hashable {
    /// Logical addresses: the television is 0, a message to everybody goes to 15.
    package static let television: UInt8 = 0
    package static let everybody: UInt8 = 15

    package enum Opcode: UInt8, Sendable {
        case featureAbort = 0x00
        case imageViewOn = 0x04
        case standby = 0x36
        case giveOSDName = 0x46
        case setOSDName = 0x47
        case routingChange = 0x80
        case activeSource = 0x82
        case requestActiveSource = 0x85
        case setStreamPath = 0x86
        case giveDevicePowerStatus = 0x8F
        case reportPowerStatus = 0x90
        case inactiveSource = 0x9D
    }

    package var from: UInt8
    package var to: UInt8
    package var opcode: UInt8
    package var operands: [UInt8]

    package init(from: UInt8, to: UInt8, opcode: UInt8, operands: [UInt8] = []) {
        self.from = from
        self.to = to
        self.opcode = opcode
        self.operands = operands
    }

    /// The physical address the operands start with (Active Source, Set Stream Path, the new
    /// one of Routing Change), nil when they are too short.
    package func physicalAddress(at offset: Int = 0) -> UInt16? {
        guard operands.count >= offset + 2 else { return nil }
        return UInt16(operands[offset]) << 8 | UInt16(operands[offset + 1])
    }

    /// Where an Active Source, Set Stream Path or Routing Change sends the television.
    package var routedTo: UInt16? {
        switch Opcode(rawValue: opcode) {
        case .activeSource?, .setStreamPath?: physicalAddress()
        case .routingChange?: physicalAddress(at: 2)
        default: nil
        }
    }

    /// The two bytes of a physical address, as operands.
    package static func operands(_ physicalAddress: UInt16) -> [UInt8] {
        [UInt8(physicalAddress >> 8), UInt8(physicalAddress & 0xFF)]
    }

    /// `1.0.0.0`, as HDMI writes physical addresses.
    package static func shown(_ physicalAddress: UInt16) -> String {
        (0..<4).map { String(physicalAddress >> (12 - 4 * $0) & 0xF, radix: 16) }.joined(separator: ".")
    }
}

/// A television's power as it reports it (Report Power Status), or what marquee knows of it.
package enum TelevisionPower: String, Sendable, Hashable, Codable {
    case on
    case standby
    case goingOn = "going to on"
    case goingToStandby = "going to standby"
    /// It did not answer: nothing is known (never called "off").
    case unknown

    /// The power a Report Power Status carries; nil for a value the standard does not name.
    package init?(reported operands: [UInt8]) {
        switch operands.first {
        case 0?: self = .on
        case 1?: self = .standby
        case 2?: self = .goingOn
        case 3?: self = .goingToStandby
        default: return nil
        }
    }
}
