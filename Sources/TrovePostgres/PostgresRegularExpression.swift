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
///
/// `MATCHES[c]` is translated for patterns whose literal characters and bracket members are
/// ASCII, by writing out what ICU's case-insensitive matching accepts rather than asking
/// PostgreSQL's (which lowers and uppers one character at a time, by the collation's rules).
/// ICU matches a run of literal characters by full case folding of the subject (`ss` matches
/// `ß`, `ẞ` and `ſS`; `fi` matches `ﬁ`), a single character (one before a quantifier, or alone)
/// by simple case folding (`s` matches `S` and `ſ`, not `ß`; `k` matches `K`, U+212A), and a
/// bracket by its case closure, taken before a `^` negates it. The translation writes each
/// character as the bracket of what folds to it, and each run as the alternatives of how
/// the subject's characters can fold into it.
enum PostgresRegularExpression {
    /// Why a pattern is not translated, as the refusal says it: by default, that a construct
    /// is ICU's.
    struct Untranslated: Error {
        var reason: String

        init(construct: String) { reason = "\(construct) is ICU's, not PostgreSQL's" }
        init(reason: String) { self.reason = reason }
    }

    /// ICU's line terminators, which its `.` does not match.
    private static let lineTerminators: [Unicode.Scalar] = ["\u{0A}", "\u{0B}", "\u{0C}", "\u{0D}", "\u{85}", "\u{2028}", "\u{2029}"]

    /// The ARE matching the whole of a string exactly when ICU's `pattern` does, with ICU's
    /// `UREGEX_CASE_INSENSITIVE` when `caseInsensitive`.
    static func translate(_ pattern: String, caseInsensitive: Bool = false) throws(Untranslated) -> String {
        var parser = Parser(scalars: Array(pattern.unicodeScalars), caseInsensitive: caseInsensitive)
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

    /// The characters other than themselves whose simple case folding is an ASCII letter:
    /// K (U+212A KELVIN SIGN) folds to `k`, ſ (U+017F LONG S) to `s`.
    private static let simpleFoldsToASCII: [Unicode.Scalar: [Unicode.Scalar]] = ["k": ["\u{212A}"], "s": ["\u{17F}"]]

    /// The characters whose full case folding is more than one character, all of them ASCII:
    /// the folding, and the characters folding to it.
    private static let fullFoldsToASCII: [(folding: [Unicode.Scalar], characters: [Unicode.Scalar])] = [
        (["s", "s"], ["\u{DF}", "\u{1E9E}"]), (["f", "f"], ["\u{FB00}"]), (["f", "i"], ["\u{FB01}"]), (["f", "l"], ["\u{FB02}"]),
        (["f", "f", "i"], ["\u{FB03}"]), (["f", "f", "l"], ["\u{FB04}"]), (["s", "t"], ["\u{FB05}", "\u{FB06}"]),
    ]

    /// How long a translation of a run of literal characters under `[c]` may grow: a long run
    /// of `s` and `f` has many ways to be folded into.
    private static let runLimit = 4_096

    /// The characters whose simple case folding is the folding of ASCII `scalar`: its case
    /// closure, as ICU's single-character match and brackets take it.
    static func closure(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let lower = scalar.properties.lowercaseMapping.unicodeScalars.first!
        guard ("a"..."z").contains(lower) else { return [scalar] }
        let upper = Unicode.Scalar(lower.value - 0x20)!
        return [lower, upper] + (simpleFoldsToASCII[lower] ?? [])
    }

    /// A bracket of `scalars` (or the one character alone).
    static func bracket(_ scalars: [Unicode.Scalar]) -> String {
        scalars.count == 1 ? literal(scalars[0]) : "[" + scalars.map(literal).joined() + "]"
    }

    /// The ARE matching the texts whose full case folding is `run` (folded ASCII), from
    /// `start`: at each place, a character folding to the next one, or one folding to the next
    /// two or three.
    static func foldedRun(_ run: [Unicode.Scalar], from start: Int = 0) throws(Untranslated) -> String {
        var sql = ""
        var index = start
        while index < run.count {
            let expansions = fullFoldsToASCII.filter { run[index...].starts(with: $0.folding) }
            guard !expansions.isEmpty else {
                sql += bracket(closure(run[index]))
                index += 1
                continue
            }
            var branches = [bracket(closure(run[index])) + (try foldedRun(run, from: index + 1))]
            for expansion in expansions {
                branches.append(bracket(expansion.characters) + (try foldedRun(run, from: index + expansion.folding.count)))
            }
            sql += "(?:" + branches.joined(separator: "|") + ")"
            guard sql.utf8.count <= runLimit else {
                throw Untranslated(reason: "the run of literal characters '\(String(String.UnicodeScalarView(run)))' has too many case foldings to write out")
            }
            return sql
        }
        return sql
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var caseInsensitive = false
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
            // Under [c], the literal characters not yet written: ICU folds them as one run.
            var run: [Unicode.Scalar] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                if caseInsensitive, let character = try literalCharacter() {
                    if let next = current, ["*", "+", "?", "{"].contains(next) {
                        // A quantifier takes the last character alone, out of the run.
                        sql += try PostgresRegularExpression.foldedRun(run)
                        run = []
                        sql += PostgresRegularExpression.bracket(PostgresRegularExpression.closure(character))
                        sql += try quantifier()
                    } else {
                        run.append(character)
                    }
                    continue
                }
                sql += try PostgresRegularExpression.foldedRun(run)
                run = []
                sql += try atom()
                sql += try quantifier()
            }
            return sql + (try PostgresRegularExpression.foldedRun(run))
        }

        /// The literal character at `index` (a plain one, or `\` and punctuation), taken; nil,
        /// taking nothing, for anything else. Under [c] it must be ASCII.
        mutating func literalCharacter() throws(Untranslated) -> Unicode.Scalar? {
            guard let scalar = current else { return nil }
            let character: Unicode.Scalar
            if scalar == "\\" {
                index += 1
                character = try escaped()
            } else if "().[*+?{^$]}|\0".unicodeScalars.contains(scalar) {
                return nil
            } else {
                index += 1
                character = scalar
            }
            guard character.isASCII else {
                throw Untranslated(reason: Self.nonASCII(character))
            }
            return (PostgresRegularExpression.closure(character).first ?? character)
        }

        /// Why a pattern with a non-ASCII character is not translated under [c].
        static func nonASCII(_ scalar: Unicode.Scalar) -> String {
            "ICU's case folding of the non-ASCII character '\(scalar)' is not written out in PostgreSQL's syntax"
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
                var high = low
                if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    high = try member()
                    guard low.value <= high.value else { throw Untranslated(construct: "the reversed range '\(low)-\(high)'") }
                }
                if caseInsensitive {
                    // The range's case closure, which ICU takes before a `^` negates it.
                    guard high.isASCII else { throw Untranslated(reason: Self.nonASCII(high)) }
                    sql += PostgresRegularExpression.literal(low) + (high == low ? "" : "-" + PostgresRegularExpression.literal(high))
                    for value in low.value...high.value {
                        for other in PostgresRegularExpression.closure(Unicode.Scalar(value)!) where !(low...high).contains(other) {
                            sql += PostgresRegularExpression.literal(other)
                        }
                    }
                } else if high == low {
                    sql += PostgresRegularExpression.literal(low)
                } else {
                    sql += PostgresRegularExpression.literal(low) + "-" + PostgresRegularExpression.literal(high)
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
