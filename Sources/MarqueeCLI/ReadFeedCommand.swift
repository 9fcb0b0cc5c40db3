import ArgumentParser
import Schedule

/// `marquee read-feed` (hidden): the helper process in which libical reads one feed file, so
/// a file that makes libical hang or crash costs only that file (see `FeedReader`).
struct ReadFeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-feed", abstract: "Read one feed request on standard input (used by marquee itself).",
        shouldDisplay: false)

    func run() async throws {
        await serveFeedReading()
    }
}
