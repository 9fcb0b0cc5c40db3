import Marquee
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// How many colours a terminal shows, and how a colour is written for it.
package enum ColourDepth: Sendable, Hashable {
    /// `COLORTERM=truecolor`: 24-bit SGR.
    case trueColour
    /// xterm's 256-colour palette.
    case palette256
    /// The Linux console: 8 hues, bold for the bright ones.
    case basic8

    /// The SGR parameters that select `colour` as the foreground.
    func foreground(_ colour: Colour) -> String {
        switch self {
        case .trueColour:
            return "38;2;\(colour.red);\(colour.green);\(colour.blue)"
        case .palette256:
            return "38;5;\(Self.paletteEntry(nearest: colour))"
        case .basic8:
            let top = max(colour.red, colour.green, colour.blue)
            func on(_ value: UInt8) -> Int { Int(value) * 2 > Int(top) ? 1 : 0 }
            let hue = on(colour.red) + 2 * on(colour.green) + 4 * on(colour.blue)
            return top > 0xAA ? "1;3\(hue)" : "3\(hue)"
        }
    }

    /// The levels of each channel in xterm's 6×6×6 colour cube (entries 16–231).
    private static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// The colour of an entry of xterm's palette from 16 on: the colour cube, then the grey ramp.
    static func paletteColour(of entry: Int) -> Colour {
        if entry >= 232 {
            let grey = UInt8(8 + 10 * (entry - 232))
            return Colour(red: grey, green: grey, blue: grey)
        }
        let index = entry - 16
        return Colour(red: cubeLevels[index / 36], green: cubeLevels[index / 6 % 6], blue: cubeLevels[index % 6])
    }

    /// The entry of xterm's palette nearest to `colour` that reads on black at least as well as
    /// `colour` does, up to 7:1: the nearest level per channel alone turned a readable navy
    /// into #8787d7 (6.5:1) and grey into #878787 (5.9:1).
    static func paletteEntry(nearest colour: Colour) -> Int {
        let needed = min(7, colour.contrastOnBlack)
        func distance(_ entry: Int) -> Int {
            let other = paletteColour(of: entry)
            let (r, g, b) = (Int(other.red) - Int(colour.red), Int(other.green) - Int(colour.green),
                             Int(other.blue) - Int(colour.blue))
            return r * r + g * g + b * b
        }
        // The cube levels on either side of each channel, and every grey.
        func around(_ value: UInt8) -> Set<Int> {
            let above = cubeLevels.firstIndex { $0 >= value } ?? cubeLevels.count - 1
            return [max(0, above - 1), above]
        }
        var candidates = Array(232...255)
        for red in around(colour.red) {
            for green in around(colour.green) {
                for blue in around(colour.blue) { candidates.append(16 + 36 * red + 6 * green + blue) }
            }
        }
        // The upper corner of the cube around the colour reads at least as well, so one passes.
        return candidates.filter { paletteColour(of: $0).contrastOnBlack >= needed }.min { distance($0) < distance($1) } ?? 231
    }
}

extension Colour {
    /// Letters without a colour of their own: a warm white.
    static let plainText = Colour(red: 255, green: 240, blue: 220)

    /// The orientation line's colour: calmer than the messages, still 7:1 on black.
    static let orientationLine = Colour(red: 200, green: 205, blue: 215)

    /// The announcement box's frame: a grey darker than any letter, 7:1 on black.
    static let boxFrame = Colour(red: 150, green: 150, blue: 150)

    /// The problem rows in a terminal: amber, apart from every message.
    static let problemText = Colour(red: 255, green: 191, blue: 0)

    /// Light reflectance (LRV, 0 for black … 100 for white) as dementia design guidance
    /// measures it: the luminance in percent. Black, the screen's background, is 0.
    var lightReflectance: Double { luminance * 100 }

    /// A channel in linear light (0…1), as WCAG's luminance takes it.
    private static func linear(_ value: UInt8) -> Double {
        let c = Double(value) / 255
        return c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// WCAG relative luminance.
    var luminance: Double {
        0.2126 * Self.linear(red) + 0.7152 * Self.linear(green) + 0.0722 * Self.linear(blue)
    }

    /// Contrast ratio against black (the screen's background).
    var contrastOnBlack: Double { (luminance + 0.05) / 0.05 }

    /// This colour, lightened towards white until it reads at `ratio`:1 on black.
    package func readable(onBlackAtLeast ratio: Double = 7) -> Colour {
        var colour = self
        var step = 0.0
        while colour.contrastOnBlack < ratio, step < 1 {
            step += 0.05
            func toward(_ value: UInt8) -> UInt8 { UInt8((Double(value) + (255 - Double(value)) * step).rounded()) }
            colour = Colour(red: toward(red), green: toward(green), blue: toward(blue))
        }
        return colour
    }

    /// Darkened for the night by `shade` (0: as it is, 1: full night), in linear light with its
    /// hue kept: at full night it reads at 7:1 on black and 30 points of light reflectance
    /// above it, as by day the least of the letters does (a bright colour; a dark one stays).
    func dimmed(_ shade: Double) -> Colour {
        guard shade > 0 else { return self }
        return scaled(Self.nightFactor(brightest: luminance, shade: shade))
    }

    /// What the light of something whose brightest colour has `brightest` luminance is
    /// multiplied by at `shade` of the night (see `dimmed`).
    static func nightFactor(brightest: Double, shade: Double) -> Double {
        // 7.1:1 and LRV 30.5: a little above both floors, so a channel rounded down stays on them.
        let nightLuminance = 0.305
        return 1 - shade * (1 - min(1, nightLuminance / max(brightest, 0.000_1)))
    }

    /// The colour with its light (in linear light) multiplied by `factor` (0…1).
    func scaled(_ factor: Double) -> Colour {
        func scale(_ value: UInt8) -> UInt8 {
            let linear = Self.linear(value) * factor
            let encoded = linear <= 0.003_130_8 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((min(1, encoded) * 255).rounded())
        }
        return Colour(red: scale(red), green: scale(green), blue: scale(blue))
    }

    /// The hue turned by `degrees`, saturation and value kept (for the dance).
    func hueRotated(by degrees: Double) -> Colour {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let high = max(r, g, b), low = min(r, g, b), delta = high - low
        guard delta > 0.001 else { return self }
        var hue: Double
        if high == r { hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6) }
        else if high == g { hue = 60 * ((b - r) / delta + 2) }
        else { hue = 60 * ((r - g) / delta + 4) }
        hue = (hue + degrees).truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        let x = delta * (1 - abs((hue / 60).truncatingRemainder(dividingBy: 2) - 1))
        let (r1, g1, b1): (Double, Double, Double) =
            switch Int(hue / 60) {
            case 0: (delta, x, 0)
            case 1: (x, delta, 0)
            case 2: (0, delta, x)
            case 3: (0, x, delta)
            case 4: (x, 0, delta)
            default: (delta, 0, x)
            }
        func byte(_ value: Double) -> UInt8 { UInt8(((value + low) * 255).rounded()) }
        return Colour(red: byte(r1), green: byte(g1), blue: byte(b1))
    }
}
