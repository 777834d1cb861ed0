/// A set of property ids: a bit per id below 64 (every model in practice), a set beyond.
struct PropertyMask {
    private var bits: UInt64 = 0
    private var more: Set<Int>?

    init() {}
    init(_ id: Int) { insert(id) }

    mutating func insert(_ id: Int) {
        if id < 64 { bits |= 1 << UInt64(id) } else { more = (more ?? []).union([id]) }
    }

    mutating func formUnion(_ other: PropertyMask) {
        bits |= other.bits
        if let o = other.more { more = (more ?? []).union(o) }
    }

    func names(in m: ModelLayout) -> Set<String> {
        var out: Set<String> = []
        var b = bits
        while b != 0 {
            let id = b.trailingZeroBitCount
            b &= b - 1
            if id < m.byID.count, let p = m.byID[id] { out.insert(p.name) }
        }
        for id in more ?? [] where id < m.byID.count { if let p = m.byID[id] { out.insert(p.name) } }
        return out
    }
}
