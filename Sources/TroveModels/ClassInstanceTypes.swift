@_spi(Reflection) import Swift
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which property types hold a class instance (``ModelProperty``'s `holdsClassInstance`, read by
/// ``PersistentModel/_holdsNoClassInstance``): a class, and a value type with one anywhere in
/// its stored fields, an element of a collection or an optional. A value that holds one shares
/// it with every copy, so a snapshot keeps no linked value whose model has such a property.
///
/// Found from the type's runtime metadata, once per property when its model's table is made.
/// A type whose layout is trivial (no reference at all) holds none. Strings, `Data`, and the
/// standard collections and optionals hold private storage that a change copies, so only what
/// their elements hold counts. A struct or tuple holds what its fields hold. An enum that is not
/// trivial counts as holding one: the runtime lists no payload types of its cases, so a payload
/// of a string cannot be told from one of a class. So does an existential (`any P`, `Any`),
/// which may hold one, and a closure, whose captures may be shared. A linked model (the
/// property's type, or its optional's or array's element) is answered by its own table: a class
/// model holds one, a struct model's properties are asked in turn. A struct model met deeper,
/// stored inside a value of another type, is no link: its fields are walked as any struct's.
///
/// The fields come from the reflection metadata of the type's module, which a module built
/// with `-disable-reflection-metadata` lacks: the walk then reports none, or `()` for a field
/// whose type it cannot name. A struct or tuple that is not trivial yet reports no field that is
/// counts as holding one, so a missing metadata costs caching, never a shared instance.
enum ClassInstanceTypes {
    static func holdsInstance<V>(_ type: V.Type) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        return fieldsHoldInstance(HeldField<V>.self, atLink: true, &seen)
    }

    /// Whether a stored field of the struct or tuple `type` holds an instance. Each field's
    /// metadata kind comes with it, which tells a struct from an enum. `atLink`: the field is
    /// where a link may stand, the property's type or its optional's or array's element.
    private static func fieldsHoldInstance(_ type: Any.Type, atLink: Bool, _ seen: inout Set<ObjectIdentifier>) -> Bool {
        var found = false
        var reportsReference = false
        _forEachField(of: type) { _, _, field, kind in
            if !isTrivial(field) { reportsReference = true }
            found = holdsInstance(field, kind, atLink: atLink, &seen)
            return !found
        }
        // A layout with a reference that no reported field holds: the metadata is missing.
        return found || (!reportsReference && !isTrivial(type))
    }

    private static func holdsInstance(
        _ type: Any.Type, _ kind: _MetadataKind, atLink: Bool, _ seen: inout Set<ObjectIdentifier>
    ) -> Bool {
        if let container = type as? any HeldValueContainer.Type {
            let elementAtLink = atLink && container.mayHoldLink
            return container.elementFields.contains { fieldsHoldInstance($0, atLink: elementAtLink, &seen) }
        }
        if isTrivial(type) { return false }
        switch kind {
        case .class, .foreignClass, .objcClassWrapper:
            return true
        case .struct, .tuple:
            // A linked struct model's own properties are asked through its table.
            if atLink && type is any PersistentModel.Type { return false }
            if copiedOnWrite.contains(ObjectIdentifier(type)) { return false }
            // A type met again (a struct holding an array of itself) adds nothing.
            guard seen.insert(ObjectIdentifier(type)).inserted else { return false }
            return fieldsHoldInstance(type, atLink: false, &seen)
        case .metatype, .existentialMetatype:
            return false
        default:
            return true
        }
    }

    private static func isTrivial<T>(_ type: T.Type) -> Bool { _isPOD(T.self) }

    /// Value types whose storage is their own, copied when a shared copy changes.
    private static let copiedOnWrite: Set<ObjectIdentifier> = [
        ObjectIdentifier(String.self), ObjectIdentifier(Substring.self), ObjectIdentifier(Character.self),
        ObjectIdentifier(Data.self),
    ]
}

/// A stored field of type `T`: what the field walk starts from, with the kind of `T`.
private struct HeldField<T> {
    var value: T
}

/// A standard collection or optional: it holds an instance when an element does.
private protocol HeldValueContainer {
    /// Types whose one field is an element type.
    static var elementFields: [Any.Type] { get }
    /// Whether an element may be a link: an optional's or an array's.
    static var mayHoldLink: Bool { get }
}

extension HeldValueContainer {
    fileprivate static var mayHoldLink: Bool { false }
}

extension Optional: HeldValueContainer {
    fileprivate static var mayHoldLink: Bool { true }
    fileprivate static var elementFields: [Any.Type] { [HeldField<Wrapped>.self] }
}

extension Array: HeldValueContainer {
    fileprivate static var mayHoldLink: Bool { true }
    fileprivate static var elementFields: [Any.Type] { [HeldField<Element>.self] }
}

extension ContiguousArray: HeldValueContainer {
    fileprivate static var elementFields: [Any.Type] { [HeldField<Element>.self] }
}

extension ArraySlice: HeldValueContainer {
    fileprivate static var elementFields: [Any.Type] { [HeldField<Element>.self] }
}

extension Set: HeldValueContainer {
    fileprivate static var elementFields: [Any.Type] { [HeldField<Element>.self] }
}

extension Dictionary: HeldValueContainer {
    fileprivate static var elementFields: [Any.Type] { [HeldField<Key>.self, HeldField<Value>.self] }
}
