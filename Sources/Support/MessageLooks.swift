/// How a message is shown (`X-MARQUEE-EFFECT`; `effect` in the configuration).
package enum MessageEffect: String, Hashable, Sendable, CaseIterable {
    case scroll, typewriter, dance
}

/// A colour for a message: its calendar's `COLOR` (RFC 7986), a CSS name or `#rrggbb`.
package struct Colour: Hashable, Sendable {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}
