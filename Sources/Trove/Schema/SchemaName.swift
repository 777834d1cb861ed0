/// The naming rule of schema files (schema-format.md): a model name starts with a letter and
/// has only letters, digits and `_`; a property name may also start with `_`. Letters and
/// digits are Unicode's (`Café`, `größe`, `名前`): a letter is an alphabetic character, a
/// digit a decimal one. The schema loader, the query lexer and the shell read names by it.
public enum SchemaName {
    /// Whether `scalar` may start a name (`_` only where `underscoreFirst`).
    @inlinable
    public static func isStart(_ scalar: Unicode.Scalar, underscoreFirst: Bool = true) -> Bool {
        if scalar.isASCII {
            let v = scalar.value | 0x20
            return (v >= 0x61 && v <= 0x7A) || (underscoreFirst && scalar == "_")
        }
        return scalar.properties.isAlphabetic
    }

    /// Whether `scalar` may stand in a name after its first character.
    @inlinable
    public static func isContinuation(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isStart(scalar) || (scalar.value >= 0x30 && scalar.value <= 0x39) }
        return scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
    }

    /// Whether `name` is a valid model name or (with `underscoreFirst`) property name.
    public static func isValid(_ name: String, underscoreFirst: Bool) -> Bool {
        var scalars = name.unicodeScalars.makeIterator()
        guard let first = scalars.next(), isStart(first, underscoreFirst: underscoreFirst) else { return false }
        while let scalar = scalars.next() {
            guard isContinuation(scalar) else { return false }
        }
        return true
    }
}
