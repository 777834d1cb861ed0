import Testing
import Trove

/// Every import error about a field says `line N, column C (name)` through `RecordPlace`.
struct RecordPlaceTests {
    @Test func aFieldIsNamedByLineColumnAndHeader() {
        #expect(RecordPlace.line(3).field(2, named: "id") == "line 3, column 2 (id)")
        #expect(RecordPlace.line(1).field(4) == "line 1, column 4")
        #expect(RecordPlace.keyedLine(5, keyColumn: 1, key: "id", model: "Cat").field(2, named: "n") == "line 5, column 2 (n)")
    }

    /// A primary key taken names the key's field only when it is the record's own model's.
    @Test func aTakenKeyNamesItsFieldOnlyForTheRecordsModel() {
        let place = RecordPlace.keyedLine(3, keyColumn: 2, key: "id", model: "Cat")
        #expect(place.place(of: StoreError.duplicatePrimaryKey(model: "Cat", value: "1")) == "line 3, column 2 (id)")
        #expect(place.place(of: StoreError.duplicatePrimaryKey(model: "Dog", value: "1")) == "line 3")
        #expect(place.place(of: StoreError.noSuchModel("Cat")) == "line 3")
        #expect(place.place(of: nil) == "line 3")
        #expect(RecordPlace.line(3).place(of: StoreError.duplicatePrimaryKey(model: "Cat", value: "1")) == "line 3")
    }
}
