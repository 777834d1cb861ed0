/// Serializes ``JSONValue`` to UTF-8 JSON text.
///
/// - ``Style/compact`` writes no whitespace at all: `{"a":1,"b":[true,null]}`.
///   ``Style/pretty`` indents by two spaces and writes `"key": value`.
/// - Object keys keep their order.
/// - Strings escape `"`, `\` and the control characters (`\n`, `\t`, ... or `\u00XX`);
///   everything else, including non-ASCII text, is written as raw UTF-8.
/// - Doubles use Swift's shortest round-tripping representation. An integral double keeps
///   its fraction (`1.0`, not `1`) so that reading the text back yields ``JSONValue/double(_:)``
///   again, not ``JSONValue/int(_:)``: writing then parsing is the identity.
/// - ``JSONValue/bigInteger(_:)`` writes its digits as they were read.
/// - JSON has no infinities or NaN. By default they fail with ``NonFiniteNumberError`` rather
///   than silently changing the data; ``NonFiniteNumbers/writeNull`` writes `null` instead,
///   as JavaScript's `JSON.stringify` does, for output meant for people.
package struct JSONWriter: Sendable {
    /// The layout of the text.
    package enum Style: Sendable, Equatable {
        /// No whitespace.
        case compact
        /// Two-space indentation, one member or element per line.
        case pretty
    }

    /// What to do with infinities and NaN.
    package enum NonFiniteNumbers: Sendable, Equatable {
        /// Throw ``NonFiniteNumberError``.
        case fail
        /// Write the string PostgreSQL's `to_json` writes (`"NaN"`, `"Infinity"`,
        /// `"-Infinity"`), which a float or double reads back: ``NonFiniteNumber``.
        case writeStrings
    }

    /// An infinity or NaN met with ``NonFiniteNumbers/fail``.
    package struct NonFiniteNumberError: Error, Sendable, Equatable, CustomStringConvertible {
        package var value: Double
        package var description: String { "\(value) cannot be written as JSON" }
    }

    package var style: Style
    package var nonFiniteNumbers: NonFiniteNumbers

    package init(style: Style = .compact, nonFiniteNumbers: NonFiniteNumbers = .fail) {
        self.style = style
        self.nonFiniteNumbers = nonFiniteNumbers
    }

    /// Appends the text of `value` to `output`.
    package func write(_ value: JSONValue, to output: inout [UInt8]) throws(NonFiniteNumberError) {
        try write(value, to: &output, indent: 0)
    }

    /// The UTF-8 text of `value`.
    package func bytes(_ value: JSONValue) throws(NonFiniteNumberError) -> [UInt8] {
        var out: [UInt8] = []
        try write(value, to: &out)
        return out
    }

    /// The text of `value`.
    package func string(_ value: JSONValue) throws(NonFiniteNumberError) -> String {
        String(decoding: try bytes(value), as: UTF8.self)
    }

    private func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private func write(_ value: JSONValue, to out: inout [UInt8], indent: Int) throws(NonFiniteNumberError) {
        switch value {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let v):
            Self.writeInteger(v, to: &out)
        case .bigInteger(let digits):
            out.append(contentsOf: digits.utf8)
        case .double(let d):
            try writeDouble(d, to: &out)
        case .string(let s):
            Self.writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (n, element) in elements.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                if style == .pretty { newline(&out, indent + 1) }
                try write(element, to: &out, indent: indent + 1)
            }
            if style == .pretty && !elements.isEmpty { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (n, pair) in object.pairs.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                if style == .pretty { newline(&out, indent + 1) }
                Self.writeString(pair.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if style == .pretty { out.append(0x20) }
                try write(pair.value, to: &out, indent: indent + 1)
            }
            if style == .pretty && object.count > 0 { newline(&out, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func writeDouble(_ d: Double, to out: inout [UInt8]) throws(NonFiniteNumberError) {
        guard d.isFinite else {
            guard nonFiniteNumbers == .writeStrings, let text = NonFiniteNumber.text(d) else { throw NonFiniteNumberError(value: d) }
            Self.writeString(text, to: &out)
            return
        }
        // `description` is the shortest text that reads back as the same Double, and for
        // finite values it is always valid JSON ("1.0", "1e-05", "1.5e+300", "-0.0").
        out.append(contentsOf: d.description.utf8)
    }

    /// Writes decimal digits without going through String.
    static func writeInteger(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        // Work on the magnitude as UInt64 so that Int64.min has one.
        var m = v.magnitude
        let first = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(m % 10))
            m /= 10
        } while m > 0
        out[first...].reverse()
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for (k, c) in utf8.enumerated() where c < 0x20 || c == 0x22 || c == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<k]))
                runStart = k + 1
                out.append(UInt8(ascii: "\\"))
                switch c {
                case 0x22: out.append(UInt8(ascii: "\""))
                case 0x5C: out.append(UInt8(ascii: "\\"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    // Only U+0000...U+001F get here: "\u00" then two lowercase hex digits.
                    let low = c & 0xF
                    out.append(contentsOf: "u00".utf8)
                    out.append(UInt8(ascii: "0") + c >> 4)
                    out.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// Compact JSON text; infinities and NaN are written as the strings `"NaN"`,
    /// `"Infinity"` and `"-Infinity"`, as PostgreSQL's `to_json` writes them.
    public var jsonText: String {
        (try? JSONWriter(nonFiniteNumbers: .writeStrings).string(self)) ?? "null"
    }
}
