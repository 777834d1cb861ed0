/// Which property types hold a class instance: a class, or an optional or array of one
/// (``ModelProperty``'s `holdsClassInstance`, read by ``PersistentModel/_holdsNoClassInstance``).
enum ClassInstanceTypes {
    static func holdsInstance<V>(_ type: V.Type) -> Bool {
        if let wrapper = type as? any StoredValueWrapper.Type { return wrapper.wrapsClassInstance }
        return type is AnyObject.Type
    }
}

/// A property type that holds values of another: an instance it holds is its element's.
protocol StoredValueWrapper {
    static var wrapsClassInstance: Bool { get }
}

extension Optional: StoredValueWrapper where Wrapped: StorableProperty {
    static var wrapsClassInstance: Bool { ClassInstanceTypes.holdsInstance(Wrapped.self) }
}

extension Array: StoredValueWrapper where Element: StorableProperty {
    static var wrapsClassInstance: Bool { ClassInstanceTypes.holdsInstance(Element.self) }
}
