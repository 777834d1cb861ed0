import CFuzzerDriver
import Trove

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer's entry point: any bytes, read as a statement, must parse or throw a
/// `QueryError`, never crash or hang; what parses must print to text that parses back to the
/// same AST; and an error's rendering must not crash either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
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
    return 0
}

var arguments = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argumentValues, fuzzQueryParser))
