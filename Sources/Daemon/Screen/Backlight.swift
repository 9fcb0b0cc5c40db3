import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The panel's backlight (Linux `/sys/class/backlight`), turned down at night instead of
/// darkening the colours, where the box has one and the service may write it. Never to 0: an
/// unlit panel is a blank screen — unless the carer asked for a dark screen (`screen_off`):
/// then it is switched off (`bl_power`) while the screen is dark.
final class Backlight {
    /// The device's name (`intel_backlight`, `rpi_backlight`, ...).
    let name: String
    /// The level by day: as found, or as an earlier run noted before it dimmed and stopped
    /// without brightening again (a crash at night).
    let dayLevel: Int
    private let brightnessPath: String
    /// Where the day's level is noted while the backlight is dimmed (nil: nowhere).
    private let notePath: String?
    private var level: Int

    /// What keeps marquee from using a backlight the box has.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The backlight in `folder`, preferring the kinds as the kernel documents them (firmware,
    /// then platform, then raw); nil when there is none. Fails when there is one marquee may
    /// not write. `notePath`: a file of marquee's own where the day's level is kept while dimmed.
    static func find(in folder: String, notePath: String?) throws(Problem) -> Backlight? {
        let kinds = ["firmware", "platform", "raw"]
        let ranked = (directoryEntries(folder) ?? []).map(\.name).filter { !$0.hasPrefix(".") }.map { name in
            (rank: kinds.firstIndex(of: readText(folder + "/" + name + "/type") ?? "") ?? kinds.count, name: name)
        }
        guard let name = ranked.min(by: { ($0.rank, $0.name) < ($1.rank, $1.name) })?.name else { return nil }
        let device = folder + "/" + name
        guard let maximum = readText(device + "/max_brightness").flatMap(Int.init), maximum > 0,
              let current = readText(device + "/brightness").flatMap(Int.init)
        else { throw Problem(description: "backlight \(name): cannot read its brightness") }
        guard access(device + "/brightness", W_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            throw Problem(description: "backlight \(name): may not set its brightness (\(reason))")
        }
        let noted = notePath.flatMap { readText($0) }.flatMap(Int.init).flatMap { (1...maximum).contains($0) ? $0 : nil }
        let day = max(current, noted ?? 0)
        guard day > 0 else { return nil }
        return Backlight(name: name, dayLevel: day, brightnessPath: device + "/brightness", notePath: notePath, level: current)
    }

    private init(name: String, dayLevel: Int, brightnessPath: String, notePath: String?, level: Int) {
        self.name = name
        self.dayLevel = dayLevel
        self.brightnessPath = brightnessPath
        self.notePath = notePath
        self.level = level
    }

    /// The level at the darkest of the night: `percent` of the day's, rounded, never 0.
    func nightLevel(percent: Int) -> Int {
        min(dayLevel, max(1, (dayLevel * min(max(percent, 0), 100) + 50) / 100))
    }

    /// Sets the level for `shade` (0 by day, 1 at the darkest of the night, `nightPercent` of
    /// the day's level), linearly in between.
    func setShade(_ shade: Double, nightPercent: Int) throws(Problem) {
        let night = nightLevel(percent: nightPercent)
        let wanted = dayLevel - Int((Double(dayLevel - night) * min(max(shade, 0), 1)).rounded())
        guard wanted != level else { return }
        if wanted < dayLevel, let notePath { Self.writeText(notePath, "\(dayLevel)\n", creating: true) }
        guard Self.writeText(brightnessPath, "\(wanted)\n", creating: false) else {
            throw Problem(description: "backlight \(name): cannot set its brightness (\(String(cString: strerror(errno))))")
        }
        level = wanted
        if wanted == dayLevel, let notePath { unlink(notePath) }
    }

    /// Back to the day's level, and on (when marquee stops, so the box is not left dim or dark).
    func brightenForTheDay() {
        try? setPower(true)
        try? setShade(0, nightPercent: 100)
    }

    /// Whether `bl_power` says it is switched off (left so by a run that stopped while the
    /// screen was dark: a crash, a power cut).
    var isSwitchedOff: Bool {
        Self.readText(blPowerPath).flatMap(Int.init).map { $0 != 0 } ?? false
    }

    private var blPowerPath: String { String(brightnessPath.dropLast("brightness".count)) + "bl_power" }

    /// Switches the backlight off (the screen is dark) or on again, through `bl_power`
    /// (FB_BLANK_POWERDOWN, FB_BLANK_UNBLANK).
    func setPower(_ on: Bool) throws(Problem) {
        guard Self.writeText(blPowerPath, on ? "0\n" : "4\n", creating: false) else {
            throw Problem(description: "backlight \(name): cannot switch it \(on ? "on" : "off") (\(String(cString: strerror(errno))))")
        }
    }

    /// A small text file's first line.
    private static func readText(_ path: String) -> String? {
        guard case .success(let bytes) = readFile(path, limit: 4096) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
    }

    /// Replaces a small file's text (a sysfs attribute is only written); false (with `errno`)
    /// when it cannot.
    @discardableResult
    private static func writeText(_ path: String, _ text: String, creating: Bool) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (creating ? O_CREAT : 0), 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return write(fd, bytes, bytes.count) == bytes.count
    }
}
