import Foundation
import TestSupport
import Testing

@testable import Schedule

/// A schedule for one calendar text, shown in `zone`.
@ICalActor func schedule(_ text: String, zone: String = "Europe/Berlin") throws -> ScheduleState {
    let schedule = try ScheduleState(displayZone: zone)
    schedule.load([try feedFolder(["feed.ics": text])])
    return schedule
}

extension ScheduleState {
    /// The texts active at an RFC 3339 instant.
    func texts(at time: String) -> [String] {
        messages(at: TestSupport.instant(time)).map(\.text)
    }
}
