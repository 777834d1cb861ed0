/// The type of the values a bound operand yields: a scalar type, or objects of a model.
///
/// All integer widths are one kind (records hold every width as 8 bytes); numeric kinds
/// compare with each other.
enum ValueKind: Equatable, CustomStringConvertible {
    case bool, int, float, double, decimal, string, date, data, uuid
    case object(ModelLayout)

    init?(_ type: PropertyType, target: ModelLayout?) {
        switch type {
        case .bool: self = .bool
        case .int, .int8, .int16, .int32, .int64: self = .int
        case .float: self = .float
        case .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .link, .linkingObjects:
            guard let target else { return nil }
            self = .object(target)
        case .list(let element):
            self.init(element, target: target)
        }
    }

    /// The property type whose values this kind compares with; nil for objects.
    var propertyType: PropertyType? {
        switch self {
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .decimal: .decimal
        case .string: .string
        case .date: .date
        case .data: .data
        case .uuid: .uuid
        case .object: nil
        }
    }

    var isNumeric: Bool {
        switch self {
        case .int, .float, .double, .decimal: true
        default: false
        }
    }

    /// Whether `<`, `<=`, `>`, `>=` and `BETWEEN` apply.
    var isOrderable: Bool { isNumeric || self == .date || self == .string }

    /// Whether two kinds may meet in a comparison.
    func isComparable(with other: ValueKind) -> Bool {
        if isNumeric && other.isNumeric { return true }
        switch (self, other) {
        case (.object(let a), .object(let b)): return a === b
        default: return self == other
        }
    }

    static func == (a: ValueKind, b: ValueKind) -> Bool {
        switch (a, b) {
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.decimal, .decimal),
             (.string, .string), (.date, .date), (.data, .data), (.uuid, .uuid):
            true
        case (.object(let x), .object(let y)): x === y
        default: false
        }
    }

    var description: String {
        if case .object(let m) = self { return "an object of \(m.name)" }
        return propertyType!.description
    }
}
