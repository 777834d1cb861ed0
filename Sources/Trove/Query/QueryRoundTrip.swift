/// The parser's round trip, for the fuzzer (`Fuzz/`): the query AST is not public API, so the
/// fuzzer, a package of its own, reaches the parser and printer only through this.
@_spi(Fuzzing) public enum QueryRoundTrip {
    /// Parses `text` as a query and as a predicate. Each must parse or throw a `QueryError`
    /// whose rendering works; what parses must print to text that parses back to an equal AST.
    /// Traps when that fails, so that libFuzzer reports the input.
    public static func check(_ text: String) {
        do {
            let query = try QueryParser.parseQuery(text)
            let printed = query.description
            guard let reparsed = try? QueryParser.parseQuery(printed) else {
                fatalError("printed query does not parse: \(printed)")
            }
            precondition(reparsed == query, "round trip changed the query: \(printed)")
        } catch {
            _ = error.description
        }
        do {
            let predicate = try QueryParser.parsePredicate(text)
            let printed = predicate.description
            guard let reparsed = try? QueryParser.parsePredicate(printed) else {
                fatalError("printed predicate does not parse: \(printed)")
            }
            precondition(reparsed == predicate, "round trip changed the predicate: \(printed)")
        } catch {
            _ = error.description
        }
    }
}
