import Support
import Testing

/// Programs run to their end: the box's own tools in the C locale, a carer's program with this
/// process's environment and its input.
@Suite struct ProgramRunTests {
    /// nmcli's and openssl's answers are read as English words: they get no LANG to translate by.
    @Test func theBoxsToolsRunWithAnEmptyEnvironment() {
        let run = runProgram("/usr/bin/env", [])
        #expect(run.status == 0 && run.output.isEmpty, "\(run.output)")
    }

    @Test func aProgramGetsItsInputAndThisEnvironment() {
        let run = runProgram("/bin/sh", ["-c", "cat; printf %s \"$PATH\""], input: Array("words\n".utf8))
        #expect(run.status == 0 && run.signal == nil)
        #expect(String(decoding: run.output, as: UTF8.self).hasPrefix("words\n/"))
    }
}
