import Testing
import Trove
@testable import TroveShell

/// The shell's hint for a database without models follows the kind of the error, never its
/// words: an unknown model from the query layer, the store or the shell sets it, another
/// error that reads alike does not.
@Suite struct UnknownModelErrorTests {
    @Test func onlyAnUnknownModelNamesOne() {
        let unknown = StatementError(QueryError(.unknownModel, "no model named 'P'", at: .start), at: 4)
        #expect(unknown.namesUnknownModel && unknown.offset == 4 && unknown.message == "no model named 'P'")
        #expect(StatementError(StoreError.noSuchModel("P")).namesUnknownModel)
        #expect(StatementError.unknownModel("P", "; did you mean 'p'?").message == "no model named 'P'; did you mean 'p'?")
        #expect(StatementError.unknownModel("P").placed(at: 9).namesUnknownModel)
        #expect(!StatementError(QueryError(.unknownProperty, "no model named 'P' is what 'x' says", at: .start), at: 0).namesUnknownModel)
        #expect(!StatementError("no model named 'P'").namesUnknownModel)
    }
}
