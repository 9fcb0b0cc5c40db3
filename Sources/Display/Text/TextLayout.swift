import CFriBidi
import CHarfBuzz
import Marquee
import Synchronization

/// How a font draws a grapheme cluster in its context after shaping (a joined Arabic letter,
/// a Devanagari conjunct with its vowel signs, an emoji ZWJ sequence as one picture): the font
/// and its glyphs, placed in the font's own units from the cluster's pen. In font units, one
/// form serves every size of the same font: the band and the announcement box share them.
struct ShapedForm: Hashable {
    struct Glyph: Hashable {
        var id: UInt32
        var x: Int32
        var y: Int32
    }

    var fontPath: String
    var glyphs: [Glyph]
    var advance: Int32

    /// Every form laid out in this process, numbered from 1 (`LaidGlyph.form`).
    private static let registry = Mutex<(numbers: [ShapedForm: Int], forms: [ShapedForm])>(([:], []))

    static func number(of form: ShapedForm) -> Int {
        registry.withLock { registry in
            if let known = registry.numbers[form] { return known }
            registry.forms.append(form)
            registry.numbers[form] = registry.forms.count
            return registry.forms.count
        }
    }

    static func form(numbered number: Int) -> ShapedForm? {
        registry.withLock { number > 0 && number <= $0.forms.count ? $0.forms[number - 1] : nil }
    }
}

extension FontStack {
    /// `text` shaped as it is seen, left to right: each paragraph's direction and each run's
    /// (Unicode Bidirectional Algorithm, FriBidi), each cluster from the first font that has it,
    /// each run of one font and direction shaped by HarfBuzz with the whole text as context
    /// (Arabic letters join across runs), the runs put in the order they are seen. A cluster no
    /// font has is left out and noted (`takeMissing`).
    package func layout(_ text: String) -> [LaidGlyph] {
        let clusters = text.filter { !$0.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } }
        guard !clusters.isEmpty else { return [] }
        var scalars: [UInt32] = []
        var clusterOfScalar: [Int] = []
        var firstScalar: [Int] = []
        for (index, cluster) in clusters.enumerated() {
            firstScalar.append(scalars.count)
            for scalar in cluster.unicodeScalars {
                scalars.append(scalar.value)
                clusterOfScalar.append(index)
            }
        }
        let levels = Self.embeddingLevels(scalars)
        let characters = Array(clusters)
        // Runs of clusters drawn from one font at one level.
        var runs: [(face: Int, level: UInt8, clusters: Range<Int>)] = []
        for (index, character) in characters.enumerated() {
            guard let face = face(for: character) else {
                noteMissing(character)
                continue
            }
            let level = levels[firstScalar[index]]
            if let last = runs.last, last.face == face, last.level == level, last.clusters.upperBound == index {
                runs[runs.count - 1].clusters = last.clusters.lowerBound..<(index + 1)
            } else {
                runs.append((face, level, index..<(index + 1)))
            }
        }
        var laid: [LaidGlyph] = []
        var pen = 0
        for run in Self.visualOrder(runs, level: \.level) {
            let scalarRange = firstScalar[run.clusters.lowerBound]..<(run.clusters.upperBound < firstScalar.count
                ? firstScalar[run.clusters.upperBound] : scalars.count)
            for (cluster, form) in shape(scalars, range: scalarRange, face: run.face, rightToLeft: run.level % 2 == 1,
                                         clusterOfScalar: clusterOfScalar) {
                let advance = scaled(form.advance, face: run.face)
                laid.append(LaidGlyph(character: characters[cluster], offset: pen, advance: advance,
                                      form: ShapedForm.number(of: form), level: run.level))
                pen += advance
            }
        }
        return laid
    }

    /// Appends to `placements` the glyph pictures drawing a laid glyph whose pen is at `pen`
    /// (1/64 pixel), turned and sized by `pose` about the glyph's middle. Into a buffer the
    /// caller keeps, so drawing a frame allocates nothing.
    func place(_ character: Character, form number: Int, at pen: Int, pose: GlyphPose = .upright,
               into placements: inout [GlyphPlacement]) {
        guard let (face, form) = form(numbered: number) else {
            guard let found = resolve(character) else { return }
            for glyph in found.glyphs {
                let (key, x) = key(face: found.face, glyph: glyph, pen: pen, pose: pose, centre: found.advance / 2)
                placements.append(GlyphPlacement(key: key, x: x, rise: 0))
            }
            return
        }
        let centre = scaled(form.advance, face: face) / 2
        for glyph in form.glyphs {
            let offset = scaled(glyph.x, face: face)
            let (key, x) = key(face: face, glyph: glyph.id, pen: pen + offset, pose: pose, centre: centre - offset)
            placements.append(GlyphPlacement(key: key, x: x, rise: (scaled(glyph.y, face: face) + 32) >> 6))
        }
    }

    /// The same glyphs laid in this stack's size, one for one: a shaped form is scaled, a
    /// character measured (and kerned against the one before).
    func measured(_ glyphs: [LaidGlyph]) -> [LaidGlyph] {
        var measured: [LaidGlyph] = []
        measured.reserveCapacity(glyphs.count)
        var offset = 0
        for glyph in glyphs {
            let advance: Int
            if let (face, form) = form(numbered: glyph.form) {
                advance = scaled(form.advance, face: face)
            } else {
                if let previous = measured.last, previous.form == 0 {
                    offset += kerning(between: previous.character, and: glyph.character)
                }
                advance = self.advance(of: glyph.character)
            }
            measured.append(LaidGlyph(character: glyph.character, offset: offset, advance: advance, form: glyph.form,
                                      level: glyph.level))
            offset += advance
        }
        return measured
    }

    /// A position in 1/64 pixel as a whole pixel and a quarter-pixel phase (0…3).
    static func pixelAndPhase(_ units: Int) -> (pixel: Int, phase: Int) {
        let quarters = (units + 8) >> 4
        return (quarters >> 2, quarters & 3)
    }

    // MARK: - Shaping

    /// The clusters of `range` shaped in `face`, in the order they are seen, each with its form.
    private func shape(_ scalars: [UInt32], range: Range<Int>, face: Int, rightToLeft: Bool, clusterOfScalar: [Int])
        -> [(cluster: Int, form: ShapedForm)]
    {
        guard let font = shaper(of: face), let buffer = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buffer) }
        scalars.withUnsafeBufferPointer { text in
            hb_buffer_add_utf32(buffer, text.baseAddress, Int32(text.count), UInt32(range.lowerBound), Int32(range.count))
        }
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_cluster_level(buffer, HB_BUFFER_CLUSTER_LEVEL_MONOTONE_GRAPHEMES)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        let path = facePath(face)
        var shaped: [(cluster: Int, form: ShapedForm)] = []
        for index in 0..<Int(count) {
            let cluster = clusterOfScalar[Int(infos[index].cluster)]
            let position = positions[index]
            if shaped.last?.cluster != cluster {
                shaped.append((cluster, ShapedForm(fontPath: path, glyphs: [], advance: 0)))
            }
            // A glyph the font lacks (a mark it has no glyph for) is left out; its advance stays.
            let pen = shaped[shaped.count - 1].form.advance
            if infos[index].codepoint != 0 {
                shaped[shaped.count - 1].form.glyphs.append(ShapedForm.Glyph(
                    id: infos[index].codepoint, x: pen + position.x_offset, y: position.y_offset))
            }
            shaped[shaped.count - 1].form.advance += position.x_advance
        }
        return shaped.filter { !$0.form.glyphs.isEmpty || $0.form.advance > 0 }
    }

    /// The Unicode Bidirectional Algorithm's embedding level of each code point, the paragraph's
    /// direction taken from its first strong character.
    static func embeddingLevels(_ scalars: [UInt32]) -> [UInt8] {
        let count = Int32(scalars.count)
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: scalars.count)
        var brackets = [FriBidiBracketType](repeating: 0, count: scalars.count)
        var levels = [FriBidiLevel](repeating: 0, count: scalars.count)
        var direction = FRIBIDI_PAR_ON
        scalars.withUnsafeBufferPointer { text in
            fribidi_get_bidi_types(text.baseAddress, count, &types)
            fribidi_get_bracket_types(text.baseAddress, count, types, &brackets)
        }
        guard fribidi_get_par_embedding_levels_ex(types, brackets, count, &direction, &levels) != 0 else {
            return [UInt8](repeating: 0, count: scalars.count)
        }
        return levels.map { UInt8(clamping: $0) }
    }

    /// Runs in the order they are seen (rule L2): from the highest level down to the lowest
    /// odd one, every stretch of runs at that level or higher is reversed.
    static func visualOrder<Run>(_ runs: [Run], level: (Run) -> UInt8) -> [Run] {
        var runs = runs
        guard let highest = runs.map(level).max(), let lowestOdd = runs.map(level).filter({ $0 % 2 == 1 }).min() else {
            return runs
        }
        for threshold in stride(from: Int(highest), through: Int(lowestOdd), by: -1) {
            var index = 0
            while index < runs.count {
                guard level(runs[index]) >= threshold else {
                    index += 1
                    continue
                }
                var end = index
                while end < runs.count, level(runs[end]) >= threshold { end += 1 }
                runs[index..<end].reverse()
                index = end
            }
        }
        return runs
    }
}
