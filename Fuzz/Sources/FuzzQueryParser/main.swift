import CFuzzerDriver
@_spi(Fuzzing) import Trove

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
    QueryRoundTrip.check(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

var arguments = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argumentValues, fuzzQueryParser))
