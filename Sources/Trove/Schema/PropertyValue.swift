#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A typed scalar value: a property's default, and the currency between JSON and storage.
///
/// All integer widths share ``int(_:)``; the property's ``PropertyType`` fixes the range.
public enum PropertyValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case decimal(Decimal)
    case uuid(UUID)

    /// Why a JSON value cannot be read as a type.
    public struct ConversionError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the JSON form of a scalar value of `type` (see schema-format.md, "Types"):
    /// numbers for numeric types, ISO 8601 strings for dates, base64 for data, strings for
    /// decimals and UUIDs. `null` is ``null``; whether it is allowed is the caller's concern.
    public init(json: JSONValue, as type: PropertyType) throws(ConversionError) {
        func mismatch(_ expected: String) -> ConversionError {
            ConversionError(description: "expected \(expected), found \(json.typeDescription)")
        }
        if json == .null {
            self = .null
            return
        }
        switch type {
        case .bool:
            guard case .bool(let b) = json else { throw mismatch("true or false") }
            self = .bool(b)
        case .int, .int8, .int16, .int32, .int64:
            let range = type.integerRange!
            switch json {
            case .int(let v):
                guard range.contains(v) else {
                    throw ConversionError(description: "\(v) is out of range for \(type) (\(range.lowerBound)...\(range.upperBound))")
                }
                self = .int(v)
            case .double(let d):
                throw ConversionError(description: "expected an integer, found \(d)")
            default:
                throw mismatch("an integer")
            }
        case .float:
            switch json {
            case .int(let v): self = .float(Float(v))
            case .double(let d):
                let f = Float(d)
                guard f.isFinite else { throw ConversionError(description: "\(d) is out of range for float") }
                self = .float(f)
            default: throw mismatch("a number")
            }
        case .double:
            switch json {
            case .int(let v): self = .double(Double(v))
            case .double(let d): self = .double(d)
            default: throw mismatch("a number")
            }
        case .string:
            guard case .string(let s) = json else { throw mismatch("a string") }
            self = .string(s)
        case .date:
            guard case .string(let s) = json else { throw mismatch("an ISO 8601 date string") }
            guard let d = ISO8601Timestamp.parse(s) else {
                throw ConversionError(description: "\"\(s)\" is not an ISO 8601 date such as \"2024-05-01T12:00:00Z\"")
            }
            self = .date(d)
        case .data:
            guard case .string(let s) = json else { throw mismatch("a base64 string") }
            guard let d = Data(base64Encoded: s) else { throw ConversionError(description: "\"\(s)\" is not valid base64") }
            self = .data(d)
        case .decimal:
            guard case .string(let s) = json else {
                throw ConversionError(description: "expected a decimal string such as \"0.00\" (decimals are written as strings to keep every digit), found \(json.typeDescription)")
            }
            guard let d = Self.parseDecimal(s) else { throw ConversionError(description: "\"\(s)\" is not a decimal number") }
            self = .decimal(d)
        case .uuid:
            guard case .string(let s) = json else { throw mismatch("a UUID string") }
            guard let u = UUID(uuidString: s) else {
                throw ConversionError(description: "\"\(s)\" is not a UUID such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
            }
            self = .uuid(u)
        case .link, .list, .linkingObjects:
            throw ConversionError(description: "\(type) is not a scalar type")
        }
    }

    /// `Decimal(string:)` accepts trailing garbage and locale forms, so check the grammar first.
    static func parseDecimal(_ s: String) -> Decimal? {
        var i = s.utf8.startIndex
        let u = s.utf8
        func digits() -> Int {
            var n = 0
            while i < u.endIndex, u[i] &- UInt8(ascii: "0") < 10 { n += 1; i = u.index(after: i) }
            return n
        }
        if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
        guard digits() > 0 else { return nil }
        if i < u.endIndex, u[i] == UInt8(ascii: ".") {
            i = u.index(after: i)
            guard digits() > 0 else { return nil }
        }
        if i < u.endIndex, u[i] | 0x20 == UInt8(ascii: "e") {
            i = u.index(after: i)
            if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
            guard digits() > 0 else { return nil }
        }
        guard i == u.endIndex, let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else { return nil }
        return d
    }

    /// The JSON form, as ``init(json:as:)`` reads it.
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let v): .int(v)
        // Through the Float's own shortest text, so that 0.1 stays 0.1 and not 0.100000001.
        case .float(let f): .double(Double(f.description) ?? Double(f))
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .date(let d): .string(ISO8601Timestamp.format(d))
        case .data(let d): .string(d.base64EncodedString())
        case .decimal(let d): .string(d.description)
        case .uuid(let u): .string(u.uuidString)
        }
    }

    /// Whether this value can be stored in a property of `type` (ignoring null).
    public func fits(_ type: PropertyType) -> Bool {
        switch (self, type) {
        case (.null, _): true
        case (.bool, .bool), (.float, .float), (.double, .double), (.string, .string), (.date, .date),
             (.data, .data), (.decimal, .decimal), (.uuid, .uuid): true
        case (.int(let v), _): type.integerRange?.contains(v) ?? false
        default: false
        }
    }
}
