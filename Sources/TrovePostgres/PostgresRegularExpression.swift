/// `MATCHES` patterns in PostgreSQL's regular expressions (AREs), for the subset of ICU's
/// syntax whose meaning is the same in both.
///
/// ICU's classes (`\w`, `\d`, `\s`, `\p{...}`, `[[:alpha:]]`) are Unicode's, PostgreSQL's
/// depend on the database's ctype; anchors, look-around, back-references, lazy and
/// possessive quantifiers and inline flags differ too. So only these are translated:
/// - literal characters, and `\` before an ASCII punctuation character (that character);
/// - `.`, as a bracket excluding ICU's line terminators (U+000A to U+000D, U+0085, U+2028,
///   U+2029), which ICU's `.` does not match and PostgreSQL's does;
/// - brackets of literal characters and ranges, negated or not (no classes, nested sets or
///   set operations);
/// - greedy `*`, `+`, `?`, `{m}`, `{m,}` and `{m,n}` (bounds up to 255, PostgreSQL's limit);
/// - `|`, `(...)` and `(?:...)`.
/// The whole is anchored, `^(?:...)$`, as `MATCHES` matches the whole string. Both engines
/// match code points, and the answer of a whole match does not depend on which alternative
/// or repetition count each engine prefers.
enum PostgresRegularExpression {
    /// Why a pattern is not translated: the construct, as the refusal names it.
    struct Untranslated: Error {
        var construct: String
    }

    /// ICU's line terminators, which its `.` does not match.
    private static let lineTerminators: [Unicode.Scalar] = ["\u{0A}", "\u{0B}", "\u{0C}", "\u{0D}", "\u{85}", "\u{2028}", "\u{2029}"]

    /// The ARE matching the whole of a string exactly when ICU's `pattern` does.
    static func translate(_ pattern: String) throws(Untranslated) -> String {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        let body = try parser.alternation()
        guard parser.index == parser.scalars.count else { throw Untranslated(construct: "an unmatched ')'") }
        return "^(?:" + body + ")$"
    }

    /// A character as an ARE reads it literally, outside brackets or inside them: ASCII
    /// punctuation escaped (an ARE reads `\` before it as the character itself, inside
    /// brackets too), everything else as it is.
    static func literal(_ scalar: Unicode.Scalar) -> String {
        if scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar), scalar.value > 0x20, scalar.value < 0x7F {
            return "\\" + String(scalar)
        }
        return String(scalar)
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func alternation() throws(Untranslated) -> String {
            var branches = [try sequence()]
            while current == "|" {
                index += 1
                branches.append(try sequence())
            }
            return branches.joined(separator: "|")
        }

        mutating func sequence() throws(Untranslated) -> String {
            var sql = ""
            while let scalar = current, scalar != "|", scalar != ")" {
                sql += try atom()
                sql += try quantifier()
            }
            return sql
        }

        mutating func atom() throws(Untranslated) -> String {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "(":
                if current == "?" {
                    guard index + 1 < scalars.count, scalars[index + 1] == ":" else { throw Untranslated(construct: "'(?'") }
                    index += 2
                }
                let inner = try alternation()
                guard current == ")" else { throw Untranslated(construct: "an unclosed '('") }
                index += 1
                return "(?:" + inner + ")"
            case ".":
                return "[^" + PostgresRegularExpression.lineTerminators.map { String($0) }.joined() + "]"
            case "[":
                return try bracket()
            case "\\":
                return PostgresRegularExpression.literal(try escaped())
            case "*", "+", "?", "{":
                throw Untranslated(construct: "'\(scalar)' with nothing to repeat")
            case "^", "$":
                throw Untranslated(construct: "the anchor '\(scalar)'")
            case "]", "}":
                throw Untranslated(construct: "an unescaped '\(scalar)'")
            case "\0":
                throw Untranslated(construct: "a NUL character")
            default:
                return PostgresRegularExpression.literal(scalar)
            }
        }

        /// The character after a `\`: only ASCII punctuation, which ICU and an ARE both read as
        /// itself; letters and digits are classes, escapes and back-references.
        mutating func escaped() throws(Untranslated) -> Unicode.Scalar {
            guard let scalar = current else { throw Untranslated(construct: "a '\\' at the end") }
            guard scalar.isASCII, scalar.value > 0x20, scalar.value < 0x7F, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw Untranslated(construct: "'\\\(scalar)'")
            }
            index += 1
            return scalar
        }

        /// A bracket after its `[`: literal characters, `\` escapes and ranges.
        mutating func bracket() throws(Untranslated) -> String {
            var sql = "["
            if current == "^" {
                sql += "^"
                index += 1
            }
            var isEmpty = true
            while true {
                guard let scalar = current else { throw Untranslated(construct: "an unclosed '['") }
                if scalar == "]" {
                    guard !isEmpty else { throw Untranslated(construct: "an empty '[]'") }
                    index += 1
                    return sql + "]"
                }
                let low = try member()
                if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    let high = try member()
                    guard low.value <= high.value else { throw Untranslated(construct: "the reversed range '\(low)-\(high)'") }
                    sql += PostgresRegularExpression.literal(low) + "-" + PostgresRegularExpression.literal(high)
                } else {
                    sql += PostgresRegularExpression.literal(low)
                }
                isEmpty = false
            }
        }

        /// One literal character of a bracket. What ICU reads as a class, a nested set or a
        /// set operation (`[`, `&`, `-` outside a range, `^`, `:`, `\p`...) is refused.
        mutating func member() throws(Untranslated) -> Unicode.Scalar {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\\":
                return try escaped()
            case "[", "&", "-", "^", ":", "=", "$", "{", "}":
                throw Untranslated(construct: "an unescaped '\(scalar)' in a bracket")
            case "\0":
                throw Untranslated(construct: "a NUL character")
            default:
                return scalar
            }
        }

        /// A greedy quantifier after an atom, if any.
        mutating func quantifier() throws(Untranslated) -> String {
            guard let scalar = current else { return "" }
            var sql: String
            switch scalar {
            case "*", "+", "?":
                index += 1
                sql = String(scalar)
            case "{":
                index += 1
                let low = try number()
                var bound = "{\(low)"
                if current == "," {
                    index += 1
                    bound += ","
                    if current != "}" {
                        let high = try number()
                        guard low <= high else { throw Untranslated(construct: "the bound {\(low),\(high)}") }
                        bound += "\(high)"
                    }
                }
                guard current == "}" else { throw Untranslated(construct: "a '{' that is not a bound {m}, {m,} or {m,n}") }
                index += 1
                sql = bound + "}"
            default:
                return ""
            }
            if let next = current, ["*", "+", "?", "{"].contains(next) {
                throw Untranslated(construct: next == "?" || next == "+" ? "a lazy or possessive quantifier" : "a quantifier of a quantifier")
            }
            return sql
        }

        /// The digits of a bound, up to 255.
        mutating func number() throws(Untranslated) -> Int {
            var digits = ""
            while let scalar = current, ("0"..."9").contains(scalar), digits.count < 4 {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            guard let value = Int(digits), value <= 255 else { throw Untranslated(construct: "a bound that is not a number up to 255") }
            return value
        }
    }
}
