import Foundation
import Testing
import Trove
import TroveModels

@Model struct Author {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var name: String
    var born: Date?
    var rating: Double = 2.5
    var active: Bool = true
    var tags: [String] = []
    @LinkingObjects(\Book.author) var books: [Book] = []
}

@Model struct Book {
    @Attribute(.primaryKey) var isbn: String
    var title: String = "untitled"
    var pages: Int16 = 0
    var price: Decimal?
    var author: Author?
    var related: [Book] = []
}

/// A store created in this process from Swift models, read by the `trove` binary.
@Suite struct ModelSchemaInShellTests {
    @Test func theShellShowsTheSchemaOfTheSwiftModels() throws {
        let w = try Workspace()
        let schema = try Schema(Book.self)
        do {
            let store = try Store(path: w.path("books.trove"), schema: schema)
            try store.write { tx in try tx.insert(Book(isbn: "1", title: "Dune", author: Author(id: 1, name: "Herbert"))) }
        }
        let shown = try w.run(["books.trove", ".schema"])
        #expect(shown.status == 0, "\(shown.err)")
        // `.schema` prints a schema file: the schema the Swift models derive.
        #expect(try Schema(jsonData: Array(shown.out.utf8)) == schema)
        #expect(try w.run(["books.trove", "--json", "Book"]).out.contains("Dune"))
    }
}
