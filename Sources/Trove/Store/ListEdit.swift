/// One change to a list property, as Realm's `List` makes it: ``Transaction/editList(_:primaryKey:_:_:)``
/// applies it to the stored list and writes that list alone.
public enum ListEdit: Sendable, Equatable {
    /// Adds an element at the end.
    case append(Value)
    /// Adds an element at `at` (`0...count`), moving the later ones up.
    case insert(Value, at: Int)
    /// Removes the element at `at`.
    case remove(at: Int)
    /// Takes the element at `from` out and puts it back at `to`; both are positions in the
    /// list as it is (`0..<count`).
    case move(from: Int, to: Int)
}

extension Transaction {
    /// Applies `edit` to the list `property` of the object of `model` with this primary key.
    ///
    /// The list is read as stored and written back with the edit, and nothing else: the
    /// object's other properties stay as they are, and the objects a list of links holds are
    /// linked as stored, not written. An element is given as for ``insert(_:_:)``: a value,
    /// or for a list of links a primary key, a reference, or an object (upserted).
    ///
    /// ```swift
    /// try tx.editList("Person", primaryKey: 1, "dogs", .append("Rex"))
    /// try tx.editList("Person", primaryKey: 1, "tags", .move(from: 0, to: 2))
    /// ```
    public func editList(_ model: String, primaryKey: Value, _ property: String, _ edit: ListEdit) throws {
        try checkLive()
        let m = try self.model(model)
        let p = try self.property(m, property)
        guard p.isList, !p.isLinkingObjects else {
            throw StoreError.invalidArgument("'\(m.name).\(p.name)' is not a list that can be edited")
        }
        guard let key = try objectKey(m, primaryKey: primaryKey) else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: primaryKey.description)
        }
        guard case .list(var items) = try withRecord(m, key, { try $0.value(of: p) }) ?? .list([]) else {
            throw StoreError.corruptRecord("'\(m.name).\(p.name)' does not hold a list")
        }
        func element(_ v: Value) throws -> Value {
            guard case .list(let resolved) = try resolve(.list([v]), for: p, depth: 0), let first = resolved.first else {
                throw StoreError.typeMismatch(property: p.name, expected: "a list element", found: v.kindDescription)
            }
            return first
        }
        func check(_ index: Int, in range: Range<Int>) throws {
            guard range.contains(index) else {
                throw StoreError.invalidArgument("position \(index) is outside '\(m.name).\(p.name)', which has \(items.count) \(items.count == 1 ? "element" : "elements")")
            }
        }
        switch edit {
        case .append(let v):
            items.append(try element(v))
        case .insert(let v, let at):
            try check(at, in: 0..<(items.count + 1))
            items.insert(try element(v), at: at)
        case .remove(let at):
            try check(at, in: 0..<items.count)
            items.remove(at: at)
        case .move(let from, let to):
            try check(from, in: 0..<items.count)
            try check(to, in: 0..<items.count)
            items.insert(items.remove(at: from), at: to)
        }
        _ = try updateObject(m, key, [p.name: .list(items)])
    }
}
