/// Reads query text into a `Query` or a `QueryPredicate`.
///
/// A recursive-descent parser over `QueryLexer` tokens, one token of lookahead. Precedence, from
/// loosest to tightest: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, then comparisons and parentheses.
/// Every failure is a `QueryError` naming what was expected and where; hostile input cannot
/// exhaust the stack, because nesting is limited to `maximumDepth` and statements to
/// `maximumLength` bytes.
///
/// The static functions parse a whole text. The instance API reads a statement piece by piece,
/// for the shell's own statements (`update MODEL where PREDICATE set ...`):
///
/// ```swift
/// var parser = try QueryParser(text)
/// let predicate = try parser.parsePredicate()
/// guard try parser.consumeWord("set") else { ... }
/// ```
package struct QueryParser: Sendable {
    /// The longest statement accepted, in UTF-8 bytes.
    package static let maximumLength = 1 << 20
    /// How deeply parentheses, `NOT`s and `SUBQUERY`s may nest.
    package static let maximumDepth = 100

    private var lexer: QueryLexer
    /// The lookahead: the next token not yet consumed.
    private var token: QueryToken
    /// The last token consumed, named in messages ("after '=='").
    private var previous: QueryToken?
    private var depth = 0
    /// The variables of the enclosing subqueries, innermost last.
    private var variables: [String] = []

    /// Prepares to parse `text`; throws if it is too long or its first token is malformed.
    package init(_ text: String) throws(QueryError) {
        let length = text.utf8.count
        guard length <= Self.maximumLength else {
            throw QueryError(
                .statementTooLong, "statement is \(length) bytes long; the limit is \(Self.maximumLength)", at: .start)
        }
        lexer = QueryLexer(text)
        token = try lexer.next()
    }

    /// Parses `text` as a whole query statement:
    /// `MODEL [where PREDICATE] [SORT(...)] [DISTINCT(...)] [OFFSET(N)] [LIMIT(N)]`.
    package static func parseQuery(_ text: String) throws(QueryError) -> Query {
        var parser = try QueryParser(text)
        let query = try parser.parseQuery()
        try parser.expectEnd()
        return query
    }

    /// Parses `text` as a whole predicate.
    package static func parsePredicate(_ text: String) throws(QueryError) -> QueryPredicate {
        var parser = try QueryParser(text)
        let predicate = try parser.parsePredicate()
        try parser.expectEnd(expecting: "AND, OR or the end of the statement")
        return predicate
    }

    // MARK: Incremental API

    /// The text being parsed.
    package var text: String { lexer.text }

    /// Where the next token starts.
    package var location: QuerySourceLocation { token.range.start }

    /// Whether every token has been consumed.
    package var isAtEnd: Bool { token.kind == .end }

    /// Consumes the next token if it is the word `word` (ASCII case-insensitive), as a keyword
    /// or a name. For statement words the query language does not reserve, such as `set`.
    package mutating func consumeWord(_ word: String) throws(QueryError) -> Bool {
        switch token.kind {
        case .identifier, .keyword:
            guard lexer.text(of: token.range).lowercased() == word.lowercased() else { return false }
            try advance()
            return true
        default:
            return false
        }
    }

    /// Throws unless every token has been consumed.
    package func expectEnd() throws(QueryError) {
        try expectEnd(expecting: "the end of the statement")
    }

    /// Parses a query statement and stops before the first token that cannot continue it.
    package mutating func parseQuery() throws(QueryError) -> Query {
        let model: QueryIdentifier
        switch token.kind {
        case .identifier, .keyword:
            model = identifier(token)
            try advance()
        default:
            throw unexpected("a model name")
        }
        var predicate: QueryPredicate?
        if token.keyword == .where {
            try advance()
            predicate = try parsePredicate()
        }
        var query = Query(model: model, predicate: predicate)
        if token.keyword == .group {
            try parseGroup(into: &query)
            if token.keyword == .select { try parseSelect(into: &query) }
            let expectation = query.select.isEmpty
                ? "SELECT, SORT, OFFSET, LIMIT or the end of the statement"
                : "SORT, OFFSET, LIMIT or the end of the statement"
            try parseClauses(into: &query, expectation: expectation)
            return query
        }
        try parseClauses(into: &query, expectation: predicate == nil
            ? "'where', \(Self.clauseList) or the end of the statement"
            : "AND, OR, \(Self.clauseList) or the end of the statement")
        if token.keyword == .select {
            try parseSelect(into: &query)
            if token.keyword != nil, Self.clauseKeywords.contains(lexer.text(of: token.range).uppercased()) {
                throw error(.unexpectedToken,
                            "\(lexer.text(of: token.range).uppercased()) cannot come here: SELECT comes last, after SORT, DISTINCT, OFFSET and LIMIT (under GROUP, right after GROUP(...))",
                            at: token.range.start)
            }
        }
        return query
    }

    /// Parses `text` as a whole statement: a query, or an aggregate statement
    /// (`sum MODEL.KEYPATH [where PREDICATE]`, likewise `avg`, `min`, `max`).
    package static func parseStatement(_ text: String) throws(QueryError) -> QueryStatement {
        var parser = try QueryParser(text)
        let statement = try parser.parseStatement()
        try parser.expectEnd()
        return statement
    }

    /// Parses a query or an aggregate statement. `sum` followed by a name and a dot is an
    /// aggregate statement, as is `count` followed by a name; otherwise `sum` or `count` is a
    /// model's name.
    package mutating func parseStatement() throws(QueryError) -> QueryStatement {
        if case .identifier = token.kind, let function = QueryAggregateStatement.words[lexer.text(of: token.range).lowercased()] {
            var ahead = self
            try ahead.advance()
            // `avg(Person.age)`: no model is followed by '('.
            if ahead.token.kind == .leftParen {
                let word = lexer.text(of: token.range)
                throw ahead.unexpected("MODEL.KEYPATH", hint: SQLHabit.functionModelPath.hint([.function: word]))
            }
            let namesPath: Bool
            switch ahead.token.kind {
            case .identifier: namesPath = true
            case .keyword(let keyword): namesPath = keyword.isContextual && keyword != .where
            default: namesPath = false
            }
            if namesPath {
                let namesModel = ahead.token.kind == .identifier
                try ahead.advance()
                if ahead.token.kind == .dot {
                    try advance()
                    return .aggregate(try parseAggregateStatement(function))
                }
                // `avg Car` left out the property: a query of a model named `avg` is never
                // followed by a name.
                if namesModel {
                    throw ahead.unexpected("'.' and a key path (\(lexer.text(of: token.range)) MODEL.KEYPATH)")
                }
            }
        }
        // `count MODEL [where P]`; a model named `count` is queried as `count where P`.
        if case .identifier = token.kind, lexer.text(of: token.range).lowercased() == "count" {
            var ahead = self
            try ahead.advance()
            if case .identifier = ahead.token.kind {
                try advance()
                let model = identifier(token)
                try advance()
                var predicate: QueryPredicate?
                if token.keyword == .where {
                    try advance()
                    predicate = try parsePredicate()
                }
                try expectEnd(expecting: predicate == nil ? "'where' or the end of the statement" : "AND, OR or the end of the statement")
                return .aggregate(QueryAggregateStatement(function: .count, model: model, keyPath: nil, predicate: predicate))
            }
        }
        return .query(try parseQuery())
    }

    private mutating func parseAggregateStatement(_ function: AggregateFunction) throws(QueryError) -> QueryAggregateStatement {
        let model = identifier(token)
        try advance()
        try expect(.dot, "'.' and a key path")
        switch token.kind {
        case .identifier, .keyword: break
        case .aggregate(let f): throw error(.invalidAggregate, "\(f) cannot appear here; write '\(String(function.rawValue.dropFirst())) \(model.name).PROPERTY'", at: token.range.start)
        default: throw unexpected("a property name")
        }
        let path = try parsePlainKeyPathRest(first: token)
        var predicate: QueryPredicate?
        if token.keyword == .where {
            try advance()
            predicate = try parsePredicate()
        }
        try expectEnd(expecting: predicate == nil ? "'where' or the end of the statement" : "AND, OR or the end of the statement")
        return QueryAggregateStatement(function: function, model: model, keyPath: path, predicate: predicate)
    }

    // MARK: Questions

    private mutating func parseGroup(into query: inout Query) throws(QueryError) {
        try advance()
        try expectOpening("GROUP")
        repeat {
            let keyPath = try parseKeyPath(expecting: "a key path", allowVariable: false)
            // A group's printed row is keyed by its key paths' names: each must be one column.
            guard !query.group.contains(keyPath) else {
                throw error(.duplicateName, "GROUP has '\(lexer.text(of: keyPath.range))' twice", at: keyPath.range.start)
            }
            query.group.append(keyPath)
        } while try consume(.comma)
        try expect(.rightParen, "',' or ')'")
    }

    private mutating func parseSelect(into query: inout Query) throws(QueryError) {
        try advance()
        try expectOpening("SELECT")
        repeat {
            let item = try parseSelectItem(allowsAlias: true, model: query.model.name)
            // Names key the columns of csv headers and JSON objects, and SORT finds items by them.
            guard !query.select.contains(where: { $0.name == item.name }) else {
                throw error(.duplicateName, "'\(item.name)' names two SELECT items; give one another name with AS",
                            at: item.alias?.range.start ?? item.range.start)
            }
            query.select.append(item)
        } while try consume(.comma)
        try expect(.rightParen, "',' or ')'")
    }

    /// `keyPath`, `list.@avg.price`, `@count`, `@sum.price`, each with `AS NAME` if allowed.
    /// `model`: the query's model, named in the hint for SQL's `count(*)` or `avg(age)`.
    private mutating func parseSelectItem(allowsAlias: Bool, model: String = "MODEL") throws(QueryError) -> QuerySelectItem {
        let start = token.range.start
        let kind: QuerySelectItem.Kind
        switch token.kind {
        case .aggregate(let function):
            guard [.count, .sum, .avg, .min, .max].contains(function) else {
                throw error(.invalidAggregate, "\(function) is not a group aggregate; use @count, @sum, @avg, @min or @max", at: start)
            }
            try advance()
            var property: QueryKeyPath?
            if token.kind == .dot {
                guard function.takesProperty else { throw error(.invalidAggregate, "\(function) takes no property", at: token.range.start) }
                try advance()
                switch token.kind {
                case .identifier, .keyword: property = try parsePlainKeyPathRest(first: token)
                default: throw unexpected("a property name")
                }
            } else if function != .count {
                throw error(.invalidAggregate, "\(function) needs a key path: \(function).PROPERTY", at: start)
            }
            kind = .groupAggregate(function, property)
        case .identifier:
            try advance()
            kind = Self.selectKind(try parseKeyPathTail(variable: nil, components: [identifier(previous!)], allowAggregate: true))
            let function = lexer.text(of: previous!.range).lowercased()
            if token.kind == .leftParen, previous!.range.start == start, function == "count" || QueryAggregateStatement.words[function] != nil {
                throw unexpected("',' or ')'", hint: Self.functionHint(function, bracketText(after: token), model: model))
            }
        case .keyword(let keyword) where keyword.isContextual:
            try advance()
            kind = Self.selectKind(try parseKeyPathTail(variable: nil, components: [identifier(previous!)], allowAggregate: true))
        default:
            throw unexpected("a key path or an aggregate")
        }
        let range = QuerySourceRange(start: start, end: previous?.range.end ?? start)
        let text = lexer.text(of: range)
        var alias: QueryIdentifier?
        if allowsAlias, try consumeWord(Self.aliasWord) {
            switch token.kind {
            case .identifier, .keyword:
                alias = identifier(token)
                try advance()
            default:
                throw unexpected("a name")
            }
        }
        return QuerySelectItem(kind, alias: alias, text: text, range: range)
    }

    private static func selectKind(_ expression: QueryExpression) -> QuerySelectItem.Kind {
        if case .aggregate(let aggregate) = expression.kind { return .listAggregate(aggregate) }
        return .keyPath(expression.keyPath ?? QueryKeyPath(components: []))
    }

    /// Parses a predicate and stops before the first token that cannot continue it.
    package mutating func parsePredicate() throws(QueryError) -> QueryPredicate {
        try parseOr()
    }

    /// Parses one value: a key path, literal, parameter, aggregate or subquery count.
    package mutating func parseExpression() throws(QueryError) -> QueryExpression {
        try parseExpression(expecting: "a value")
    }

    // MARK: Tokens

    private mutating func advance() throws(QueryError) {
        previous = token
        token = try lexer.next()
    }

    private mutating func consume(_ kind: QueryToken.Kind) throws(QueryError) -> Bool {
        guard token.kind == kind else { return false }
        try advance()
        return true
    }

    private mutating func expect(_ kind: QueryToken.Kind, _ expectation: @autoclosure () -> String) throws(QueryError) {
        guard token.kind == kind else { throw unexpected(expectation()) }
        try advance()
    }

    private func identifier(_ token: QueryToken) -> QueryIdentifier {
        QueryIdentifier(lexer.name(of: token), range: token.range)
    }

    private func expectEnd(expecting expectation: @autoclosure () -> String) throws(QueryError) {
        guard token.kind == .end else { throw unexpected(expectation()) }
    }

    /// Enters one level of nesting, refusing to go deeper than `maximumDepth`.
    private mutating func enter(at location: QuerySourceLocation) throws(QueryError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw QueryError(.nestingTooDeep, "nesting is deeper than \(Self.maximumDepth) levels", at: location, in: text)
        }
    }

    // MARK: Errors

    /// "expected X after 'Y', found Z", at the current token.
    /// `hint`, what does that here, follows after a colon.
    private func unexpected(_ expectation: String, namingPrevious: Bool = true, hint: String? = nil) -> QueryError {
        var message = "expected \(expectation)"
        if namingPrevious, let previous, previous.kind != .end {
            message += " after '\(QueryLexer.truncated(lexer.text(of: previous.range)))'"
        }
        message += ", found \(describe(token))"
        if let hint { message += ": " + hint }
        return QueryError(token.kind == .end ? .unexpectedEnd : .unexpectedToken, message, at: token.range.start, in: text)
    }

    /// `(` after the clause keyword `word`; SQL's habits (`GROUP BY age`, `ORDER BY`,
    /// `LIMIT 10`, `SELECT(*)`) are said as what does that here.
    private mutating func expectOpening(_ word: String) throws(QueryError) {
        guard token.kind == .leftParen else {
            var ahead = self
            let found = lexer.text(of: token.range)
            var hint: String?
            let lowered = found.lowercased()
            if word == "DISTINCT", lowered == "on" || lowered == "by" {
                // PostgreSQL's `DISTINCT ON (a, b)`, or `DISTINCT BY a` after GROUP BY's pattern.
                let path = (try? ahead.advance()) == nil || ahead.token.kind == .end ? "PATH"
                    : ahead.token.kind == .leftParen ? bracketText(after: ahead.token) ?? "PATH" : lexer.text(of: ahead.token.range)
                hint = (lowered == "on" ? SQLHabit.distinctOn : .distinctBy).hint([.path: path])
            } else if lowered == "by" {
                let path = (try? ahead.advance()) == nil || ahead.token.kind == .end ? "PATH" : lexer.text(of: ahead.token.range)
                hint = word == "GROUP" ? SQLHabit.groupBy.hint([.path: path]) : word == "SORT" ? SQLHabit.orderBy.hint([.path: path]) : nil
            } else if token.kind != .end {
                hint = SQLHabit.limitN.hint([.word: word, .argument: found])
            }
            throw unexpected("'('", hint: hint)
        }
        if word == "SELECT", let (star, blanks) = firstByte(after: token), star == UInt8(ascii: "*") {
            // Blanks are one byte and one column each: the `*` stands `blanks` past the `(`.
            let end = token.range.end
            throw error(.unexpectedToken, SQLHabit.selectStar.hint(),
                        at: QuerySourceLocation(offset: end.offset + blanks, line: end.line, column: end.column + blanks))
        }
        try advance()
    }

    /// The first byte after `token` that is no blank, and how many blanks stand before it;
    /// nil at the end of the text.
    private func firstByte(after token: QueryToken) -> (byte: UInt8, blanks: Int)? {
        let rest = lexer.text.utf8.dropFirst(token.range.end.offset)
        guard let index = rest.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        return (rest[index], rest.distance(from: rest.startIndex, to: index))
    }

    /// What SQL's `function(argument)` in a SELECT is here (`argument`: the text in its
    /// brackets), or nil where nothing here counts or adds up what it does: SQL's
    /// `sum(DISTINCT x)` and `avg(DISTINCT x)` take each value once, which no aggregate here does.
    private static func functionHint(_ function: String, _ argument: String?, model: String) -> String? {
        let words = argument?.split(separator: " ").map(String.init) ?? []
        let distinct = words.first?.lowercased() == "distinct"
        let paths = distinct ? Array(words.dropFirst()) : words
        let path = paths.count == 1 ? paths[0] : "PATH"
        if distinct {
            switch function {
            case "count": return SQLHabit.countDistinct.hint([.path: path, .model: model])
            // The smallest and largest of the distinct values are those of all the values.
            case "min", "max": return SQLHabit.functionPath.hint([.function: function, .path: path, .model: model])
            default: return nil
            }
        }
        // count(1) is SQL's other spelling of count(*).
        let countsRows = paths.count != 1 || Double(path)?.isFinite == true
        if path == "*" || function == "count" && countsRows { return SQLHabit.countStar.hint([.model: model]) }
        if function == "count" { return SQLHabit.countPath.hint([.path: path, .model: model]) }
        return SQLHabit.functionPath.hint([.function: function, .path: path, .model: model])
    }

    /// The text between `open` (a `(` token) and the next `)`, blanks trimmed, for a hint;
    /// nil when it is empty or no `)` follows.
    private func bracketText(after open: QueryToken) -> String? {
        let rest = lexer.text.utf8.dropFirst(open.range.end.offset)
        guard let close = rest.firstIndex(of: UInt8(ascii: ")")) else { return nil }
        let words = String(decoding: rest[..<close], as: UTF8.self).split { $0 == " " || $0 == "\t" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    private func describe(_ token: QueryToken) -> String {
        switch token.kind {
        case .end: "the end of the statement"
        case .string: "a string literal"
        default: "'\(QueryLexer.truncated(lexer.text(of: token.range)))'"
        }
    }

    private func error(_ kind: QueryError.Kind, _ message: String, at location: QuerySourceLocation) -> QueryError {
        QueryError(kind, message, at: location, in: text)
    }

    // MARK: Predicates

    private mutating func parseOr() throws(QueryError) -> QueryPredicate {
        try parseChain(isOperator: Self.isOr, operand: { (p: inout QueryParser) throws(QueryError) in try p.parseAnd() }, make: QueryPredicate.Kind.or)
    }

    private mutating func parseAnd() throws(QueryError) -> QueryPredicate {
        try parseChain(isOperator: Self.isAnd, operand: { (p: inout QueryParser) throws(QueryError) in try p.parseUnary() }, make: QueryPredicate.Kind.and)
    }

    /// `operand (OP operand)*` as one flat list, so a long chain cannot overflow the stack.
    private mutating func parseChain(isOperator: (QueryToken) -> Bool,
                                     operand: (inout QueryParser) throws(QueryError) -> QueryPredicate,
                                     make: ([QueryPredicate]) -> QueryPredicate.Kind) throws(QueryError) -> QueryPredicate {
        let first = try operand(&self)
        guard isOperator(token) else { return first }
        var operands = [first]
        while isOperator(token) {
            try advance()
            operands.append(try operand(&self))
        }
        return QueryPredicate(make(operands), range: first.range.union(operands[operands.count - 1].range))
    }

    private static func isOr(_ token: QueryToken) -> Bool { token.kind == .bars || token.keyword == .or }

    private static func isAnd(_ token: QueryToken) -> Bool { token.kind == .ampersands || token.keyword == .and }

    private mutating func parseUnary() throws(QueryError) -> QueryPredicate {
        guard token.kind == .bang || token.keyword == .not else { return try parsePrimary() }
        let start = token.range.start
        try advance()
        try enter(at: start)
        defer { depth -= 1 }
        let operand = try parseUnary()
        return QueryPredicate(.not(operand), range: QuerySourceRange(start: start, end: operand.range.end))
    }

    private mutating func parsePrimary() throws(QueryError) -> QueryPredicate {
        switch token.kind {
        case .leftParen:
            let open = token.range.start
            try advance()
            try enter(at: open)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard token.kind == .rightParen else {
                throw unexpected("')' to close the '(' at \(open)", namingPrevious: false)
            }
            try advance()
            return inner
        case .keyword(.truePredicate), .keyword(.falsePredicate):
            let predicate = QueryPredicate(.constant(token.keyword == .truePredicate), range: token.range)
            try advance()
            return predicate
        case .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.noneOf):
            return try parseComparison()
        default:
            guard startsExpression(token) else { throw unexpected("a predicate") }
            return try parseComparison()
        }
    }

    private func startsExpression(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .identifier, .integer, .double, .string, .parameter, .variable, .leftBrace, .aggregate: true
        case .keyword(let keyword):
            keyword.isContextual || [.true, .false, .yes, .no, .nil, .null, .subquery].contains(keyword)
        default: false
        }
    }

    private mutating func parseComparison() throws(QueryError) -> QueryPredicate {
        let start = token.range.start
        var quantifier: Quantifier?
        switch token.keyword {
        case .any?, .some?: quantifier = .any
        case .all?: quantifier = .all
        case .noneOf?: quantifier = .noneOf
        default: break
        }
        if let quantifier {
            try advance()
            let left = try parseExpression(expecting: "a key path")
            guard left.keyPath != nil else {
                throw error(.invalidQuantifier, "\(quantifier) applies to a key path, not to \(Self.noun(left))", at: start)
            }
            return try parseComparisonRest(quantifier: quantifier, left: left, start: start)
        }
        let left = try parseExpression(expecting: "a predicate")
        return try parseComparisonRest(quantifier: nil, left: left, start: start)
    }

    private static func noun(_ expression: QueryExpression) -> String {
        switch expression.kind {
        case .keyPath: "a key path"
        case .literal: "a literal"
        case .parameter: "a parameter"
        case .aggregate: "an aggregate"
        case .subqueryCount: "a subquery"
        }
    }

    private mutating func parseComparisonRest(
        quantifier: Quantifier?, left: QueryExpression, start: QuerySourceLocation
    ) throws(QueryError) -> QueryPredicate {
        let op: ComparisonOperator
        switch token.kind {
        case .equal: op = .equal
        case .notEqual: op = .notEqual
        case .less: op = .lessThan
        case .lessOrEqual: op = .lessThanOrEqual
        case .greater: op = .greaterThan
        case .greaterOrEqual: op = .greaterThanOrEqual
        case .keyword(.beginsWith): op = .beginsWith
        case .keyword(.endsWith): op = .endsWith
        case .keyword(.contains): op = .contains
        case .keyword(.like): op = .like
        case .keyword(.matches): op = .matches
        case .keyword(.in): op = .in
        case .keyword(.between):
            return try parseBetween(quantifier: quantifier, value: left, start: start)
        default:
            throw unexpected("a comparison operator")
        }
        var operatorRange = token.range
        try advance()
        var options: StringComparisonOptions = []
        if case .modifier(let modifier) = token.kind {
            guard op.acceptsStringOptions else {
                throw error(
                    .invalidModifier,
                    "'\(op)' takes no [c] or [d] modifier (strings order by Unicode scalar values)",
                    at: token.range.start)
            }
            options = modifier
            operatorRange = operatorRange.union(token.range)
            try advance()
        }
        let right = try parseExpression(expecting: "a value")
        let comparison = QueryPredicate.Comparison(
            quantifier: quantifier, left, op, options: options, right, operatorRange: operatorRange)
        return QueryPredicate(.comparison(comparison), range: QuerySourceRange(start: start, end: right.range.end))
    }

    private mutating func parseBetween(
        quantifier: Quantifier?, value: QueryExpression, start: QuerySourceLocation
    ) throws(QueryError) -> QueryPredicate {
        try advance()
        if case .modifier = token.kind {
            throw error(.invalidModifier, "'BETWEEN' takes no [c] or [d] modifier", at: token.range.start)
        }
        try expect(.leftBrace, "'{' (BETWEEN takes {lower, upper})")
        let lower = try parseBound(expecting: "a lower bound")
        try expect(.comma, "',' and an upper bound")
        let upper = try parseBound(expecting: "an upper bound")
        try expect(.rightBrace, "'}' after the upper bound")
        let between = QueryPredicate.Between(quantifier: quantifier, value, lower: lower, upper: upper)
        return QueryPredicate(.between(between), range: QuerySourceRange(start: start, end: previous?.range.end ?? upper.range.end))
    }

    private mutating func parseBound(expecting expectation: String) throws(QueryError) -> QueryExpression {
        guard token.kind != .leftBrace else { throw unexpected(expectation) }
        return try parseExpression(expecting: expectation)
    }

    // MARK: Expressions

    private mutating func parseExpression(expecting expectation: String) throws(QueryError) -> QueryExpression {
        let current = token
        let literal: QueryExpression.Literal
        switch current.kind {
        case .integer(let value): literal = .number(String(value))
        case .double: literal = .number(lexer.text(of: current.range))
        case .string(let value): literal = .string(value)
        case .keyword(.true), .keyword(.yes): literal = .bool(true)
        case .keyword(.false), .keyword(.no): literal = .bool(false)
        case .keyword(.nil), .keyword(.null): literal = .null
        case .parameter(let index):
            try advance()
            return QueryExpression(.parameter(index), range: current.range)
        case .leftBrace:
            return try parseList()
        case .variable:
            let variable = identifier(current)
            guard variables.contains(variable.name) else {
                throw error(.unknownVariable, "unknown variable '$\(variable.name)'; variables are declared by SUBQUERY", at: current.range.start)
            }
            try advance()
            return try parseKeyPathTail(variable: variable, components: [], allowAggregate: true)
        case .identifier:
            try advance()
            return try parseKeyPathTail(variable: nil, components: [identifier(current)], allowAggregate: true)
        case .keyword(let keyword) where keyword.isContextual:
            try advance()
            return try parseKeyPathTail(variable: nil, components: [identifier(current)], allowAggregate: true)
        case .keyword(.subquery):
            return try parseSubquery()
        case .aggregate(let function):
            throw error(.invalidAggregate, "\(function) must follow a key path (list.\(function))", at: current.range.start)
        default:
            throw unexpected(expectation)
        }
        try advance()
        return QueryExpression(.literal(literal), range: current.range)
    }

    /// Reads `.name`s (and at most one `.@aggregate[.property]`) after the first component.
    private mutating func parseKeyPathTail(
        variable: QueryIdentifier?, components: [QueryIdentifier], allowAggregate: Bool
    ) throws(QueryError) -> QueryExpression {
        var path = QueryKeyPath(variable: variable, components: components)
        while token.kind == .dot {
            try advance()
            switch token.kind {
            case .identifier, .keyword:
                path.components.append(identifier(token))
                try advance()
            case .aggregate(let function):
                guard allowAggregate else {
                    throw error(.invalidAggregate, "\(function) cannot appear here", at: token.range.start)
                }
                let functionRange = token.range
                try advance()
                var property: QueryKeyPath?
                if token.kind == .dot {
                    guard function.takesProperty else {
                        throw error(.invalidAggregate, "\(function) takes no property", at: token.range.start)
                    }
                    try advance()
                    switch token.kind {
                    case .identifier, .keyword: break
                    default: throw unexpected("a property name")
                    }
                    property = try parsePlainKeyPathRest(first: token)
                }
                let aggregate = QueryExpression.Aggregate(collection: path, function: function, property: property)
                let end = property?.range.end ?? functionRange.end
                return QueryExpression(.aggregate(aggregate), range: QuerySourceRange(start: path.range.start, end: end))
            default:
                throw unexpected("a property name")
            }
        }
        return QueryExpression(.keyPath(path), range: path.range)
    }

    /// Reads `first(.name)*`, with `first` the current token (a name), no aggregates.
    private mutating func parsePlainKeyPathRest(first: QueryToken) throws(QueryError) -> QueryKeyPath {
        var path = QueryKeyPath(components: [identifier(first)])
        try advance()
        while token.kind == .dot {
            try advance()
            switch token.kind {
            case .identifier, .keyword:
                path.components.append(identifier(token))
                try advance()
            case .aggregate(let function):
                throw error(.invalidAggregate, "\(function) cannot appear here", at: token.range.start)
            default:
                throw unexpected("a property name")
            }
        }
        return path
    }

    /// A key path for `SORT`, `DISTINCT` or a subquery's collection: names only, optionally from
    /// a variable.
    private mutating func parseKeyPath(expecting expectation: String, allowVariable: Bool) throws(QueryError) -> QueryKeyPath {
        switch token.kind {
        case .identifier:
            return try parsePlainKeyPathRest(first: token)
        case .keyword(let keyword) where keyword.isContextual:
            return try parsePlainKeyPathRest(first: token)
        case .variable where allowVariable:
            let variable = identifier(token)
            guard variables.contains(variable.name) else {
                throw error(.unknownVariable, "unknown variable '$\(variable.name)'; variables are declared by SUBQUERY", at: token.range.start)
            }
            try advance()
            let tail = try parseKeyPathTail(variable: variable, components: [], allowAggregate: false)
            return tail.keyPath ?? QueryKeyPath(variable: variable, components: [])
        default:
            throw unexpected(expectation)
        }
    }

    private mutating func parseList() throws(QueryError) -> QueryExpression {
        let start = token.range.start
        try advance()
        var elements: [QueryExpression] = []
        if token.kind != .rightBrace {
            repeat {
                // Checked before descending, so that `{{{{...` cannot recurse.
                guard token.kind != .leftBrace else {
                    throw error(.unexpectedToken, "list literals do not nest", at: token.range.start)
                }
                let element = try parseExpression(expecting: "a value")
                guard element.isConstant else {
                    throw error(.unexpectedToken, "a list literal holds only literals and parameters", at: element.range.start)
                }
                elements.append(element)
            } while try consume(.comma)
        }
        try expect(.rightBrace, "',' or '}'")
        return QueryExpression(.literal(.list(elements)), range: QuerySourceRange(start: start, end: previous?.range.end ?? start))
    }

    private mutating func parseSubquery() throws(QueryError) -> QueryExpression {
        let start = token.range.start
        try advance()
        try expect(.leftParen, "'(' after SUBQUERY")
        let collection = try parseKeyPath(expecting: "the key path of a list", allowVariable: true)
        try expect(.comma, "',' and a variable")
        guard case .variable = token.kind else { throw unexpected("a variable such as $x") }
        let variable = identifier(token)
        guard !variables.contains(variable.name) else {
            throw error(.unknownVariable, "variable '$\(variable.name)' is already declared by an enclosing SUBQUERY", at: token.range.start)
        }
        try advance()
        try expect(.comma, "',' and a predicate")
        try enter(at: start)
        defer { depth -= 1 }
        variables.append(variable.name)
        let predicate = try parseOr()
        variables.removeLast()
        try expect(.rightParen, "')' to close SUBQUERY")
        guard token.kind == .dot else { throw unexpected("'.@count' (a SUBQUERY is counted)") }
        try advance()
        guard case .aggregate(.count) = token.kind else { throw unexpected("'@count' (a SUBQUERY is counted)") }
        let end = token.range.end
        try advance()
        let subquery = QueryExpression.Subquery(collection: collection, variable: variable, predicate: predicate)
        return QueryExpression(.subqueryCount(subquery), range: QuerySourceRange(start: start, end: end))
    }

    // MARK: Clauses

    /// The clauses after a query's predicate, in the order they must appear. The shell finds
    /// where a query ends by them.
    package static let clauseKeywords = ["GROUP", "SORT", "DISTINCT", "OFFSET", "LIMIT", "SELECT"]

    /// The word that names a SELECT item (`city AS town`): not reserved, so it stays usable
    /// as a property name. The shell offers it after an item.
    package static let aliasWord = "AS"

    /// `SORT, DISTINCT, OFFSET, LIMIT`, for messages.
    private static let clauseList = clauseKeywords.joined(separator: ", ")

    /// `expectation` is built only for an error: its list of clauses is joined with the standard
    /// library's unspecialized `joined(separator:)`, whose first call has the runtime scan the
    /// binary's conformance records (a tenth of a one-shot page's instructions).
    private mutating func parseClauses(into query: inout Query, expectation: @autoclosure () -> String) throws(QueryError) {
        var stage = 0
        while true {
            let rank: Int
            switch token.keyword {
            case .sort?: rank = 1
            case .distinct?: rank = 2
            case .offset?: rank = 3
            case .limit?: rank = 4
            case .select? where query.group.isEmpty: return
            case .select?:
                throw error(.unexpectedToken, "SELECT cannot come here: under GROUP it comes right after GROUP(...), before SORT, OFFSET and LIMIT",
                            at: token.range.start)
            default:
                if token.kind == .identifier, lexer.text(of: token.range).lowercased() == "order" {
                    var ahead = self
                    if (try? ahead.advance()) != nil, ahead.token.kind == .identifier, lexer.text(of: ahead.token.range).lowercased() == "by" {
                        let path = (try? ahead.advance()) == nil || ahead.token.kind == .end ? "PATH" : lexer.text(of: ahead.token.range)
                        throw unexpected(expectation(), hint: SQLHabit.orderBy.hint([.path: path]))
                    }
                }
                return try expectEnd(expecting: expectation())
            }
            if rank == 2 && !query.group.isEmpty {
                throw error(.unexpectedToken, "DISTINCT does not apply to groups: each group is already distinct", at: token.range.start)
            }
            let word = lexer.text(of: token.range).uppercased()
            guard rank > stage else {
                throw error(
                    .unexpectedToken,
                    "\(word) cannot come here: \(query.group.isEmpty ? "SORT, DISTINCT, OFFSET and LIMIT" : "SORT, OFFSET and LIMIT") appear at most once each, in that order",
                    at: token.range.start)
            }
            stage = rank
            try advance()
            try expectOpening(word)
            switch rank {
            case 1:
                repeat {
                    let keyPath = try parseSortKey()
                    var ascending = true
                    switch token.keyword {
                    case .asc?, .ascending?: try advance()
                    case .desc?, .descending?: ascending = false; try advance()
                    default: break
                    }
                    query.sort.append(QuerySortDescriptor(keyPath, ascending: ascending))
                } while try consume(.comma)
                try expect(.rightParen, "ASC, DESC, ',' or ')'")
            case 2:
                repeat {
                    do {
                        query.distinct.append(try parseKeyPath(expecting: "a key path", allowVariable: false))
                    } catch where error.kind == .invalidAggregate {
                        throw self.error(.invalidAggregate, "DISTINCT takes key paths of '\(query.model.name)', not aggregates nor SELECT items' names: its objects are told apart by their own values",
                                         at: error.location)
                    }
                } while try consume(.comma)
                try expect(.rightParen, "',' or ')'")
            case 3:
                query.offset = try parseCount(word, .invalidOffset)
            default:
                query.limit = try parseCount(word, .invalidLimit)
            }
        }
    }

    /// The count of `OFFSET(N)` or `LIMIT(N)`, and its closing parenthesis.
    private mutating func parseCount(_ word: String, _ kind: QueryError.Kind) throws(QueryError) -> Int {
        guard case .integer(let value) = token.kind, value >= 0, value <= Int64(Int.max) else {
            if case .parameter = token.kind {
                throw error(kind, "\(word) takes an integer written in the statement, not a parameter", at: token.range.start)
            }
            throw error(kind, "\(word) takes an integer from 0 to \(Int.max)", at: token.range.start)
        }
        try advance()
        try expect(.rightParen, "')'")
        return Int(value)
    }

    /// A SORT key: a key path, or an aggregate as a SELECT item writes it (a group aggregate
    /// such as `@count` or `@avg.mpg`, a list aggregate such as `dogs.@count`), kept as a
    /// one-name path holding its text for the binder to match against the SELECT items.
    private mutating func parseSortKey() throws(QueryError) -> QueryKeyPath {
        switch token.kind {
        case .aggregate, .identifier:
            break
        case .keyword(let keyword) where keyword.isContextual:
            break
        default:
            return try parseKeyPath(expecting: "a key path to sort by", allowVariable: false)
        }
        let item = try parseSelectItem(allowsAlias: false)
        if case .keyPath(let path) = item.kind { return path }
        return QueryKeyPath(components: [QueryIdentifier(item.text, range: item.range)])
    }
}
