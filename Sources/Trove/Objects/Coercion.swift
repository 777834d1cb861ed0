#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value on its way into a property, tagged with where it comes from: the source decides
/// which forms are accepted (a JSON string is never a number; `--arg` text is read as a
/// literal of the property's type).
package enum CoercionInput: Sendable, Equatable {
    /// A value given through the Swift API.
    case value(Value)
    /// A value of a JSON document (import, `insert`, a schema's default).
    case json(JSONValue)
    /// A literal of the query language or of a shell statement.
    case literal(QueryExpression.Literal)
    /// Text typed by the property it is for: an `--arg` value, a CSV field. Numbers and
    /// `true`/`false` (also `yes`/`no`, `1`/`0`) as literals, NaN and the infinities of a
    /// float or double as words (`NaN`, `Infinity`, `-inf`), other types in their JSON form;
    /// `null` or `nil` is null unless the property is a string.
    case text(String)
}

/// Why a value cannot become a value of a property: it names the property, the type and
/// what was given.
public struct CoercionError: DescribedError, Sendable, Equatable {
    /// The property the value was for; empty when the value met an expression, not a property.
    public var property: String
    /// The type the value had to take.
    public var type: PropertyType
    /// What was given, and why it does not fit when its kind alone does not say:
    /// `the string "abc"`, `4.5, which is not a whole number`.
    public var found: String
    /// The position in the property's list, from 1, of the element the value was for; nil
    /// when the value was for the property itself.
    public var element: Int?

    public init(property: String, type: PropertyType, found: String, element: Int? = nil) {
        self.property = property
        self.type = type
        self.found = found
        self.element = element
    }

    /// The same error, for element `position` (from 1) of the property's list.
    public func inElement(_ position: Int) -> CoercionError {
        CoercionError(property: property, type: type, found: found, element: position)
    }

    public var description: String {
        if property.isEmpty { return "expected \(type), found \(found)" }
        return "\(Self.place(property: property, element: element)) expects \(type), not \(found)"
    }

    /// Where a refused value was to go, as every refusal words it: `property 'tags'`, or
    /// `element 2 of property 'tags'` for an element (from 1) of its list.
    package static func place(property: String, element: Int?) -> String {
        element.map { "element \($0) of property '\(property)'" } ?? "property '\(property)'"
    }
}

/// The one place that decides how a value becomes a value of a property type.
///
/// The rules (the shell contract's "Data in and out" and the man page's "Values"):
/// - a number fits an integer type when its value is integral and in range (`4.0`, `1e3`);
///   a fractional or out-of-range one is an error;
/// - `float` and `double` take any finite number, and NaN and the infinities as JSON strings
///   (`"NaN"`, `"Infinity"`, `"-Infinity"`) and as text (those words and `inf`, in any case,
///   signed or not: ``NonFiniteNumber``), not as literals; `decimal` keeps every digit of a
///   literal or text that it holds, rounding longer text half away from zero as sums do
///   (`Decimal.parse`), and also takes the decimal string form;
/// - dates are ISO 8601, with or without a time, with `Z` or any offset (`2024-05-01` is
///   midnight UTC), in the years 0000 to 9999 their text can write (a `Date` value is taken
///   as it is); data is base64; UUIDs are their string form;
/// - a value of the wrong kind (a string for a bool, a number for a string) is an error,
///   never a guess.
package enum Coercion {
    /// `input` as a value of the scalar `type`, for `property` (named in errors). Null stays
    /// null: whether the property allows it is the caller's concern.
    package static func scalar(_ input: CoercionInput, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        switch input {
        case .value(let v): return try value(v, as: type, for: property)
        case .json(let json): return try self.json(json, as: type, for: property)
        case .literal(let literal): return try self.literal(literal, as: type, for: property)
        case .text(let text): return try self.text(text, as: type, for: property)
        }
    }

    /// A number compared with a value of `type` (a property, an aggregate): compared by its
    /// value, so an integer type also meets a fractional number (`age > 4.5`) or one beyond
    /// its range (`int16 < 40000`), a decimal one beyond its range (`price < 1e200`), and a
    /// float one that a `Float` would round (`f == 1e-50` is not `f == 0`), which stay doubles.
    package static func comparand(_ input: CoercionInput, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        // A date compares wherever it is: the years its text can write bound what is stored.
        if type == .date {
            switch input {
            case .value(.date(let d)): return .date(d)
            case .literal(.string(let s)), .text(let s): if let d = ISO8601Timestamp.parse(s) { return .date(d) }
            default: break
            }
        }
        // A number beyond an integer's, a float's or a decimal's range still compares, as a double.
        guard type.isInteger || type == .float || type == .decimal else { return try scalar(input, as: type, for: property) }
        do {
            let value = try scalar(input, as: type, for: property)
            // Text with digits a decimal does not hold is stored rounded, but compares by its value.
            if case .decimal = value, let text = decimalText(of: input), Decimal.parse(text, exactly: true) == nil,
               let number = doubleValue(of: input) ?? Double(text), number.isFinite {
                return .double(number)
            }
            // A float that underflows to zero, or one that rounds a whole number (16777217 is
            // no float), would compare as another number. A fraction keeps its nearest float,
            // so that `f == 0.1` finds the 0.1 stored.
            if case .float(let f) = value, let number = doubleValue(of: input), Double(f) != number,
               f == 0 || (number.rounded() == number && Swift.abs(number) < 0x1p63) {
                return .double(number)
            }
            return value
        } catch {
            guard let number = doubleValue(of: input), number.isFinite else { throw error }
            return .double(number)
        }
    }

    /// The text a decimal is read from in `input`: a number or string as written, a double's
    /// shortest text; nil for anything else.
    private static func decimalText(of input: CoercionInput) -> String? {
        switch input {
        case .literal(.number(let text)), .text(let text), .literal(.string(let text)), .value(.string(let text)), .json(.string(let text)): text
        case .value(.double(let d)), .json(.double(let d)): "\(d)"
        default: nil
        }
    }

    /// The number `input` holds, as a double; nil for anything else.
    private static func doubleValue(of input: CoercionInput) -> Double? {
        switch input {
        case .value(.int(let i)), .json(.int(let i)): Double(i)
        case .value(.double(let d)), .json(.double(let d)): d
        case .json(.bigInteger(let digits)): Double(digits)
        case .value(.float(let f)): Double(f)
        case .value(.decimal(let d)): d.doubleValue
        case .literal(.number(let text)), .text(let text): NumberText(text) == nil ? nil : Double(text)
        default: nil
        }
    }

    // MARK: Sources

    private static func value(_ v: Value, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        // Exact kinds first: every insert passes through here.
        switch (type, v) {
        case (_, .null): return .null
        // A date value is taken as it is: migrations copy stored dates through here, and a
        // store may hold one outside the years text writes (from the Swift API).
        case (.bool, .bool), (.float, .float), (.double, .double), (.string, .string), (.date, .date),
             (.data, .data), (.uuid, .uuid):
            return v
        // A decimal NaN has no number to store: its text would read back as another value.
        case (.decimal, .decimal(let d)):
            guard !d.isNaN else { throw CoercionError(property: property, type: type, found: "NaN (a decimal cannot be NaN)") }
            return v
        case (_, .int(let i)): return try integer(i, as: type, for: property, found: { "\(i)" })
        case (_, .double(let d)): return try double(d, as: type, for: property, found: { NonFiniteNumber.text(d) ?? "\(d)" })
        case (_, .float(let f)):
            if type == .double { return .double(Double(f)) }
            return try double(Double(f), as: type, for: property, found: { NonFiniteNumber.text(Double(f)) ?? f.description })
        case (_, .decimal(let d)):
            guard type.isNumeric else { throw mismatch(type, property, "a decimal") }
            return try number(d.description, as: type, for: property)
        case (_, .string(let s)):
            return try string(s, as: type, for: property)
        default:
            throw mismatch(type, property, v.kindDescription)
        }
    }

    private static func json(_ json: JSONValue, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b):
            guard type == .bool else { throw mismatch(type, property, "\(b)") }
            return .bool(b)
        case .int(let i):
            if type == .decimal { throw decimalAsNumber(property, "\(i)") }
            return try integer(i, as: type, for: property, found: { "\(i)" })
        case .bigInteger(let digits):
            if type == .decimal { throw decimalAsNumber(property, digits) }
            return try number(digits, as: type, for: property)
        case .double(let d):
            if type == .decimal { throw decimalAsNumber(property, written(d), digitsMayBeLost: true) }
            return try double(d, as: type, for: property, found: { written(d) })
        case .string(let s):
            if let d = nonFinite(NonFiniteNumber.value(ofJSONString: s), as: type) { return d }
            return try string(s, as: type, for: property, inJSON: true)
        case .array: throw mismatch(type, property, "an array")
        case .object: throw mismatch(type, property, "an object")
        }
    }

    private static func literal(_ literal: QueryExpression.Literal, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        switch literal {
        case .null: return .null
        case .bool(let b):
            guard type == .bool else { throw mismatch(type, property, "\(b)") }
            return .bool(b)
        case .number(let text): return try number(text, as: type, for: property)
        case .string(let s): return try string(s, as: type, for: property)
        case .list: throw mismatch(type, property, "a list")
        }
    }

    private static func text(_ text: String, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        if type == .string { return .string(text) }
        let lowered = text.lowercased()
        if lowered == "null" || lowered == "nil" { return .null }
        if type == .bool {
            switch lowered {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw CoercionError(property: property, type: type, found: "\(quoted(text)), which is not true or false")
            }
        }
        if type.isNumeric {
            if let d = nonFinite(NonFiniteNumber.value(ofText: text), as: type) { return d }
            return try number(text, as: type, for: property)
        }
        return try string(text, as: type, for: property)
    }

    /// `d`, a NaN or infinity read from a string, as a value of `type` when that is a float
    /// or double; nil otherwise (a decimal cannot be NaN, an integer neither).
    private static func nonFinite(_ d: Double?, as type: PropertyType) -> Value? {
        guard let d else { return nil }
        switch type {
        case .double: return .double(d)
        case .float: return .float(Float(d))
        default: return nil
        }
    }

    // MARK: Forms

    /// A number written as text (a literal, a field): exact for integers and decimals.
    private static func number(_ text: String, as type: PropertyType, for property: String) throws(CoercionError) -> Value {
        guard let parsed = NumberText(text) else {
            throw CoercionError(property: property, type: type, found: "\(quoted(text)), which is not a number")
        }
        switch type {
        case .int, .int8, .int16, .int32, .int64:
            switch parsed.integer {
            case .value(let i): return try integer(i, as: type, for: property, found: { text })
            case .fractional: throw CoercionError(property: property, type: type, found: "\(text), which is not a whole number")
            case .outOfRange: throw outOfRange(type, property, text)
            }
        case .float:
            guard let f = Float(text), f.isFinite else { throw outOfRange(type, property, text) }
            return .float(f)
        case .double:
            guard let d = Double(text), d.isFinite else { throw outOfRange(type, property, text) }
            return .double(d)
        case .decimal:
            guard let d = Decimal.parse(text) else { throw outOfRange(type, property, text) }
            return .decimal(d)
        default:
            throw mismatch(type, property, "the number \(text)")
        }
    }

    private static func integer(_ i: Int64, as type: PropertyType, for property: String, found: () -> String) throws(CoercionError) -> Value {
        switch type {
        case .int, .int64: return .int(i)
        case .int8, .int16, .int32:
            guard type.integerRange!.contains(i) else { throw outOfRange(type, property, found()) }
            return .int(i)
        case .float: return .float(Float(i))
        case .double: return .double(Double(i))
        case .decimal: return .decimal(Decimal(i))
        default: throw mismatch(type, property, "the number \(found())")
        }
    }

    /// `found` writes `d` as it was given; it is called only for an error or a decimal, since
    /// formatting a double costs more than coercing it.
    private static func double(_ d: Double, as type: PropertyType, for property: String, found: () -> String) throws(CoercionError) -> Value {
        switch type {
        case .double: return .double(d)
        case .float:
            let f = Float(d)
            guard f.isFinite || !d.isFinite else { throw outOfRange(type, property, found()) }
            return .float(f)
        case .int, .int8, .int16, .int32, .int64:
            guard d.isFinite, d.rounded() == d else {
                throw CoercionError(property: property, type: type, found: "\(found()), which is not a whole number")
            }
            guard let i = Int64(exactly: d) else { throw outOfRange(type, property, found()) }
            return try integer(i, as: type, for: property, found: found)
        case .decimal:
            guard d.isFinite else { throw outOfRange(type, property, found()) }
            let text = found()
            guard let value = Decimal.parse(text) else { throw outOfRange(type, property, text) }
            return .decimal(value)
        default:
            throw mismatch(type, property, "the number \(found())")
        }
    }

    /// A string: itself for a string, the JSON form of dates, data, decimals and UUIDs.
    /// `inJSON`: the string is a JSON value, whose spellings of NaN and the infinities a
    /// refusal names (JSON reads fewer than text does).
    private static func string(_ s: String, as type: PropertyType, for property: String, inJSON: Bool = false) throws(CoercionError) -> Value {
        func bad(_ what: String) -> CoercionError { CoercionError(property: property, type: type, found: "\(quoted(s)), which is not \(what)") }
        switch type {
        case .string: return .string(s)
        case .date:
            guard let d = ISO8601Timestamp.parse(s) else { throw bad("an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z") }
            return try date(d, for: property, found: { quoted(s) })
        case .data:
            guard let d = Data(base64Encoded: s) else { throw bad("base64") }
            return .data(d)
        case .decimal:
            guard let d = Decimal.parse(s) else {
                if NumberText(s) != nil { throw outOfRange(type, property, quoted(s)) }
                throw bad("a decimal number")
            }
            return .decimal(d)
        case .uuid:
            guard let u = UUID(uuidString: s) else { throw bad("a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F") }
            return .uuid(u)
        case .float where NonFiniteNumber.value(ofText: s) != nil, .double where NonFiniteNumber.value(ofText: s) != nil:
            if inJSON {
                throw mismatch(type, property, "the string \(quoted(s)) (in JSON, NaN and the infinities are the strings \"NaN\", \"Infinity\" and \"-Infinity\")")
            }
            throw mismatch(type, property, "the string \(quoted(s)) (NaN and the infinities are written as an argument, $N, or in JSON)")
        default:
            throw mismatch(type, property, "the string \(quoted(s))")
        }
    }

    /// A date, if its text can be written and read back: a four-digit year.
    private static func date(_ d: Date, for property: String, found: () -> String) throws(CoercionError) -> Value {
        let range = ISO8601Timestamp.writable
        if range.contains(d) { return .date(d) }
        let why = d < range.lowerBound
            ? "before \(ISO8601Timestamp.format(range.lowerBound)), the first date held"
            : "after \(ISO8601Timestamp.format(ISO8601Timestamp.last)), the last date held (a date holds seconds since 2001 as a double, about 30 microseconds apart in year 9999)"
        throw CoercionError(property: property, type: .date, found: "\(found()), which is \(why)")
    }

    // MARK: Errors

    private static func mismatch(_ type: PropertyType, _ property: String, _ found: String) -> CoercionError {
        CoercionError(property: property, type: type, found: found)
    }

    /// A JSON number as people write it: `1e20`, not Swift's `1e+20`.
    private static func written(_ d: Double) -> String {
        NonFiniteNumber.text(d) ?? String(d.description.replacing("e+", with: "e"))
    }

    private static func outOfRange(_ type: PropertyType, _ property: String, _ text: String) -> CoercionError {
        let range = type.integerRange.map { " (\($0.lowerBound)...\($0.upperBound))" } ?? " for \(type)"
        return CoercionError(property: property, type: type, found: "\(text), which is out of range\(range)")
    }

    /// A JSON number for a decimal, refused: a JSON number is a double to most JSON writers
    /// and readers, which keeps 15 to 17 digits of the 38 a decimal holds (schema format:
    /// "strings for `decimal`"). `text` is the number as written, or, for a double, its
    /// shortest digits; the message shows it as a decimal prints it and gives its string form.
    /// A double whose shortest form has more than 15 significant digits may have lost digits
    /// of the number written (a double keeps 15 of any number's digits, and 17 of its own): a
    /// string made from it could hold another number, so the message gives none.
    private static func decimalAsNumber(_ property: String, _ text: String, digitsMayBeLost: Bool = false) -> CoercionError {
        if digitsMayBeLost, significantDigits(text) > 15 {
            return CoercionError(property: property, type: .decimal, found: "a JSON number of more digits than a double keeps (JSON writes a decimal as a string, the number's digits in quotes, to keep every digit)")
        }
        guard let decimal = Decimal.parse(text, exactly: true)?.description else {
            return CoercionError(property: property, type: .decimal, found: "the number \(text) (JSON writes a decimal as a string such as \"0.00\", to keep every digit)")
        }
        return CoercionError(property: property, type: .decimal, found: "the number \(decimal) (JSON writes a decimal as a string, \"\(decimal)\", to keep every digit)")
    }

    /// The significant digits of a number's text: those of its mantissa, without leading
    /// and trailing zeros.
    private static func significantDigits(_ text: String) -> Int {
        let mantissa = text.utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        let digits = mantissa.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let leading = digits.prefix { $0 == UInt8(ascii: "0") }.count
        let trailing = digits.reversed().prefix { $0 == UInt8(ascii: "0") }.count
        return max(0, digits.count - leading - trailing)
    }

    private static func quoted(_ s: String) -> String {
        JSONValue.string(s.count > 60 ? String(s.prefix(57)) + "..." : s).jsonText
    }
}

/// A number as written in decimal (`-12`, `4.0`, `1e3`, `0.125`), read exactly: whether its
/// value is a whole number that fits in 64 bits is decided on its digits, not on a `Double`.
struct NumberText {
    enum Integer { case value(Int64), fractional, outOfRange }

    let integer: Integer

    init?(_ text: String) {
        let u = Array(text.utf8)
        var i = 0
        var negative = false
        if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { negative = u[i] == UInt8(ascii: "-"); i += 1 }
        var digits: [UInt8] = []
        var fractionDigits = 0
        while i < u.count, u[i] &- 0x30 < 10 { digits.append(u[i] - 0x30); i += 1 }
        guard !digits.isEmpty else { return nil }
        if i < u.count, u[i] == UInt8(ascii: ".") {
            i += 1
            let before = digits.count
            while i < u.count, u[i] &- 0x30 < 10 { digits.append(u[i] - 0x30); i += 1 }
            fractionDigits = digits.count - before
            guard fractionDigits > 0 else { return nil }
        }
        var exponent = 0
        if i < u.count, u[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { expNegative = u[i] == UInt8(ascii: "-"); i += 1 }
            var e = 0
            var count = 0
            while i < u.count, u[i] &- 0x30 < 10 { e = min(e * 10 + Int(u[i] - 0x30), 100_000); count += 1; i += 1 }
            guard count > 0 else { return nil }
            exponent = expNegative ? -e : e
        }
        guard i == u.count else { return nil }
        // The value is digits × 10^(exponent - fractionDigits).
        var shift = exponent - fractionDigits
        while shift < 0, digits.count > 1, digits.last == 0 { digits.removeLast(); shift += 1 }
        while digits.count > 1, digits.first == 0 { digits.removeFirst() }
        if digits == [0] {
            integer = .value(0)
        } else if shift < 0 {
            integer = .fractional
        } else if digits.count + shift > 19 {
            integer = .outOfRange
        } else {
            var magnitude: UInt64 = 0
            for d in digits { magnitude = magnitude * 10 + UInt64(d) }
            for _ in 0..<shift { magnitude *= 10 }
            if negative {
                integer = magnitude <= UInt64(Int64.max) + 1 ? .value(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)) : .outOfRange
            } else {
                integer = magnitude <= UInt64(Int64.max) ? .value(Int64(magnitude)) : .outOfRange
            }
        }
    }
}

extension Coercion {
    /// A Swift value as an element of property `p`, as the store writes it: null only where
    /// the property allows it.
    static func stored(_ v: Value, for p: PropertyLayout, element: Int? = nil) throws -> Value {
        if case .null = v {
            guard p.isOptional else { throw StoreError.nullNotAllowed(model: p.model.name, property: p.name) }
            return .null
        }
        do {
            return try scalar(.value(v), as: p.elementType, for: p.name)
        } catch {
            throw StoreError.invalidValue(element.map(error.inElement) ?? error)
        }
    }
}
