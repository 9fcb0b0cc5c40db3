import Foundation
import Support
import TestSupport
import Testing

/// `marquee setup` as the setup service runs it, on a box's folders of the test's: the carer's
/// file applied and written back without its secrets, what could not be used said on standard
/// error and in the file, and shown on the display among the box's problems.
@Suite(.tier(.live, needs: [.program("/usr/bin/tmux")]))
struct SetupCommandTests {
    @Test func theCarersFileIsAppliedAndWhatWasWrongShowsOnTheBox() async throws {
        let box = try PageBox()
        let setup = box.folder.path + "/marquee-setup.txt"
        try """
            # Written on a laptop.
            language = "de"
            timezone = "Mars/Olympus"
            page_password = "the kiosk's carer"

            """.write(toFile: setup, atomically: true, encoding: .utf8)
        let arguments = ["setup", "--file", setup, "--config", box.configuration, "--network-folder", box.folder.path + "/nm"]
        let run = try CommandLineTests.marquee(arguments)
        #expect(run.status == 1 && run.output.contains("marquee setup: applied the language de, the page's password"), "\(run)")
        #expect(run.errors.contains("marquee setup: not used: \(setup):3: timezone: unknown time zone \"Mars/Olympus\""), "\(run.errors)")
        let back = try String(contentsOfFile: setup, encoding: .utf8)
        #expect(back.hasPrefix("# marquee: applied on ") && back.contains("# marquee: not used: timezone: unknown time zone"), "\(back)")
        #expect(!back.contains("kiosk's carer") && back.contains("timezone = \"Mars/Olympus\""), "\(back)")
        #expect(try String(contentsOfFile: box.configuration, encoding: .utf8).hasSuffix("language = \"de\"\n"))
        // Run again (the service is woken by its own write): nothing new, the file left alone.
        let again = try CommandLineTests.marquee(arguments)
        #expect(again.output.contains("nothing new"))
        #expect(try String(contentsOfFile: setup, encoding: .utf8) == back)

        // The page's password works, and the display says what the setup could not use.
        try box.start()
        defer { box.stop() }
        let status = try CommandLineTests.marquee("status", "--json", "--socket", box.socket)
        #expect(status.output.contains("the setup file: timezone: unknown time zone \\\"Mars/Olympus\\\""), "\(status.output.prefix(600))")
    }
}
