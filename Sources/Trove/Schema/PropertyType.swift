/// The type of a property, as a schema file writes it without the `?` marker (which is
/// ``PropertySchema/isOptional``).
public indirect enum PropertyType: Sendable, Hashable, CustomStringConvertible {
    case bool
    /// A 64-bit integer, like `int64`.
    case int
    case int8
    case int16
    case int32
    case int64
    case float
    case double
    case string
    case date
    case data
    case decimal
    case uuid
    /// A to-one link to an object of the named model; always optional.
    case link(String)
    /// An ordered list of scalars or of links (`int[]`, `Dog[]`).
    case list(PropertyType)
    /// The objects of `model` whose link or list `property` points at this object; computed.
    case linkingObjects(String, property: String)

    /// The scalar types, in the order the format documents them.
    public static let scalarTypes: [PropertyType] = [
        .bool, .int, .int8, .int16, .int32, .int64, .float, .double, .string, .date, .data, .decimal, .uuid,
    ]

    /// Parses a scalar type name (`"int8"`); nil for anything else.
    public init?(scalarName: String) {
        // A switch, not a search of `scalarTypes`: every open reads each stored property's type.
        switch scalarName {
        case "bool": self = .bool
        case "int": self = .int
        case "int8": self = .int8
        case "int16": self = .int16
        case "int32": self = .int32
        case "int64": self = .int64
        case "float": self = .float
        case "double": self = .double
        case "string": self = .string
        case "date": self = .date
        case "data": self = .data
        case "decimal": self = .decimal
        case "uuid": self = .uuid
        default: return nil
        }
    }

    /// The name of a scalar type, as written in schema files; nil for links and collections.
    public var scalarName: String? {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .int8: "int8"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .decimal: "decimal"
        case .uuid: "uuid"
        case .link, .list, .linkingObjects: nil
        }
    }

    public var isScalar: Bool { scalarName != nil }

    /// `int`, `int8` ... `int64`.
    public var isInteger: Bool {
        switch self {
        case .int, .int8, .int16, .int32, .int64: true
        default: false
        }
    }

    /// The integer types, `float`, `double` and `decimal`.
    public var isNumeric: Bool { isInteger || self == .float || self == .double || self == .decimal }

    /// The range of an integer type.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int, .int64: Int64.min...Int64.max
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        default: nil
        }
    }

    /// Whether a primary key may have this type: integers, `string` and `uuid`.
    public var canBePrimaryKey: Bool { isInteger || self == .string || self == .uuid }

    /// Whether a secondary index may be declared: `bool`, integers, `string`, `date`, `uuid`.
    public var canBeIndexed: Bool { canBePrimaryKey || self == .bool || self == .date }

    /// The model a link, list of links or linkingObjects refers to.
    public var objectType: String? {
        switch self {
        case .link(let model), .list(.link(let model)), .linkingObjects(let model, _): model
        default: nil
        }
    }

    public var isList: Bool {
        if case .list = self { return true }
        return false
    }

    public var isLink: Bool {
        if case .link = self { return true }
        return false
    }

    public var isLinkingObjects: Bool {
        if case .linkingObjects = self { return true }
        return false
    }

    /// This type with the models it refers to renamed by `newNames` (old name to new), so that
    /// it compares with a type of the schema they were renamed in.
    func renamingModels(_ newNames: [String: String]) -> PropertyType {
        switch self {
        case .link(let m): .link(newNames[m] ?? m)
        case .list(let e): .list(e.renamingModels(newNames))
        case .linkingObjects(let m, let p): .linkingObjects(newNames[m] ?? m, property: p)
        default: self
        }
    }

    /// Whether two types are stored the same way (`int` is `int64`), so changing one into
    /// the other needs no data migration.
    public func isStorageEquivalent(to other: PropertyType) -> Bool {
        func canonical(_ t: PropertyType) -> PropertyType {
            switch t {
            case .int64: .int
            case .list(let e): .list(canonical(e))
            default: t
            }
        }
        return canonical(self) == canonical(other)
    }

    /// `int`, `Dog`, `string[]`, `linkingObjects(Person.dogs)`.
    public var description: String {
        switch self {
        case .link(let model): model
        case .list(let element): element.description + "[]"
        case .linkingObjects(let model, let property): "linkingObjects(\(model).\(property))"
        default: scalarName!
        }
    }
}
