/// A stored object read from a ``Snapshot``, with its properties typed by the schema.
///
/// ```swift
/// let ada = try snapshot.object("Person", primaryKey: 1)!
/// let name = try ada.string("name")          // String?
/// let dogs = try ada.list("dogs")            // [DynamicObject]
/// let owners = try dogs[0].list("owners")    // linkingObjects, from the backlink index
/// ```
/// An object holds the values it had in its snapshot; reading its links, its ``json()`` and
/// its ``description`` need the snapshot to be live: printed after its read or write has
/// ended, it says so. Unknown properties and type mismatches throw ``StoreError``. An object that a
/// ``Results`` subscript could not read (its snapshot had ended) throws the reason from every
/// read.
public final class DynamicObject: ObjectValues, CustomStringConvertible {
    /// The snapshot the object was read from.
    public let snapshot: Snapshot
    let model: ModelLayout
    let key: UInt64
    /// Empty for an unreadable object: read it through `storedRecord`.
    let record: [UInt8]
    /// Why the record could not be read, for an object handed out without one.
    private let unreadable: (any Error)?

    init(snapshot: Snapshot, model: ModelLayout, key: UInt64, record: [UInt8]) {
        self.snapshot = snapshot
        self.model = model
        self.key = key
        self.record = record
        unreadable = nil
    }

    /// An object whose every read throws `error`: what a collection subscript, which cannot
    /// throw, returns for an object it could not read.
    init(snapshot: Snapshot, model: ModelLayout, key: UInt64, unreadable error: any Error) {
        self.snapshot = snapshot
        self.model = model
        self.key = key
        record = []
        unreadable = error
    }

    /// The stored record, or the error that kept it from being read.
    var storedRecord: [UInt8] {
        get throws {
            if let unreadable { throw unreadable }
            return record
        }
    }

    /// The model's name.
    public var modelName: String { model.name }
    /// A stable reference to this object within its store.
    public var reference: ObjectReference { ObjectReference(model: model.name, key: key) }

    /// The value of a stored property: scalars, `.reference` for links, `.list` for lists.
    /// For a linkingObjects property, a list of references.
    public func value(_ name: String) throws -> Value {
        try storedRecord.withUnsafeBytes { try snapshot.storedValue(model, key: key, record: try RecordView($0), property: name) }
    }

    /// The primary key's value, or nil for a model without one.
    public var primaryKey: Value? {
        get throws { try model.primaryKey.map { try value($0.name) } }
    }

    /// The object a to-one link points at, or nil.
    public func object(_ name: String) throws -> DynamicObject? {
        let p = try snapshot.property(model, name)
        guard p.isLink else { throw StoreError.typeMismatch(property: name, expected: "a to-one link", found: p.schema.typeString) }
        guard case .reference(let r) = try value(name), let target = p.target else { return nil }
        try snapshot.checkLive()
        return try snapshot.object(target, key: r.key)
    }

    /// The objects of a list of links or of a linkingObjects property, in order.
    public func list(_ name: String) throws -> [DynamicObject] {
        let p = try snapshot.property(model, name)
        guard p.isLinkList || p.isLinkingObjects, let target = p.target else {
            throw StoreError.typeMismatch(property: name, expected: "a list of objects", found: p.schema.typeString)
        }
        guard case .list(let items) = try value(name) else { return [] }
        try snapshot.checkLive()
        return try items.compactMap { item in
            guard case .reference(let r) = item else { return nil }
            return try snapshot.object(target, key: r.key)
        }
    }

    /// The JSON form: every stored property in schema order, links as primary keys.
    public func json() throws -> JSONObject {
        try snapshot.checkLive()
        var out = JSONObject()
        try storedRecord.withUnsafeBytes { buffer in
            let view = try RecordView(buffer)
            for p in model.properties where p.isStored {
                out[p.name] = try ValueJSON.json(try view.value(of: p), for: p, in: snapshot)
            }
        }
        return out
    }

    /// The model's name and the JSON form (``json()``), or why the object cannot print.
    ///
    /// An object kept past its read or write (returned from ``Store/write(_:)``) prints
    /// `Person (its write has ended: read its values inside the write, or fetch it again by
    /// primary key)`; one of a model without a primary key says "or query it again". Its JSON
    /// is not printed from the copy it holds: a link prints as its target's primary key, which
    /// only a live snapshot can read, and a later snapshot may find the target changed or
    /// gone, so printing it from one would mix two versions.
    public var description: String {
        if !snapshot.isLive {
            let scope = snapshot is Transaction ? "write" : "read"
            let again = model.primaryKey == nil ? "query it again" : "fetch it again by primary key"
            return "\(model.name) (its \(scope) has ended: read its values inside the \(scope), or \(again))"
        }
        do {
            return "\(model.name) \(JSONValue.object(try json()).jsonText)"
        } catch {
            return "\(model.name) (unreadable: \(error))"
        }
    }
}
