extension Transaction {
    /// Sets `values` on every object of `model` that satisfies `predicate`; returns how many
    /// objects matched.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     try tx.update("Task", where: "dueDate < $0 AND done == false", arguments: [.date(.now)], set: ["priority": 9])
    /// }
    /// ```
    /// The matches are collected first, then written, so the update never sees its own writes.
    /// It runs in this transaction: if it throws, the transaction must not commit (``Store/write(_:)``
    /// rolls back when its body throws). Values are checked before anything is written.
    @discardableResult
    public func update(_ model: String, where predicate: String, arguments: [Value] = [], set values: [String: Value]) throws -> Int {
        try checkLive()
        let m = try self.model(model)
        // Checked (and nested objects upserted) once, before any object changes.
        var resolved: [String: Value] = [:]
        for (name, value) in values {
            let p = try property(m, name)
            resolved[name] = try resolve(value, for: p, depth: 0)
        }
        let keys = try objects(model, where: predicate, arguments: arguments).keys
        if let pk = m.primaryKey, let newKey = resolved[pk.name] {
            for key in keys {
                let current = try withRecord(m, key) { try $0.value(of: pk) }
                if let current, current != newKey {
                    throw StoreError.primaryKeyChanged(model: m.name, from: current, to: newKey)
                }
            }
        }
        for key in keys { _ = try updateObject(m, key, resolved) }
        return keys.count
    }

    /// Deletes every object of `model` that satisfies `predicate`; returns how many. Links to
    /// them become null and they leave every list that held them.
    @discardableResult
    public func delete(_ model: String, where predicate: String, arguments: [Value] = []) throws -> Int {
        try checkLive()
        let m = try self.model(model)
        let keys = try objects(model, where: predicate, arguments: arguments).keys
        for key in keys { try deleteObject(m, key) }
        return keys.count
    }
}
