import Display

/// What marquee knows of the television from the CEC bus, and what it answers there — without
/// a bus of its own (the messages are given), so every rule is tested as it is written.
struct TelevisionState: Sendable, Equatable {
    /// As the television last reported it; `unknown` when it did not answer.
    var power: TelevisionPower = .unknown
    /// Whether the television shows marquee's input, as the bus last said (nil: nobody said).
    var showsMarquee: Bool?
    /// The physical address of the input it shows instead, when another device took it.
    var otherInput: UInt16?

    /// One message to send.
    struct Answer: Sendable, Equatable {
        var opcode: CECMessage.Opcode
        var to: UInt8
        var operands: [UInt8] = []
    }

    /// The box's own addresses on the bus.
    let physicalAddress: UInt16
    let logicalAddress: UInt8
    /// What the television's menu calls the box.
    static let name = "marquee"

    init(physicalAddress: UInt16, logicalAddress: UInt8) {
        self.physicalAddress = physicalAddress
        self.logicalAddress = logicalAddress
    }

    /// What waking it says on the bus: the television turns on (Image View On) and shows
    /// marquee's input (Active Source, to everybody).
    var wake: [Answer] {
        [Answer(opcode: .imageViewOn, to: CECMessage.television),
         Answer(opcode: .activeSource, to: CECMessage.everybody, operands: CECMessage.operands(physicalAddress))]
    }

    /// After `wake` went out: marquee is the active source.
    mutating func woken() {
        showsMarquee = true
        otherInput = nil
    }

    /// What putting it to standby says on the bus: marquee is no longer the source (Inactive
    /// Source), and the television goes to standby (Standby, to it alone: other devices on the
    /// bus are left as they are).
    var standby: [Answer] {
        [Answer(opcode: .inactiveSource, to: CECMessage.television, operands: CECMessage.operands(physicalAddress)),
         Answer(opcode: .standby, to: CECMessage.television)]
    }

    /// After `standby` went out: marquee is not shown, and another input is nobody's to take back.
    mutating func putToStandby() {
        showsMarquee = false
        otherInput = nil
    }

    /// When marquee took the input back from another device, within the last `reclaimWindow`.
    private var reclaims: [Int64] = []
    /// How many times an hour marquee takes the input back: a device that takes it again each
    /// time (a console that insists) is not fought in a loop.
    static let mostReclaims = 3
    static let reclaimWindow: Int64 = 3_600

    /// Whether marquee should take its input back now (`seconds`: a steady clock): another
    /// device shows on a television that is on, and marquee has not taken it back
    /// `mostReclaims` times in the last hour. Counts the time when it says yes.
    mutating func reclaims(at seconds: Int64) -> Bool {
        guard showsMarquee == false, otherInput != nil, power == .on else { return false }
        reclaims.removeAll { seconds - $0 >= Self.reclaimWindow }
        guard reclaims.count < Self.mostReclaims else { return false }
        reclaims.append(seconds)
        return true
    }

    /// Whether marquee stopped taking the input back for the hour.
    var givesUpReclaiming: Bool { reclaims.count >= Self.mostReclaims }

    /// Taking the input back: marquee is the active source again (the television is on).
    var reclaim: [Answer] {
        [Answer(opcode: .activeSource, to: CECMessage.everybody, operands: CECMessage.operands(physicalAddress))]
    }

    /// What `message` tells of the television, and what marquee answers (as CEC asks of a
    /// playback device: its power, its name, whether it is the active source; a Feature Abort
    /// to what it does not do).
    mutating func hear(_ message: CECMessage) -> [Answer] {
        guard message.from != logicalAddress else { return [] }
        let toMe = message.to == logicalAddress
        switch CECMessage.Opcode(rawValue: message.opcode) {
        case .reportPowerStatus?:
            if message.from == CECMessage.television, let reported = TelevisionPower(reported: message.operands) {
                power = reported
            }
        case .standby?:
            if message.from == CECMessage.television || message.to == CECMessage.everybody {
                power = .standby
                showsMarquee = false
            }
        case .activeSource?, .setStreamPath?, .routingChange?:
            guard let routed = message.routedTo else { break }
            let mine = routed == physicalAddress
            showsMarquee = mine
            otherInput = mine ? nil : routed
            if mine, message.opcode == CECMessage.Opcode.setStreamPath.rawValue {
                return [Answer(opcode: .activeSource, to: CECMessage.everybody, operands: CECMessage.operands(physicalAddress))]
            }
        case .requestActiveSource?:
            if showsMarquee == true {
                return [Answer(opcode: .activeSource, to: CECMessage.everybody, operands: CECMessage.operands(physicalAddress))]
            }
        case .giveDevicePowerStatus?:
            if toMe { return [Answer(opcode: .reportPowerStatus, to: message.from, operands: [0])] }
        case .giveOSDName?:
            if toMe { return [Answer(opcode: .setOSDName, to: message.from, operands: Array(Self.name.utf8))] }
        case .featureAbort?, .imageViewOn?, .inactiveSource?, .setOSDName?:
            break
        case nil:
            // Directed to marquee and not understood: said so, as CEC asks ("unrecognized opcode").
            if toMe { return [Answer(opcode: .featureAbort, to: message.from, operands: [message.opcode, 0])] }
        }
        return []
    }
}
