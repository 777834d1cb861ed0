/// What SQL typed out of habit does here: the hints the query parser adds to its errors, and
/// the shell to a statement that starts with `SELECT`. Each is keyed by the SQL it answers
/// (lowercased); `FUNCTION`, `PATH` and `MODEL` stand for the words of the statement at hand.
package enum SQLHabits {
    package static let table: [String: String] = [
        "select": "a query is not SQL here: it names its model first, as in Person where age > 30 SELECT(name)",
        "select *": "SELECT has no '*': leave SELECT out to get whole objects",
        "count(*)": "SQL's count(*) is @count here, in a grouped SELECT (MODEL GROUP(...) SELECT(@count)); over all objects it is the statement count MODEL",
        "count(path)": "SQL's count(PATH) counts the objects whose PATH is not null: here that is the statement count MODEL where PATH != nil, or per group MODEL where PATH != nil GROUP(...) SELECT(@count)",
        "function(path)": "SQL's FUNCTION(PATH) is @FUNCTION.PATH here, in a grouped SELECT (MODEL GROUP(...) SELECT(@FUNCTION.PATH)); over all objects it is the statement FUNCTION MODEL.PATH",
        "function(model.path)": "an aggregate statement takes no brackets: FUNCTION MODEL.KEYPATH",
        "distinct on": "SQL's DISTINCT ON (PATH) is DISTINCT(PATH) here: DISTINCT(k, ...) keeps the first object of each combination of the key paths' values",
        "distinct by": "DISTINCT takes its key paths in brackets: DISTINCT(PATH), or DISTINCT(k, ...) for several",
        "group by": "SQL's GROUP BY PATH is GROUP(PATH) here",
        "order by": "SQL's ORDER BY PATH is SORT(PATH) here (SORT(PATH DESC) descending)",
        "limit n": "WORD takes its argument in brackets: WORD(ARGUMENT)",
    ]

    /// The hint for `habit`, its placeholders replaced by `words` (`["PATH": "age"]`) in one
    /// pass, so that a word holding a placeholder's text stays as written.
    package static func hint(_ habit: String, _ words: [String: String] = [:]) -> String {
        var rest = Substring(table[habit] ?? "")
        var text = ""
        while !rest.isEmpty {
            if let (placeholder, word) = words.first(where: { rest.hasPrefix($0.key) }) {
                text += word
                rest = rest.dropFirst(placeholder.count)
            } else {
                text.append(rest.removeFirst())
            }
        }
        return text
    }
}
