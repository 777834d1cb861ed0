#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// The parameters of one SQL statement, bound in text format as `$1`, `$2`, ...
struct SQLParameters {
    private(set) var values: [String?] = []
    /// Where each value came from, so that a translated statement can run again with other
    /// arguments (see `PostgresTranslations`).
    private(set) var sources: [ParameterSource] = []
    /// False when the statement's SQL depends on an argument's value beyond what
    /// `PostgresTranslations` keys it by (a non-null argument that became null).
    var isReusable = true

    /// The placeholder of a new parameter holding `text`.
    mutating func add(_ text: String?, from source: ParameterSource = .fixed) -> String {
        values.append(text)
        sources.append(source)
        return "$\(values.count)"
    }
}

/// What a bound parameter holds: text fixed by the statement, or a value made from an
/// argument (`$0`, `$1`, ... of the query text).
enum ParameterSource {
    case fixed
    /// Argument `index` (element `element` of a list argument) as a value of `type`, folded
    /// under `options`; as a LIKE pattern when `isPattern`.
    case argument(index: Int, element: Int?, type: PropertyType, options: StringComparisonOptions, isPattern: Bool)
}

/// Values between Trove and PostgreSQL: SQL expressions binding them, and the SQL that reads
/// them back in a text form this side parses exactly.
///
/// Dates travel as whole microseconds since 1970 (a `timestamptz` holds microseconds, so a
/// finer date is rounded to the nearest one); data as hex; the rest as PostgreSQL's text.
package enum PostgresValues {
    /// A PostgreSQL array literal of `texts`, each quoted, for a parameter cast to an array.
    static func arrayLiteral(_ texts: [String]) -> String {
        "{" + texts.map { "\"" + $0.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }

    /// An SQL expression of type `type` holding `value`, bound through `parameters`.
    static func sql(_ value: Value, type: PropertyType, _ parameters: inout SQLParameters, from source: ParameterSource = .fixed) throws -> String {
        guard !value.isNull else { return "NULL::\(PostgresTables.castType(type))" }
        return sql(rendered: try parameter(value, type: type), type: type, &parameters, from: source)
    }

    /// The SQL expression binding `rendered`, what `parameter(_:type:)` makes of a non-null
    /// value of `type`, as a new parameter.
    static func sql(rendered: (String, String), type: PropertyType, _ parameters: inout SQLParameters, from source: ParameterSource = .fixed) -> String {
        let placeholder = parameters.add(rendered.0, from: source)
        switch type {
        case .date, .data: return expression(placeholder: placeholder, type: type)
        default: return "\(placeholder)::\(rendered.1)"
        }
    }

    /// The SQL expression of type `type` reading the text `parameter(_:type:)` makes from
    /// the parameter `placeholder` (NULL when it is null).
    static func expression(placeholder: String, type: PropertyType) -> String {
        switch type {
        case .date: "('epoch'::pg_catalog.timestamptz + \(placeholder)::bigint * interval '1 microsecond')"
        case .data: "decode(\(placeholder), 'hex')"
        default: "\(placeholder)::\(PostgresTables.castType(type))"
        }
    }

    /// The text of a non-null value, and the type its placeholder is cast to.
    static func parameter(_ value: Value, type: PropertyType) throws -> (String, String) {
        let cast = PostgresTables.castType(type)
        switch value {
        case .bool(let b): return (b ? "true" : "false", cast)
        case .int(let i): return (String(i), cast)
        case .float(let f): return (text(Double(f)), cast)
        case .double(let d): return (text(d), cast)
        case .string(let s): return (s, cast)
        case .date(let date): return (String(try microseconds(date)), "bigint")
        case .data(let data): return (data.map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 15)] }.joined(), "pg_catalog.bytea")
        case .decimal(let d): return (d.description, cast)
        case .uuid(let u): return (u.uuidString.lowercased(), cast)
        case .null, .list, .reference, .object:
            throw PostgresError("\(value.kindDescription) cannot be bound as a \(type) value")
        }
    }

    /// `date` as the whole microseconds since 1970 it travels as; throws when it has none.
    static func microseconds(_ date: Date) throws -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard let whole = Int64(exactly: micros) else { throw PostgresError("the date \(date) is out of PostgreSQL's range") }
        return whole
    }

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }

    /// A double as PostgreSQL reads it back exactly (its spellings of NaN and the infinities,
    /// which are Trove's).
    package static func text(_ d: Double) -> String {
        NonFiniteNumber.text(d) ?? d.description
    }

    /// The SQL reading `expression` (of scalar type `type`) in the form `value(_:type:)` parses.
    static func output(_ expression: String, type: PropertyType) -> String {
        switch type {
        case .date: "(extract(epoch from \(expression)) * 1000000)::bigint"
        case .data: "encode(\(expression), 'hex')"
        default: expression
        }
    }

    /// The value of `type` that `output` wrote as `text`.
    static func value(_ text: String?, type: PropertyType) throws -> Value {
        guard let text else { return .null }
        func bad() -> PostgresError { PostgresError("PostgreSQL returned '\(text)' for a \(type) value") }
        switch type {
        case .bool: return .bool(text == "t" || text == "true")
        case .int, .int8, .int16, .int32, .int64:
            guard let i = Int64(text) else { throw bad() }
            return .int(i)
        case .float:
            guard let f = Float(text) else { throw bad() }
            return .float(f)
        case .double:
            // Swift reads PostgreSQL's NaN, Infinity and -Infinity, which are NonFiniteNumber's spellings.
            guard let d = Double(text) else { throw bad() }
            return .double(d)
        case .string: return .string(text)
        case .date:
            guard let micros = Int64(text) else { throw bad() }
            return .date(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
        case .data:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count / 2)
            var iterator = text.utf8.makeIterator()
            while let high = iterator.next(), let low = iterator.next() {
                guard let h = hexValue(high), let l = hexValue(low) else { throw bad() }
                bytes.append(h << 4 | l)
            }
            return .data(Data(bytes))
        case .decimal:
            // The one parse: a numeric with more digits than a `Decimal` holds rounds as a store's coercion rounds it.
            guard let d = Decimal.parse(text) else { throw bad() }
            return .decimal(d)
        case .uuid:
            guard let u = UUID(uuidString: text) else { throw bad() }
            return .uuid(u)
        case .link, .list, .linkingObjects:
            throw bad()
        }
    }

    /// The average of decimals from PostgreSQL's exact `sum` and `count` of them, rounded to
    /// a `Decimal`'s digits as a store rounds it (`DecimalSum`: PostgreSQL's `avg` keeps the
    /// scale of its division, some 20 digits); null over no values.
    static func decimalAverage(sum: String?, count: String?) throws -> Value {
        guard let count = count.flatMap({ Int($0) }), count > 0, let sum else { return .null }
        guard let average = DecimalSum(exactly: sum)?.average(over: count) else {
            throw PostgresError("PostgreSQL returned '\(sum)' for a sum of decimals")
        }
        return .decimal(average)
    }

    /// The sum of decimals from PostgreSQL's exact `sum` of them, rounded to a `Decimal`'s
    /// digits as a store rounds it (`DecimalSum`); nil when it is beyond a `Decimal`'s range,
    /// where a store refuses the sum.
    static func decimalSum(_ text: String?) throws -> Value? {
        guard let text else { return .null }
        guard let sum = DecimalSum(exactly: text) else { throw PostgresError("PostgreSQL returned '\(text)' for a sum of decimals") }
        return sum.value.map(Value.decimal)
    }

    /// A JSON array of texts (`json_agg`), each element parsed as `element`.
    static func list(_ text: String, element: PropertyType) throws -> Value {
        let parsed: JSONValue
        do {
            parsed = try JSONParser().parse(text)
        } catch {
            throw PostgresError("PostgreSQL returned an unreadable list: \(error)")
        }
        guard case .array(let items) = parsed else { throw PostgresError("PostgreSQL returned an unreadable list") }
        return .list(try items.map { item in
            switch item {
            case .null: return .null
            case .string(let s): return try PostgresValues.value(s, type: element)
            default: throw PostgresError("PostgreSQL returned an unreadable list")
            }
        })
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
