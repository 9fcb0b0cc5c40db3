import Synchronization

@testable import Daemon

/// The reasons the loop gave for waking the television, its asks to take the input back
/// ("reclaim") and to put it to standby ("standby: screen_off").
package final class WakeRecorder: TelevisionWaking {
    private let reasons = Mutex<[String]>([])

    package func wake(because reason: String) { reasons.withLock { $0.append(reason) } }

    package func wakeIfOff(because reason: String) { reasons.withLock { $0.append("if off: " + reason) } }

    package func standby(because reason: String) { reasons.withLock { $0.append("standby: " + reason) } }

    package func reclaimInput() { reasons.withLock { $0.append("reclaim") } }

    package func isReadyForSound() -> Bool { true }

    package var woken: [String] { reasons.withLock { $0 } }
}
