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
        #expect(StatementError(StoreError.noSuchModel("P"), models: []).namesUnknownModel)
        #expect(StatementError.unknownModel("P", "; did you mean 'p'?").message == "no model named 'P'; did you mean 'p'?")
        #expect(StatementError.unknownModel("P").placed(at: 9).namesUnknownModel)
        #expect(!StatementError(QueryError(.unknownProperty, "no model named 'P' is what 'x' says", at: .start), at: 0).namesUnknownModel)
        #expect(!StatementError("no model named 'P'").namesUnknownModel)
    }

    /// The store's refusal is worded as every layer words it: the closest model, else the models.
    @Test func theStoresRefusalSuggestsAModelAsTheBinderDoes() {
        let close = StatementError(StoreError.noSuchModel("Dgo"), models: ["Cat", "Dog"])
        #expect(close.namesUnknownModel && close.message == "no model named 'Dgo'; did you mean 'Dog'?")
        let far = StatementError(StoreError.noSuchModel("Bird"), models: ["Cat", "Dog"])
        #expect(far.namesUnknownModel && far.message == "no model named 'Bird' (models: Cat, Dog)")
        let typo = StatementError(StoreError.noSuchModel("Doge"), models: ["Cat", "Dog"])
        #expect(typo.namesUnknownModel && typo.message == "no model named 'Doge'; did you mean 'Dog'?")
        #expect(StatementError.noModel(named: "dog", among: ["Cat", "Dog"]).message == "no model named 'dog'; did you mean 'Dog'?")
        #expect(StatementError.noModel(named: "Cat", among: []).message == "no model named 'Cat'")
    }

    /// A write that names a record keeps what its error says of an unknown model, so that the
    /// hint for a database without models still follows.
    @Test func aRecordsErrorStillNamesItsUnknownModel() {
        for count in [1, 3] {
            let error = #expect(throws: WriteFailure.self) {
                try WriteFailure.naming(record: 1, of: count, at: 5) { throw StoreError.noSuchModel("Cat") }
            }
            #expect(error?.underlying.namesUnknownModel == true, "\(count)")
            #expect(error?.underlying.offset == 5)
            #expect(error?.underlying.message == (count > 1 ? "record 2: no model named 'Cat'" : "no model named 'Cat'"))
            let statement = #expect(throws: WriteFailure.self) {
                try WriteFailure.naming(record: 0, of: count, at: 5) { throw StatementError.unknownModel("Cat", at: 2) }
            }
            #expect(statement?.underlying.namesUnknownModel == true && statement?.underlying.offset == 2)
        }
    }
}
