/// The laid part of the tape: messages, separators and gaps at fixed positions (display
/// units). Pieces are laid lazily, only as far ahead as the window needs, so a change of
/// messages reaches the screen within about one window width; a laid piece never moves.
struct Tape {
    struct Piece {
        var start: Int
        var width: Int
        /// nil: an empty gap.
        var item: TapeItem?
        var isSeparator: Bool
        var end: Int { start + width }
    }

    /// Where the next pieces come from: the messages in turn, or nothing (a still line).
    enum Source {
        case cycle(next: Int)
        case ended
    }

    private(set) var pieces: [Piece] = []
    private(set) var end = 0
    var source = Source.ended
    var needsSeparator = false
    /// Messages laid before the cycle goes on: those that just became active.
    private var arrivals: [TapeItem] = []

    /// Whether the last piece is a message (not a separator or a gap).
    var endsWithMessage: Bool {
        guard let last = pieces.last else { return false }
        return last.item != nil && !last.isSeparator
    }

    /// Lays the messages in turn, each followed by the separator, until `position`.
    mutating func lay(upTo position: Int, items: [TapeItem], separator: TapeItem) {
        guard case .cycle(var next) = source, !items.isEmpty else { return }
        while end < position {
            if needsSeparator {
                append(separator, isSeparator: true)
                needsSeparator = false
            } else if !arrivals.isEmpty {
                append(arrivals.removeFirst(), isSeparator: false)
                needsSeparator = true
            } else {
                append(items[next % items.count], isSeparator: false)
                next = (next + 1) % items.count
                needsSeparator = true
            }
        }
        source = .cycle(next: next)
    }

    /// From the next seam on, the tape shows `arrivals` (indices into the new messages, in
    /// display order), then the arrivals of earlier changes not laid yet, then repeats the
    /// messages from the one after the last arrival, or from the first: a message that just
    /// became active comes next, not after a loop through the others nor behind a long queue
    /// of messages that arrived before it.
    mutating func continueCycle(items: [TapeItem], arrivals: [Int] = []) {
        let waiting = self.arrivals.compactMap { waiting in items.firstIndex { $0.message.text == waiting.message.text } }
        var order: [Int] = []
        for index in arrivals + waiting where !order.contains(index) { order.append(index) }
        self.arrivals = order.map { items[$0] }
        source = .cycle(next: order.last.map { ($0 + 1) % items.count } ?? 0)
        needsSeparator = endsWithMessage
    }

    mutating func append(_ item: TapeItem, isSeparator: Bool) {
        pieces.append(Piece(start: end, width: item.width, item: item, isSeparator: isSeparator))
        end += item.width
    }

    mutating func appendGap(_ width: Int) {
        guard width > 0 else { return }
        pieces.append(Piece(start: end, width: width, item: nil, isSeparator: false))
        end += width
    }

    /// The messages once, joined by the separator, and then nothing.
    mutating func layLine(_ items: [TapeItem], separator: TapeItem) {
        for (index, item) in items.enumerated() {
            if index > 0 { append(separator, isSeparator: true) }
            append(item, isSeparator: false)
        }
        source = .ended
        needsSeparator = false
        arrivals = []
    }

    /// Forgets every piece; positions go on from where the tape ended.
    mutating func restart() {
        pieces.removeAll()
        source = .ended
        needsSeparator = false
        arrivals = []
    }

    /// Forgets pieces not shown yet (starting at or after `position`), to lay new ones.
    mutating func dropPieces(startingFrom position: Int) {
        while let last = pieces.last, last.start >= position {
            pieces.removeLast()
            end = last.start
        }
        needsSeparator = false
    }

    /// The same pieces in a new measure (`measure` gives an item its new glyphs; a gap is
    /// scaled by `ratio`), laid one after the other from the first one's scaled start. Returns
    /// where `position` lands: on the same letter and as far into it, or as far into the gap.
    mutating func remeasure(position: Double, ratio: Double, measure: (TapeItem) -> TapeItem) -> Double {
        let oldFirst = Double(pieces.first?.start ?? end)
        let oldEnd = Double(end)
        var cursor = Int((oldFirst * ratio).rounded())
        let newFirst = Double(cursor)
        var mapped: Double?
        for index in pieces.indices {
            let old = pieces[index]
            var piece = old
            piece.start = cursor
            if let item = old.item {
                piece.item = measure(item)
                piece.width = piece.item?.width ?? 0
            } else {
                piece.width = max(1, Int((Double(old.width) * ratio).rounded()))
            }
            if mapped == nil, position >= Double(old.start), position < Double(old.end) {
                mapped = Double(cursor) + Self.offset(position - Double(old.start), from: old, to: piece)
            }
            cursor += piece.width
            pieces[index] = piece
        }
        arrivals = arrivals.map(measure)
        end = cursor
        if let mapped { return mapped }
        return position < oldFirst ? newFirst + (position - oldFirst) * ratio : Double(end) + (position - oldEnd) * ratio
    }

    /// An offset into `old` as the same offset into `new`: as far into the same letter when
    /// both hold the same letters, else the same share of the piece.
    private static func offset(_ offset: Double, from old: Piece, to new: Piece) -> Double {
        if let before = old.item?.glyphs, let after = new.item?.glyphs, before.count == after.count,
           let index = before.lastIndex(where: { Double($0.offset) <= offset })
        {
            let share = min(1, (offset - Double(before[index].offset)) / Double(max(1, before[index].advance)))
            return Double(after[index].offset) + share * Double(after[index].advance)
        }
        return old.width > 0 ? offset / Double(old.width) * Double(new.width) : 0
    }

    /// Forgets pieces that ended before `position` (scrolled off long ago).
    mutating func prune(before position: Int) {
        let count = pieces.prefix { $0.end < position }.count
        if count > 64 { pieces.removeFirst(count) }
    }
}
