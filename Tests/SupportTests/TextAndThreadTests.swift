import Support
import Testing

/// What every module leans on: base64 as calendars write it, names as the system spells them,
/// text that cannot drive a terminal, hashes that stay the same from run to run, and waits that
/// end in time.
@Suite struct TextAndThreadTests {
    @Test(arguments: [
        ("SGVsbG8=", [UInt8]("Hello".utf8)), ("SGVs\r\n bG8", [UInt8]("Hello".utf8)), ("", []),
        ("AAEC/w==", [0, 1, 2, 255]),
    ])
    func base64AsCalendarsWriteIt(text: String, bytes: [UInt8]) {
        #expect(decodeBase64(Array(text.utf8)) == bytes)
    }

    @Test(arguments: ["SGVsbG8*", "SGVs=bG8", "SGVsbG8=A", "ä"])
    func anythingElseIsNotBase64(text: String) {
        #expect(decodeBase64(Array(text.utf8)) == nil)
    }

    /// A Latin-1 name keeps its byte, so two names differing there stay two.
    @Test func namesAsTheSystemSpellsThem() {
        #expect(shownName(Array("Müller.ics".utf8)) == "Müller.ics")
        #expect(shownName([0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72]) == "M\\xFCller")
        #expect(splitPath("/dev/fb0") == ("/dev", "fb0") && splitPath("/etc") == ("/", "etc") && splitPath("feeds") == (".", "feeds"))
    }

    @Test func controlCharactersCannotDriveATerminal() {
        #expect("a\u{1B}[2Jb\nc\u{9B}".withControlCharactersEscaped == "a\\e[2Jb\\nc\\u{9B}")
        #expect("Tea at four ☕".withControlCharactersEscaped == "Tea at four ☕")
    }

    /// The same from run to run and machine to machine (Swift's own hashes are seeded anew).
    @Test func stableHashesAreStable() {
        #expect(stableHash("") == 0xCBF2_9CE4_8422_2325)
        #expect(stableHash("a") == 0xAF63_DC4C_8601_EC8C)
    }

    @Test func sizesInWords() {
        #expect(sizeAgainstLimit(18_035_000, 16 << 20) == "17.2 MB; the limit is 16.0 MB")
        #expect(sizeAgainstLimit(16_777_217, 16 << 20) == "16777217 bytes; the limit is 16777216 bytes")
        #expect(editDistance("speeed", "speed") == 1 && editDistance("", "abc") == 3)
    }

    /// A wait ends when the work does, or at its limit, whichever is first; a thread of its own
    /// is waited for the same way.
    @Test func waitsEndInTime() async {
        let completion = Completion()
        #expect(await completion.ended(within: .milliseconds(20)) == false)
        completion.finish()
        #expect(await completion.ended(within: .seconds(60)))
        let thread = runningThread(named: "marquee-test") {}
        #expect(await thread?.ended(within: .seconds(60)) == true)
        #expect(await onThread(named: "marquee-test") { 6 * 7 } == 42)
    }

    /// A wait whose task is cancelled ends at once with false (a part that waits for the feeds
    /// ends with the parts); the work's end still reaches the other waits.
    @Test func aCancelledWaitEnds() async {
        let completion = Completion()
        let waiting = Task { await completion.ended() }
        let long = Task { await completion.ended(within: .seconds(3600)) }
        waiting.cancel()
        #expect(await waiting.value == false)
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await completion.ended()
        }
        #expect(await cancelledFirst.value == false)
        completion.finish()
        #expect(await long.value)
        #expect(await completion.ended())
    }
}
