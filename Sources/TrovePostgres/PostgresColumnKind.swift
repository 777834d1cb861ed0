import Trove

/// The kind of value a bulk insert's column takes as it stands, with no coercion (which
/// would give the value itself): what the import fast paths (`PostgresBulkInsert`'s own, and
/// the shell's rows written from a file) write into a row with no `Value` checked for it.
package struct PostgresColumnKind: Sendable {
    package enum Kind: Sendable {
        /// An integer in the range of the property's integer type.
        case integer(ClosedRange<Int64>)
        case double
        case string
        case bool
    }

    package let kind: Kind
    /// Whether null is the column's own (an optional property).
    package let allowsNull: Bool

    /// Nil for a property of another type (a link, a date, data, ...), whose values go
    /// through coercion.
    package init?(_ property: PropertySchema) {
        switch property.type {
        case .int, .int8, .int16, .int32, .int64: kind = .integer(property.type.integerRange ?? Int64.min...Int64.max)
        case .double: kind = .double
        case .string: kind = .string
        case .bool: kind = .bool
        default: return nil
        }
        allowsNull = property.isOptional
    }
}
