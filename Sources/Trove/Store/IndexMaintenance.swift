import TroveStorage

/// The entries a record change moves outside its record: primary-key and secondary index
/// entries, and the backlinks of its links. Every record write goes through these, so that
/// indexes and backlinks never disagree with records.
extension Transaction {
    /// Moves the index entries and backlinks of each updated property of object `key` from
    /// its old value to its new one; returns the updated properties.
    func updateIndexesAndBacklinks(_ key: UInt64, _ updates: [RecordCodec.SlotUpdate]) throws -> PropertyMask {
        var mask = PropertyMask()
        for u in updates {
            let p = u.property
            mask.insert(p.id)
            if p.isIndexed {
                let t = try writableTree(p.indexTreeName, slot: p.indexTreeSlot)
                try IndexKey.withEncoded(u.old, as: p.type, suffix: key) { _ = try writeTx.delete(t, raw: $0) }
                try IndexKey.withEncoded(u.new, as: p.type, suffix: key) { try writeTx.put(t, raw: $0, UnsafeRawBufferPointer(start: nil, count: 0)) }
            }
            if p.isLinkOrLinkList { try updateBacklinks(p, key, old: u.old, new: u.new) }
        }
        return mask
    }

    /// Moves the primary-key and secondary index entries of object `key` from `old` (nil: a
    /// new object) to `new`.
    func maintainIndexes(_ m: ModelLayout, _ key: UInt64, old: [Value]?, new: [Value]) throws {
        if let pk = m.primaryKey {
            let o = old?[pk.id], n = new[pk.id]
            if o != n {
                let t = try writableTree(m.primaryKeyTree, slot: m.primaryKeyTreeSlot)
                if let o { try IndexKey.withEncoded(o, as: pk.type) { _ = try writeTx.delete(t, raw: $0) } }
                try IndexKey.withEncoded(n, as: pk.type) { k in
                    try IndexKey.withObjectKeyValue(key) { try writeTx.put(t, raw: k, $0) }
                }
            }
        }
        for p in m.indexedProperties {
            let o = old?[p.id], n = new[p.id]
            if old != nil, o == n { continue }
            let t = try writableTree(p.indexTreeName, slot: p.indexTreeSlot)
            if let o { try IndexKey.withEncoded(o, as: p.type, suffix: key) { _ = try writeTx.delete(t, raw: $0) } }
            try IndexKey.withEncoded(n, as: p.type, suffix: key) { try writeTx.put(t, raw: $0, UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }

    /// Moves the backlink entries of link property `p` of object `key` from the targets of
    /// `old` to those of `new` (nil: none).
    func updateBacklinks(_ p: PropertyLayout, _ key: UInt64, old: Value?, new: Value?) throws {
        guard let target = p.target else { return }
        // The common cases, a to-one link set, cleared or moved, without dictionaries.
        if p.isLink {
            let before: UInt64? = if case .reference(let r)? = old { r.key } else { nil }
            let after: UInt64? = if case .reference(let r)? = new { r.key } else { nil }
            if before == after { return }
            let t = try writableTree(Backlinks.treeName, slot: StoreLayout.backlinksTreeSlot)
            if let before {
                try Backlinks.withKey(targetModel: target.id, targetKey: before, sourceModel: p.model.id, sourceProperty: p.id, sourceKey: key) {
                    _ = try writeTx.delete(t, raw: $0)
                }
            }
            if let after {
                try Backlinks.withKey(targetModel: target.id, targetKey: after, sourceModel: p.model.id, sourceProperty: p.id, sourceKey: key) { k in
                    try withUnsafeBytes(of: UInt32(1)) { try writeTx.put(t, raw: k, $0) }
                }
            }
            return
        }
        let before = Transaction.counts(old), after = Transaction.counts(new)
        if before == after { return }
        let t = try writableTree(Backlinks.treeName, slot: StoreLayout.backlinksTreeSlot)
        for targetKey in Set(before.keys).union(after.keys) {
            let b = before[targetKey] ?? 0, a = after[targetKey] ?? 0
            if a == b { continue }
            try Backlinks.withKey(targetModel: target.id, targetKey: targetKey, sourceModel: p.model.id, sourceProperty: p.id, sourceKey: key) { k in
                if a == 0 { _ = try writeTx.delete(t, raw: k) } else { try withUnsafeBytes(of: UInt32(a)) { try writeTx.put(t, raw: k, $0) } }
            }
        }
    }

    private static func counts(_ v: Value?) -> [UInt64: Int] {
        var out: [UInt64: Int] = [:]
        switch v {
        case .reference(let r)?: out[r.key] = 1
        case .list(let items)?:
            for case .reference(let r) in items { out[r.key, default: 0] += 1 }
        default: break
        }
        return out
    }
}
