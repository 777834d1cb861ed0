/// The canonical text of query ASTs.
///
/// Each node's `description` is query text that parses back to an equal node:
/// keywords in upper case, strings in double quotes, `AND`/`OR` operands parenthesized only
/// where precedence or nesting requires it, reserved words used as names escaped with `#`.
/// `explain` and error messages show queries this way.
enum QueryPrinter {
    static func write(_ predicate: QueryPredicate, to out: inout String) {
        switch predicate.kind {
        case .constant(let value):
            out += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            if let quantifier = comparison.quantifier { out += quantifier.rawValue + " " }
            write(comparison.left, to: &out)
            out += " " + comparison.op.rawValue + comparison.options.description + " "
            write(comparison.right, to: &out)
        case .between(let between):
            if let quantifier = between.quantifier { out += quantifier.rawValue + " " }
            write(between.value, to: &out)
            out += " BETWEEN {"
            write(between.lower, to: &out)
            out += ", "
            write(between.upper, to: &out)
            out += "}"
        case .not(let operand):
            out += "NOT "
            writeOperand(operand, parenthesized: operand.isJunction, to: &out)
        case .and(let operands):
            for (i, operand) in operands.enumerated() {
                if i > 0 { out += " AND " }
                writeOperand(operand, parenthesized: operand.isJunction, to: &out)
            }
        case .or(let operands):
            for (i, operand) in operands.enumerated() {
                if i > 0 { out += " OR " }
                // AND binds tighter, so only a nested OR needs parentheses to stay nested.
                writeOperand(operand, parenthesized: operand.isOr, to: &out)
            }
        }
    }

    private static func writeOperand(_ predicate: QueryPredicate, parenthesized: Bool, to out: inout String) {
        if parenthesized { out += "(" }
        write(predicate, to: &out)
        if parenthesized { out += ")" }
    }

    static func write(_ expression: QueryExpression, to out: inout String) {
        switch expression.kind {
        case .keyPath(let path):
            write(path, to: &out)
        case .literal(let literal):
            write(literal, to: &out)
        case .parameter(let index):
            out += "$\(index)"
        case .aggregate(let aggregate):
            write(aggregate.collection, to: &out)
            out += "." + aggregate.function.rawValue
            if let property = aggregate.property {
                out += "."
                write(property, to: &out)
            }
        case .subqueryCount(let subquery):
            out += "SUBQUERY("
            write(subquery.collection, to: &out)
            out += ", $" + subquery.variable.name + ", "
            write(subquery.predicate, to: &out)
            out += ").@count"
        }
    }

    static func write(_ literal: QueryExpression.Literal, to out: inout String) {
        switch literal {
        case .number(let text): out += text
        case .string(let value): writeQuoted(value, to: &out)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "nil"
        case .list(let elements):
            out += "{"
            for (i, element) in elements.enumerated() {
                if i > 0 { out += ", " }
                write(element, to: &out)
            }
            out += "}"
        }
    }

    static func write(_ path: QueryKeyPath, to out: inout String) {
        var first = true
        if let variable = path.variable {
            out += "$" + variable.name
            first = false
        }
        for component in path.components {
            if !first { out += "." }
            first = false
            if QueryKeyword(utf8: component.name.utf8).map({ !$0.isContextual }) ?? false { out += "#" }
            out += component.name
        }
    }

    /// A double-quoted string literal with the escapes the lexer reads back.
    static func writeQuoted(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `CLAUSE(a, b.c, ...)`: the key-path lists of GROUP and DISTINCT.
    private static func write(_ clause: String, _ paths: [QueryKeyPath], to out: inout String) {
        out += clause + "("
        for (i, path) in paths.enumerated() {
            if i > 0 { out += ", " }
            write(path, to: &out)
        }
        out += ")"
    }

    static func write(_ query: Query, to out: inout String) {
        out += query.model.name
        if let predicate = query.predicate {
            out += " where "
            write(predicate, to: &out)
        }
        if !query.group.isEmpty {
            write(" GROUP", query.group, to: &out)
            writeSelect(query.select, to: &out)
        }
        if !query.sort.isEmpty {
            out += " SORT("
            for (i, descriptor) in query.sort.enumerated() {
                if i > 0 { out += ", " }
                write(descriptor.keyPath, to: &out)
                out += descriptor.ascending ? " ASC" : " DESC"
            }
            out += ")"
        }
        if !query.distinct.isEmpty { write(" DISTINCT", query.distinct, to: &out) }
        if query.offset > 0 { out += " OFFSET(\(query.offset))" }
        if let limit = query.limit { out += " LIMIT(\(limit))" }
        if query.group.isEmpty { writeSelect(query.select, to: &out) }
    }

    private static func writeSelect(_ items: [QuerySelectItem], to out: inout String) {
        guard !items.isEmpty else { return }
        out += " SELECT("
        for (i, item) in items.enumerated() {
            if i > 0 { out += ", " }
            out += item.text
            if let alias = item.alias { out += " AS " + alias.name }
        }
        out += ")"
    }
}

extension QueryPredicate {
    fileprivate var isJunction: Bool {
        switch kind {
        case .and, .or: true
        default: false
        }
    }

    fileprivate var isOr: Bool {
        if case .or = kind { true } else { false }
    }

    /// The canonical query text of the predicate.
    package var description: String {
        var out = ""
        QueryPrinter.write(self, to: &out)
        return out
    }
}

extension QueryExpression {
    /// The canonical query text of the expression.
    package var description: String {
        var out = ""
        QueryPrinter.write(self, to: &out)
        return out
    }
}

extension QueryKeyPath {
    /// The path as query text: `owner.name`, `$x.name`, `#in` for a reserved word.
    public var description: String {
        var out = ""
        QueryPrinter.write(self, to: &out)
        return out
    }
}

extension Query {
    /// The canonical query text: `Model where ... SORT(...) DISTINCT(...) OFFSET(n) LIMIT(n)`.
    package var description: String {
        var out = ""
        QueryPrinter.write(self, to: &out)
        return out
    }
}

extension QuerySortDescriptor {
    public var description: String { keyPath.description + (ascending ? " ASC" : " DESC") }
}
