/// The result of an upsert: the object, whether it was created, and which given properties
/// actually changed value (Realm's `update: .modified`).
public struct UpsertResult {
    public let object: DynamicObject
    public let created: Bool
    public let changedProperties: [String]
}
