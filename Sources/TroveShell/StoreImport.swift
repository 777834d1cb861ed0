import Trove

/// `import MODEL FILE`: inserts every record of a JSON array or JSON lines, streamed in
/// bounded memory, in the statement's transaction. The first bad record (malformed JSON, not
/// an object, a value of the wrong type, an existing primary key) stops the import and,
/// since the transaction then rolls back, nothing is imported. A nested object where a link
/// is expected is upserted, as `upsert` does.
struct StoreImport {
    let model: String
    let input: StatementInput
    let context: ExecutionContext

    /// Returns how many objects were inserted.
    func run(in tx: Transaction) throws -> Int {
        let reader = JSONStreamReader(source: input)
        var inserted = 0
        while true {
            if context.isCancelled { throw failure("interrupted after \(inserted) records") }
            let value: JSONValue?
            do {
                value = try reader.next()
            } catch {
                throw failure(error.description)
            }
            guard let value else { break }
            let record = reader.recordCount
            guard case .object(let object) = value else {
                throw failure("record \(record): expected a JSON object, found \(value.typeDescription)")
            }
            do {
                try tx.insert(model, try tx.values(fromJSON: object, model: model))
            } catch {
                throw failure("record \(record): \(error)")
            }
            inserted += 1
            if inserted % 512 == 0 {
                if let size = input.size { context.progress(completed: input.bytesRead, total: size) } else { context.progress(completed: inserted, total: nil) }
            }
        }
        return inserted
    }

    private func failure(_ what: String) -> WriteFailure {
        let name = input.name == "-" ? "standard input" : "'\(input.name)'"
        return WriteFailure(underlying: StatementError("import from \(name) failed: \(what); nothing was imported"))
    }
}
