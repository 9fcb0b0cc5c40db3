import Testing

@testable import Schedule

/// The one decision of a load, every case of it: which version of a file is in effect and
/// what its status says. A file that reads well is taken; a broken one never replaces a good
/// version, shown or kept on disk; an unchanged one keeps what it had.
@Suite struct VersionChoiceTests {
    typealias Outcome = VersionChoice.Outcome

    @Test(arguments: [
        // unchanged, reads well, shown is good, usable copy → outcome, status
        (true, true, true, false, Outcome.keepsItsVersion, FeedStatus.State.loaded),
        (true, false, false, false, .keepsItsVersion, .failed(keptLastGood: false)),
        (true, false, false, true, .keepsItsVersion, .failed(keptLastGood: false)),
        (true, false, true, true, .keepsItsVersion, .loaded),
        (true, false, true, false, .keepsItsVersion, .loaded),
        (true, true, true, true, .keepsItsVersion, .loaded),
        (true, true, false, false, .keepsItsVersion, .failed(keptLastGood: false)),
        (true, true, false, true, .keepsItsVersion, .failed(keptLastGood: false)),
        (false, true, false, false, .takesTheNewVersion, .loaded),
        (false, true, true, true, .takesTheNewVersion, .loaded),
        (false, true, false, true, .takesTheNewVersion, .loaded),
        (false, true, true, false, .takesTheNewVersion, .loaded),
        (false, false, true, false, .keepsWhatIsShown, .failed(keptLastGood: true)),
        (false, false, true, true, .keepsWhatIsShown, .failed(keptLastGood: true)),
        (false, false, false, true, .takesTheLastGoodCopy, .failed(keptLastGood: true)),
        (false, false, false, false, .showsWhatItCan, .failed(keptLastGood: false)),
    ])
    func everyCase(
        unchanged: Bool, readsWell: Bool, shownIsGood: Bool, hasCopy: Bool, outcome: Outcome, state: FeedStatus.State
    ) {
        let choice = VersionChoice(isUnchanged: unchanged, readsWell: readsWell, shownIsGood: shownIsGood,
                                   hasUsableCopy: hasCopy)
        #expect(choice.outcome == outcome)
        #expect(choice.state == state)
    }

    /// A reader stopped without a verdict (it hung, used its time) says nothing of the bytes:
    /// a good version shown or kept stays as for a broken file, and with none the bytes are
    /// not taken for the file's version (they were: the file then counted as unchanged and
    /// was never read again, even after it stopped hanging).
    @Test(arguments: [
        // shown is good, usable copy → outcome
        (true, false, Outcome.keepsWhatIsShown),
        (true, true, .keepsWhatIsShown),
        (false, true, .takesTheLastGoodCopy),
        (false, false, .waitsToBeReadAgain),
    ])
    func aStoppedReader(shownIsGood: Bool, hasCopy: Bool, outcome: Outcome) {
        let choice = VersionChoice(isUnchanged: false, readsWell: false, shownIsGood: shownIsGood,
                                   hasUsableCopy: hasCopy, readerStopped: true)
        #expect(choice.outcome == outcome)
        #expect(choice.state == .failed(keptLastGood: shownIsGood || hasCopy))
    }
}
