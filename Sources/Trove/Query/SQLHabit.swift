/// What SQL typed out of habit does here: the hints the query parser adds to its errors, and
/// the shell to a statement that starts with `SELECT`. Each case is a habit, named for the SQL
/// it answers; its `template`'s placeholders (`Word`) stand for the words of the statement at
/// hand. A habit is a case, so that no hint can be asked for one that has no text.
package enum SQLHabit: CaseIterable, Sendable {
    /// `SELECT name FROM Person`.
    case select
    /// `SELECT(*)`.
    case selectStar
    /// `count(*)`, `count(1)`.
    case countStar
    /// `count(x)`.
    case countPath
    /// `count(DISTINCT x)`.
    case countDistinct
    /// `avg(x)`, `min(DISTINCT x)`, ... in a SELECT.
    case functionPath
    /// `avg(Person.age)` as a statement.
    case functionModelPath
    /// PostgreSQL's `DISTINCT ON (x)`.
    case distinctOn
    /// `DISTINCT BY x`.
    case distinctBy
    /// `GROUP BY x`.
    case groupBy
    /// `ORDER BY x`.
    case orderBy
    /// `LIMIT 10`, `OFFSET 5`.
    case limitN

    /// The words of the statement a hint names, by the placeholder that stands for each.
    package enum Word: String, Sendable {
        case function = "FUNCTION", path = "PATH", model = "MODEL", word = "WORD", argument = "ARGUMENT"
    }

    /// The hint, with placeholders.
    package var template: String {
        switch self {
        case .select: "a query is not SQL here: it names its model first, as in Person where age > 30 SELECT(name)"
        case .selectStar: "SELECT has no '*': leave SELECT out to get whole objects"
        case .countStar: "SQL's count(*) is @count here, in a grouped SELECT (MODEL GROUP(...) SELECT(@count)); over all objects it is the statement count MODEL"
        case .countPath: "SQL's count(PATH) counts the objects whose PATH is not null: here that is the statement count MODEL where PATH != nil, or per group MODEL where PATH != nil GROUP(...) SELECT(@count)"
        case .countDistinct: "SQL's count(DISTINCT PATH) counts PATH's distinct values other than null: here MODEL where PATH != nil GROUP(PATH) gives one result per such value, and the number of its results is that count"
        case .functionPath: "SQL's FUNCTION(PATH) is @FUNCTION.PATH here, in a grouped SELECT (MODEL GROUP(...) SELECT(@FUNCTION.PATH)); over all objects it is the statement FUNCTION MODEL.PATH"
        case .functionModelPath: "an aggregate statement takes no brackets: FUNCTION MODEL.KEYPATH"
        case .distinctOn: "SQL's DISTINCT ON (PATH) is DISTINCT(PATH) here: DISTINCT(k, ...) keeps the first object of each combination of the key paths' values"
        case .distinctBy: "DISTINCT takes its key paths in brackets: DISTINCT(PATH), or DISTINCT(k, ...) for several"
        case .groupBy: "SQL's GROUP BY PATH is GROUP(PATH) here"
        case .orderBy: "SQL's ORDER BY PATH is SORT(PATH) here (SORT(PATH DESC) descending)"
        case .limitN: "WORD takes its argument in brackets: WORD(ARGUMENT)"
        }
    }

    /// The hint, its placeholders replaced by `words` (`[.path: "age"]`) in one pass, so that
    /// a word holding a placeholder's text stays as written.
    package func hint(_ words: [Word: String] = [:]) -> String {
        var rest = Substring(template)
        var text = ""
        while !rest.isEmpty {
            if let (placeholder, word) = words.first(where: { rest.hasPrefix($0.key.rawValue) }) {
                text += word
                rest = rest.dropFirst(placeholder.rawValue.count)
            } else {
                text.append(rest.removeFirst())
            }
        }
        return text
    }
}
