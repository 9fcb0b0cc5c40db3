import Foundation
import Schedule
import Support
import Testing

@testable import Display

/// Every colour the display draws text or lines in, by day and at the darkest of the night,
/// against the screen's black: WCAG contrast at least 7:1 and a light-reflectance difference
/// of at least 30 points, as dementia design guidance (DSDC, Alzheimer's Society) asks. The
/// table in `docs/design.md` is what this prints.
@Suite struct ColourAuditTests {
    /// The display's own colours, as they are drawn (the frame as it is; the rest made readable).
    static let ownColours: [(name: String, colour: Colour)] = [
        ("letters without a colour (warm white)", Colour.plainText.readable()),
        ("orientation line", Colour.orientationLine.readable()),
        ("announcement box frame", Colour.boxFrame),
        ("problem rows (terminal, amber)", Colour.problemText.readable()),
    ]

    /// A calendar's colour as the letters show it, turned as the dance turns it.
    static let calendarColours: [(name: String, colour: Colour)] = Colour.cssNames.flatMap { name in
        [0.0, 90, 180, 270].map { turn in
            (turn == 0 ? name : "\(name) turned \(Int(turn))°", PixelScreen.inkColour(Colour(css: name), hueShift: turn))
        }
    }

    static func row(_ name: String, _ colour: Colour) -> String {
        let night = colour.dimmed(1)
        func figures(_ colour: Colour) -> String {
            "\(colour) \(String(format: "%.1f", colour.contrastOnBlack)):1, LRV \(String(format: "%.0f", colour.lightReflectance))"
        }
        return "| \(name) | \(figures(colour)) | \(figures(night)) |"
    }

    @Test func everyColourReadsOnBlackByDayAndAtNight() {
        for (name, colour) in Self.ownColours + Self.calendarColours {
            for (time, shown) in [("by day", colour), ("at night", colour.dimmed(1))] {
                #expect(shown.contrastOnBlack >= 7, "\(name) \(time): \(shown) reads at \(shown.contrastOnBlack):1")
                #expect(shown.lightReflectance >= 30, "\(name) \(time): \(shown) has LRV \(shown.lightReflectance)")
            }
        }
        print((Self.ownColours + Self.calendarColours.filter { ["gold", "hotpink", "navy", "red", "darkorchid"].contains($0.name) })
            .map { Self.row($0.name, $0.colour) }.joined(separator: "\n"))
    }

    /// A calendar's colour stays recognisable: made readable it keeps its hue (a grey stays grey).
    @Test func aCalendarsColourKeepsItsHue() {
        func hue(_ colour: Colour) -> Double? {
            let r = Double(colour.red), g = Double(colour.green), b = Double(colour.blue)
            let high = max(r, g, b), low = min(r, g, b)
            guard high - low > 12 else { return nil }
            let degrees = atan2(sqrt(3) * (g - b), 2 * r - g - b) * 180 / .pi
            return degrees < 0 ? degrees + 360 : degrees
        }
        for name in Colour.cssNames {
            let given = Colour(css: name)!, shown = PixelScreen.inkColour(given, hueShift: 0)
            guard let before = hue(given), let after = hue(shown) else { continue }
            let turned = abs(before - after).truncatingRemainder(dividingBy: 360)
            #expect(min(turned, 360 - turned) < 12, "\(name): \(given) shown as \(shown)")
        }
    }
}
