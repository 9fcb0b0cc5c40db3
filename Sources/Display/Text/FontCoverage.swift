import CFreeType
import CHarfBuzz
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The characters a font file has, as ranges of code points, read from its character map once
/// per process (for every font stack) and kept: a few hundred bytes per font, where an open
/// font keeps its file mapped and its tables in memory.
struct FontCoverage: Sendable {
    private var ranges: [ClosedRange<UInt32>] = []

    func contains(_ value: UInt32) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(value)
    }

    private static let known = Mutex<[String: FontCoverage]>([:])

    /// The coverage of the font at `path` (none when FreeType cannot open it).
    static func of(fontAt path: String) -> FontCoverage {
        if let coverage = known.withLock({ $0[path] }) { return coverage }
        let coverage = read(path)
        known.withLock { $0[path] = coverage }
        return coverage
    }

    private static func read(_ path: String) -> FontCoverage {
        var coverage = FontCoverage()
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return coverage }
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else { return coverage }
        defer { FT_Done_Face(face) }
        var glyph: FT_UInt = 0
        var code = FT_Get_First_Char(face, &glyph)
        while glyph != 0 {
            let value = UInt32(truncatingIfNeeded: code)
            if let last = coverage.ranges.last, last.upperBound &+ 1 == value {
                coverage.ranges[coverage.ranges.count - 1] = last.lowerBound...value
            } else if coverage.ranges.last.map({ $0.upperBound < value }) ?? true {
                coverage.ranges.append(value...value)
            }
            code = FT_Get_Next_Char(face, code, &glyph)
        }
        return coverage
    }
}

/// A font file mapped into memory once per process, read-only, for every font stack and for
/// both FreeType and HarfBuzz: the band's, the box's and the line's fonts share its pages
/// (each stack opening the file itself kept up to six mappings of it). Never unmapped: a font
/// opened once is kept by the stacks that use it.
final class FontFile: @unchecked Sendable {
    /// Read-only memory that stays mapped: safe to read from any thread.
    let bytes: UnsafePointer<FT_Byte>
    let count: Int
    /// HarfBuzz's face of the file (nil: HarfBuzz cannot read it), shared by the stacks' fonts
    /// for shaping, so the tables HarfBuzz loads and the lookups it prepares are kept once, not
    /// once a stack. HarfBuzz's faces may be used from any thread.
    let harfBuzzFace: OpaquePointer?

    private init(bytes: UnsafePointer<FT_Byte>, count: Int) {
        self.bytes = bytes
        self.count = count
        let blob = hb_blob_create(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self),
                                  UInt32(truncatingIfNeeded: count), HB_MEMORY_MODE_READONLY, nil, nil)
        defer { hb_blob_destroy(blob) }
        harfBuzzFace = hb_face_create(blob, 0)
    }

    private static let files = Mutex<[String: FontFile]>([:])

    /// The file at `path` mapped (nil: it cannot be read).
    static func mapped(_ path: String) -> FontFile? {
        files.withLock { files in
            if let known = files[path] { return known }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_size > 0,
                  let mapping = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
                return nil
            }
            let file = FontFile(bytes: UnsafePointer(mapping.assumingMemoryBound(to: FT_Byte.self)), count: Int(status.st_size))
            files[path] = file
            return file
        }
    }
}
