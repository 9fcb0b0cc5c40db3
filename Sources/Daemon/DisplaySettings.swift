import Marquee

/// How `marquee run` shows things, from the command line and the configuration file; can be
/// replaced while running (a reload).
public struct DisplaySettings: Sendable, Hashable {
    public var marquee: MarqueeConfiguration
    /// Shown when nothing is scheduled; `{date}` becomes today written out.
    public var idleText: String
    /// For messages without a COLOR of their own.
    public var textColour: Colour?

    public init(marquee: MarqueeConfiguration, idleText: String = "{date}", textColour: Colour? = nil) {
        self.marquee = marquee
        self.idleText = idleText
        self.textColour = textColour
    }
}
