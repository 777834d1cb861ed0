/// A model object managed by a repository: a `Codable` class, so that a repository can hand
/// out instances, notice changes made to them and save them at ``RepoSavingType/endWrite()``.
///
/// ```swift
/// final class User: EntityType {
///     var uid = ""
///     var name = ""
///     var isVerified = false
///     init() {}
/// }
/// ```
public protocol EntityType: AnyObject, Persistable {
    /// The name of the model; by default the class's name.
    static var className: String { get }
    /// A blank entity, for ``RepoLifetimeType/addEntity(_:)`` to hand out.
    init()
}

extension EntityType {
    public static var className: String { String(describing: Self.self) }
    public static var modelName: String { className }
}
