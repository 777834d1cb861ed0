/// A stored object read where it is stored: the counterpart of ``DynamicObject`` for hot
/// loops, with no copy of its record and no allocation.
///
/// ```swift
/// let age = try snapshot.withObject("User", primaryKey: "u1") { user in
///     try user.int("age")
/// }
/// ```
/// A view is valid only inside the closure that receives it
/// (``Snapshot/withObject(_:primaryKey:_:)``): copy out the values you need, or fetch a
/// ``DynamicObject`` to keep the object.
public struct ObjectView: ObjectValues {
    let snapshot: Snapshot
    let model: ModelLayout
    let key: UInt64
    let record: RecordView

    /// The model's name.
    public var modelName: String { model.name }
    /// A stable reference to this object within its store.
    public var reference: ObjectReference { ObjectReference(model: model.name, key: key) }

    public func value(_ name: String) throws -> Value {
        try snapshot.storedValue(model, key: key, record: record, property: name)
    }
}
