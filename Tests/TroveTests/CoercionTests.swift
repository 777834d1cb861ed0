#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import Trove

/// Every source of a value against every scalar property type: what is accepted, as what,
/// and what is refused.
struct CoercionTests {
    struct Case: CustomStringConvertible, Sendable {
        let input: CoercionInput
        let type: PropertyType
        /// nil: an error.
        let expected: Value?
        var description: String { "\(input) as \(type)" }
    }

    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let midnight = Date(timeIntervalSince1970: 0)
    static let noon = Date(timeIntervalSince1970: 43200)
    static let twentyDigits = Decimal(string: "12345678901234567890")!

    /// For each type: (input, expected) pairs from every source. A source with no line for a
    /// type gets an error line (a value of the wrong kind).
    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ type: PropertyType, _ rows: [(CoercionInput, Value?)]) {
            cases += rows.map { Case(input: $0.0, type: type, expected: $0.1) }
        }
        for type in [PropertyType.int, .int8, .int16, .int32, .int64] {
            add(type, [
                (.value(.int(4)), .int(4)), (.value(.double(4.0)), .int(4)), (.value(.double(4.5)), nil), (.value(.string("4")), nil),
                (.json(.int(4)), .int(4)), (.json(.double(4.0)), .int(4)), (.json(.double(1e2)), .int(100)), (.json(.double(4.5)), nil),
                (.json(.string("4")), nil), (.json(.bool(true)), nil),
                (.literal(.number("4")), .int(4)), (.literal(.number("4.0")), .int(4)), (.literal(.number("1e2")), .int(100)),
                (.literal(.number("4.5")), nil), (.literal(.string("4")), nil), (.literal(.bool(true)), nil),
                (.text("4"), .int(4)), (.text("-4.00"), .int(-4)), (.text("1e2"), .int(100)), (.text("4.5"), nil), (.text("four"), nil),
                (.text("null"), .null), (.text("Infinity"), nil), (.text("nan"), nil), (.json(.string("NaN")), nil),
            ])
        }
        add(.int8, [(.json(.int(128)), nil), (.literal(.number("-128")), .int(-128)), (.text("1e3"), nil), (.value(.int(-129)), nil)])
        add(.int16, [(.json(.int(32768)), nil), (.text("32767"), .int(32767))])
        add(.int32, [(.literal(.number("2147483648")), nil), (.text("-2147483648"), .int(-2147483648))])
        add(.int64, [(.literal(.number("9223372036854775807")), .int(.max)), (.literal(.number("9223372036854775808")), nil),
                     (.text("-9223372036854775808"), .int(.min)), (.literal(.number("1e19")), nil), (.json(.double(1e19)), nil)])
        for (type, v): (PropertyType, (Double) -> Value) in [(.float, { .float(Float($0)) }), (.double, { .double($0) })] {
            add(type, [
                (.value(.int(2)), v(2)), (.value(.double(2.5)), v(2.5)), (.value(.string("2.5")), nil),
                (.json(.int(2)), v(2)), (.json(.double(2.5)), v(2.5)), (.json(.string("2.5")), nil), (.json(.bool(false)), nil),
                (.literal(.number("2.5")), v(2.5)), (.literal(.number("25e-1")), v(2.5)), (.literal(.string("2.5")), nil), (.literal(.bool(false)), nil),
                (.text("2.5"), v(2.5)), (.text("-2"), v(-2)), (.text("abc"), nil), (.text("nil"), .null),
                // The infinities (NaN, which equals nothing, is NonFiniteNumberTests'): PostgreSQL's spellings.
                (.json(.string("Infinity")), v(.infinity)), (.json(.string("-Infinity")), v(-.infinity)),
                (.json(.string("inf")), nil), (.json(.string("infinity")), nil), (.json(.string("+Infinity")), nil),
                (.text("Infinity"), v(.infinity)), (.text("-inf"), v(-.infinity)), (.text("+INF"), v(.infinity)),
                (.text("-infinity"), v(-.infinity)), (.text("infinite"), nil), (.text("--inf"), nil), (.text("1e999"), nil),
                (.literal(.string("Infinity")), nil), (.value(.string("Infinity")), nil),
            ])
        }
        add(.float, [(.json(.double(1e300)), nil), (.literal(.number("1e39")), nil)])
        add(.decimal, [
            (.value(.decimal(twentyDigits)), .decimal(twentyDigits)), (.value(.int(3)), .decimal(3)), (.value(.string("1.25")), .decimal(Decimal(string: "1.25")!)),
            (.value(.bool(true)), nil),
            (.json(.string("12345678901234567890")), .decimal(twentyDigits)), (.json(.int(3)), nil), (.json(.string("1.2.3")), nil), (.json(.bool(true)), nil),
            (.literal(.number("12345678901234567890")), .decimal(twentyDigits)), (.literal(.number("0.1")), .decimal(Decimal(string: "0.1")!)),
            (.literal(.string("12345678901234567890")), .decimal(twentyDigits)), (.literal(.bool(true)), nil),
            (.text("12345678901234567890"), .decimal(twentyDigits)), (.text("1,5"), nil),
            (.text("NaN"), nil), (.text("Infinity"), nil), (.json(.string("NaN")), nil), (.json(.string("-Infinity")), nil),
        ])
        add(.bool, [
            (.value(.bool(true)), .bool(true)), (.value(.int(1)), nil), (.value(.string("true")), nil),
            (.json(.bool(false)), .bool(false)), (.json(.string("true")), nil), (.json(.int(1)), nil),
            (.literal(.bool(true)), .bool(true)), (.literal(.string("true")), nil), (.literal(.number("1")), nil),
            (.text("true"), .bool(true)), (.text("NO"), .bool(false)), (.text("1"), .bool(true)), (.text("0"), .bool(false)), (.text("maybe"), nil),
        ])
        add(.string, [
            (.value(.string("a")), .string("a")), (.value(.int(1)), nil),
            (.json(.string("a")), .string("a")), (.json(.int(1)), nil), (.json(.bool(true)), nil), (.json(.array([])), nil),
            (.literal(.string("a")), .string("a")), (.literal(.number("1")), nil), (.literal(.bool(false)), nil),
            (.text("1"), .string("1")), (.text("null"), .string("null")), (.text(""), .string("")),
            (.text("NaN"), .string("NaN")), (.json(.string("-Infinity")), .string("-Infinity")),
        ])
        add(.date, [
            (.value(.date(noon)), .date(noon)), (.value(.string("1970-01-01")), .date(midnight)), (.value(.int(0)), nil),
            (.json(.string("1970-01-01")), .date(midnight)), (.json(.string("1970-01-01T12:00:00Z")), .date(noon)),
            (.json(.string("1970-01-01T14:00:00+02:00")), .date(noon)), (.json(.string("yesterday")), nil), (.json(.int(0)), nil),
            (.literal(.string("1970-01-01T12:00:00Z")), .date(noon)), (.literal(.number("0")), nil),
            (.text("1970-01-01"), .date(midnight)), (.text("1970-01-01T07:00:00-0500"), .date(noon)), (.text("01/01/1970"), nil),
        ])
        add(.data, [
            (.value(.data(Data([1, 2]))), .data(Data([1, 2]))), (.value(.string("AQI=")), .data(Data([1, 2]))), (.value(.int(1)), nil),
            (.json(.string("AQI=")), .data(Data([1, 2]))), (.json(.string("***")), nil), (.json(.int(1)), nil),
            (.literal(.string("AQI=")), .data(Data([1, 2]))), (.literal(.number("1")), nil),
            (.text("AQI="), .data(Data([1, 2]))), (.text("***"), nil),
        ])
        add(.uuid, [
            (.value(.uuid(uuid)), .uuid(uuid)), (.value(.string(uuid.uuidString)), .uuid(uuid)), (.value(.int(1)), nil),
            (.json(.string(uuid.uuidString)), .uuid(uuid)), (.json(.string("123")), nil), (.json(.bool(true)), nil),
            (.literal(.string(uuid.uuidString.lowercased())), .uuid(uuid)), (.literal(.number("1")), nil),
            (.text(uuid.uuidString), .uuid(uuid)), (.text("123"), nil),
        ])
        for type in PropertyType.scalarTypes {
            add(type, [(.value(.null), .null), (.json(.null), .null), (.literal(.null), .null), (.literal(.list([])), nil)])
        }
        return cases
    }()

    @Test(arguments: cases)
    func coerces(_ c: Case) {
        let result = Result { () throws(CoercionError) in try Coercion.scalar(c.input, as: c.type, for: "p") }
        switch (result, c.expected) {
        case (.success(let v), let expected?): #expect(v == expected)
        case (.success(let v), nil): Issue.record("expected an error, got \(v)")
        case (.failure(let e), let expected?): Issue.record("expected \(expected), got \(e)")
        case (.failure(let e), nil):
            #expect(e.property == "p")
            #expect(e.description.hasPrefix("property 'p' expects \(c.type), not "))
        }
    }

    @Test func everySourceMeetsEveryScalarType() {
        for type in PropertyType.scalarTypes {
            for source in ["value", "json", "literal", "text"] {
                let covered = Self.cases.contains { c in
                    c.type == type && c.expected != nil && c.expected != .null && {
                        switch c.input {
                        case .value: source == "value"
                        case .json: source == "json"
                        case .literal: source == "literal"
                        case .text: source == "text"
                        }
                    }()
                }
                #expect(covered, "no accepted \(source) for \(type)")
            }
        }
    }

    @Test func errorsSayWhatWasWrong() {
        func message(_ input: CoercionInput, _ type: PropertyType) -> String {
            do {
                _ = try Coercion.scalar(input, as: type, for: "Cylinders")
                return ""
            } catch {
                return error.description
            }
        }
        #expect(message(.json(.double(4.5)), .int) == "property 'Cylinders' expects int, not 4.5, which is not a whole number")
        #expect(message(.text("300"), .int8) == "property 'Cylinders' expects int8, not 300, which is out of range (-128...127)")
        // A JSON number shows as written, not as Swift prints a double (1e+20).
        let range = "which is out of range (-9223372036854775808...9223372036854775807)"
        #expect(message(.json(.bigInteger("100000000000000000000")), .int) == "property 'Cylinders' expects int, not 100000000000000000000, \(range)")
        #expect(message(.json(.double(1e20)), .int) == "property 'Cylinders' expects int, not 1e20, \(range)")
        #expect((try? Coercion.scalar(.json(.bigInteger("100000000000000000000")), as: .double, for: "x")) == .double(1e20))
        #expect(message(.literal(.string("yes")), .bool) == "property 'Cylinders' expects bool, not the string \"yes\"")
        #expect(message(.json(.string("1970")), .date).contains("which is not an ISO 8601 date such as 2024-05-01"))
    }
}
