import Trove

/// libFuzzer's entry point: any bytes, read as a statement, must parse or throw a
/// `QueryError`, never crash or hang; and what parses must print to text that parses back to
/// the same AST.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let query = try? QueryParser.parseQuery(text) {
        let printed = query.description
        guard let reparsed = try? QueryParser.parseQuery(printed) else {
            fatalError("printed query does not parse: \(printed)")
        }
        precondition(reparsed == query, "round trip changed the query: \(printed)")
    } else if let predicate = try? QueryParser.parsePredicate(text) {
        let printed = predicate.description
        guard let reparsed = try? QueryParser.parsePredicate(printed) else {
            fatalError("printed predicate does not parse: \(printed)")
        }
        precondition(reparsed == predicate, "round trip changed the predicate: \(printed)")
    } else {
        do {
            _ = try QueryParser.parseQuery(text)
        } catch {
            // Rendering the caret excerpt must not crash either.
            _ = error.description
        }
    }
    return 0
}
