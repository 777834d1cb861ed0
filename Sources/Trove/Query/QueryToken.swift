/// A lexical token of the query language, with where it stands in the statement.
///
/// Tokens carry decoded values for literals but not for names: an identifier's or variable's
/// text is sliced from the source only when the parser keeps it, so that lexing allocates
/// nothing but string literals.
package struct QueryToken: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// A name: a model, property or key path component. `#name` escapes a reserved word; the
        /// range then includes the `#`.
        case identifier
        /// A reserved or contextual word, matched case-insensitively.
        case keyword(QueryKeyword)
        case integer(Int64)
        /// Any other number: fractional, with an exponent, or an integer beyond 64 bits. The
        /// parser keeps its text, so that a decimal reads every digit.
        case double(Double)
        /// A quoted string, escapes decoded.
        case string(String)
        /// `$0`, `$1`, ...: a value bound from outside the query text.
        case parameter(Int)
        /// `$name`: a subquery variable; the range includes the `$`.
        case variable
        /// `@count`, `@sum`, ...
        case aggregate(AggregateFunction)
        /// `[c]`, `[d]` or `[cd]`.
        case modifier(StringComparisonOptions)
        /// `==` or `=`.
        case equal
        /// `!=` or `<>`.
        case notEqual
        case less
        /// `<=` or `=<`.
        case lessOrEqual
        case greater
        /// `>=` or `=>`.
        case greaterOrEqual
        /// `&&`.
        case ampersands
        /// `||`.
        case bars
        /// `!`.
        case bang
        case leftParen
        case rightParen
        case leftBrace
        case rightBrace
        case comma
        case dot
        /// The end of the text.
        case end
    }

    package var kind: Kind
    package var range: QuerySourceRange

    package init(kind: Kind, range: QuerySourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The keyword, when the token is one.
    package var keyword: QueryKeyword? {
        if case .keyword(let keyword) = kind { keyword } else { nil }
    }
}

/// The words of the query language. They are matched case-insensitively.
///
/// Most are reserved: to name a property `in` or `any`, escape it as `#in`. The contextual ones
/// (`where`, `SORT`, `DISTINCT`, `OFFSET`, `LIMIT`, `ASC`, `DESC`, ...) only act as keywords where the
/// grammar expects them, so they remain usable as plain property names.
package enum QueryKeyword: String, Sendable, Hashable, CaseIterable {
    case and, or, not
    case between, `in`, beginsWith = "beginswith", endsWith = "endswith", contains, like, matches
    case any, some, all
    /// `NONE` (not named `none`, which would read as `Optional.none`).
    case noneOf = "none"
    case subquery
    case truePredicate = "truepredicate", falsePredicate = "falsepredicate"
    case `true`, `false`, yes, no
    case `nil`, null
    case `where`, sort, distinct, offset, limit, group, select
    case asc, desc, ascending, descending

    /// Whether the word only acts as a keyword in some places and otherwise is a name.
    package var isContextual: Bool {
        switch self {
        case .where, .sort, .distinct, .offset, .limit, .group, .select, .asc, .desc, .ascending, .descending: true
        default: false
        }
    }

    /// The keyword spelled for the word `word`, compared ASCII-case-insensitively.
    package init?<Bytes: Collection<UInt8>>(utf8 word: Bytes) {
        // Pack the lowercased word into two integers: no allocation per identifier.
        guard let key = PackedWord(word) else { return nil }
        guard let keyword = QueryKeyword.table[key] else { return nil }
        self = keyword
    }

    private static let table: [PackedWord: QueryKeyword] = {
        // Sized at once: every one-shot statement builds it, and growing it rehashes six times.
        var table = [PackedWord: QueryKeyword](minimumCapacity: QueryKeyword.allCases.count)
        for keyword in QueryKeyword.allCases {
            table[PackedWord(keyword.rawValue.utf8)!] = keyword
        }
        return table
    }()
}

/// Up to 16 lowercased ASCII bytes packed in two words, used as an allocation-free key.
private struct PackedWord: Hashable {
    var low: UInt64 = 0
    var high: UInt64 = 0

    init?<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        var index = 0
        for byte in bytes {
            guard index < 16, byte < 0x80 else { return nil }
            let lower = UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            if index < 8 { low |= lower << (8 * UInt64(index)) } else { high |= lower << (8 * UInt64(index - 8)) }
            index += 1
        }
    }
}
