/// Values kept up to a number of bytes, then forgotten all together: cheaper than tracking
/// use, and what is needed again is made again within a frame or two.
struct BoundedCache<Key: Hashable, Value> {
    let limit: Int
    private var values: [Key: Value] = [:]
    /// Bytes held now.
    private(set) var bytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    subscript(key: Key) -> Value? { values[key] }

    mutating func insert(_ value: Value, bytes count: Int, for key: Key) {
        if bytes + count > limit {
            values = [:]
            bytes = 0
        }
        values[key] = value
        bytes += count
    }
}
