#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One property of a model.
public struct PropertySchema: Sendable, Equatable {
    public var name: String
    public var type: PropertyType
    /// Whether the value may be null. For a list, whether its *elements* may be null
    /// (`int?[]`), as in Realm. To-one links are always optional; linkingObjects never are.
    public var isOptional: Bool
    /// Whether a secondary index is declared. A primary key is indexed whether or not
    /// this is set: see ``ModelSchema/isIndexed(_:)``.
    public var isIndexed: Bool
    /// The default the schema declares: what an insert that omits the property gets, when
    /// set (see ``valueWhenOmitted``).
    public var defaultValue: Value?

    /// A property; a to-one link is made optional whatever `isOptional` says.
    public init(
        name: String,
        type: PropertyType,
        isOptional: Bool = false,
        isIndexed: Bool = false,
        defaultValue: Value? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional || type.isLink
        self.isIndexed = isIndexed
        self.defaultValue = defaultValue
    }

    /// Equal properties: a NaN default is the same as a NaN default, so that a schema that
    /// declares one (`"default": "NaN"`) is unchanged when it is opened again.
    public static func == (a: PropertySchema, b: PropertySchema) -> Bool {
        a.name == b.name && a.type == b.type && a.isOptional == b.isOptional && a.isIndexed == b.isIndexed
            && sameDefault(a.defaultValue, b.defaultValue)
    }

    /// Whether two defaults are the same for a migration: `==`, except that any NaN is the
    /// same as any NaN (Swift's `==` finds a NaN unequal to itself).
    package static func sameDefault(_ a: Value?, _ b: Value?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.isSameDefault(as: b)
        default: false
        }
    }

    /// The target model of a link, a list of links or linkingObjects.
    public var objectType: String? { type.objectType }

    /// For linkingObjects: the link or list property of ``objectType`` that points here.
    public var originProperty: String? {
        if case .linkingObjects(_, let property) = type { return property }
        return nil
    }

    /// False for linkingObjects, which are computed from the links that point here.
    public var isStored: Bool { !type.isLinkingObjects }

    /// The value an insert that omits the property gets, on every backend: its
    /// ``defaultValue``, else null for an optional value or a link, an empty list for a list,
    /// and Realm's zero value for any other type (`""`, 0, false, 1970-01-01, empty data,
    /// decimal 0, the zero UUID). A primary key has no such value: an insert must give it.
    public var valueWhenOmitted: Value {
        if let d = defaultValue { return (try? Coercion.scalar(.value(d), as: type, for: name)) ?? d }
        if case .list = type { return .list([]) }
        if isOptional || type.isLink { return .null }
        switch type {
        case .bool: return .bool(false)
        case .int, .int8, .int16, .int32, .int64: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .date: return .date(.init(timeIntervalSince1970: 0))
        case .data: return .data(.init())
        case .decimal: return .decimal(0)
        case .uuid: return .uuid(.init(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        default: return .null
        }
    }

    /// The type as a schema file writes it: `int`, `date?`, `Dog?`, `int?[]`, `Dog[]`,
    /// `linkingObjects`.
    public var typeString: String {
        switch type {
        case .list(let element): element.description + (isOptional ? "?" : "") + "[]"
        case .linkingObjects: "linkingObjects"
        default: type.description + (isOptional ? "?" : "")
        }
    }
}

extension Value {
    /// `==`, with a NaN equal to any NaN: see ``PropertySchema/sameDefault(_:_:)``.
    fileprivate func isSameDefault(as other: Value) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        default: self == other
        }
    }
}
