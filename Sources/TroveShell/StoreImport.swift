import Trove
import TrovePostgres

/// `import MODEL FILE [AS CSV|TSV|JSON] [MERGE]`: writes every record of the file, streamed
/// in bounded memory, in the statement's transaction (of a store or of a PostgreSQL database). The first bad record stops the import
/// and, since the transaction then rolls back, nothing is imported. Each record is inserted
/// (an existing primary key is an error) or, with MERGE, upserted: created, or only its given
/// properties updated. A nested object where a link is expected is upserted either way.
struct StoreImport {
    let model: ModelSchema
    let input: StatementInput
    let format: ImportFormat
    let merge: Bool
    let context: ExecutionContext

    /// What was written: inserted objects, and with MERGE also updated ones.
    func run(into destination: ImportDestination) throws -> WriteSummary {
        var counts = Counts()
        switch format {
        case .json: try importJSON(into: destination, &counts)
        case .csv, .tsv:
            var reader = CSVImport(model: model, reader: CSVReader(source: input, separator: format == .tsv ? 0x09 : 0x2C, firstLine: input.firstLine), into: destination)
            while true {
                if context.isCancelled { throw failure("interrupted after \(counts.records) records") }
                let record: CSVImport.Row?
                do {
                    record = try reader.next()
                } catch {
                    throw failure("\(error)", before: destination)
                }
                guard let record else { break }
                guard let values = record.values else {
                    counts.inserted += 1
                    reportProgress(counts)
                    continue
                }
                do {
                    try write(values, into: destination, at: record.place, &counts)
                } catch let error as ImportFailure {
                    throw failure(error.description, before: destination)
                } catch {
                    throw failure("\(record.place.place(of: error)): \(error)", before: destination)
                }
                reportProgress(counts)
            }
            do {
                try reader.finish()
            } catch {
                throw failure("\(error)")
            }
        }
        do {
            try destination.finish()
        } catch {
            throw failure("\(error)")
        }
        return merge ? .upsert(inserted: counts.inserted, updated: counts.updated) : WriteSummary(inserted: counts.inserted)
    }

    private struct Counts {
        var inserted = 0
        var updated = 0
        var records: Int { inserted + updated }
    }

    private func importJSON(into destination: ImportDestination, _ counts: inout Counts) throws {
        let reader = JSONStreamReader(source: input, firstLine: input.firstLine)
        var links = ForwardLinks(model: model)
        var copyRows = destination.bulkInsert.flatMap { JSONCopyRows(model: model, bulk: $0) }
        while true {
            if context.isCancelled { throw failure("interrupted after \(counts.records) records") }
            let value: JSONValue?
            do {
                value = try reader.next()
            } catch {
                throw failure(error.description + (Self.startsAsNoJSON(error, recordsRead: reader.recordCount)
                    ? " (read as JSON; for CSV or TSV, end the file's name in .csv or .tsv, or add AS CSV or AS TSV)" : ""),
                              before: destination)
            }
            guard let value else { break }
            let start = reader.lastValuePosition()
            let place = RecordPlace.recordAt(reader.recordCount, line: start.line, column: start.column)
            guard case .object(let object) = value else {
                throw failure("\(place): expected a JSON object, found \(value.typeDescription)", before: destination)
            }
            do {
                if try copyRows?.add(object, at: place) == true {
                    counts.inserted += 1
                    reportProgress(counts)
                    continue
                }
                var values = try destination.values(fromJSON: object, model: model.name)
                try links.setAside(&values, in: destination) { "\(place) (\($0))" }
                try write(values, into: destination, at: place, &counts)
            } catch let error as ImportFailure {
                throw failure(error.description, before: destination)
            } catch {
                throw failure("\(place): \(error)", before: destination)
            }
            reportProgress(counts)
        }
        do {
            try links.finish(in: destination)
        } catch {
            throw failure("\(error)")
        }
    }

    /// Whether the input fails where its first value should start, as CSV read as JSON does
    /// (`id,name` is no JSON value; `name,id` starts like `null` but is not).
    private static func startsAsNoJSON(_ error: JSONError, recordsRead: Int) -> Bool {
        guard recordsRead == 0 else { return false }
        switch error.reason {
        case .unexpectedCharacter(_, expected: "a value"), .invalidLiteral: return true
        default: return false
        }
    }

    private func write(_ values: [String: Value], into destination: ImportDestination, at place: RecordPlace, _ counts: inout Counts) throws {
        if try destination.write(model.name, values, merge: merge, at: place) { counts.inserted += 1 } else { counts.updated += 1 }
    }

    private func reportProgress(_ counts: Counts) {
        guard counts.records % 512 == 0 else { return }
        if let size = input.size { context.progress(completed: input.bytesRead, total: size) } else { context.progress(completed: counts.records, total: nil) }
    }

    /// The failure of a record, or of the records that `destination` holds back before it:
    /// a PostgreSQL database checks those (a primary key taken, a link to no object) only as
    /// they are sent, and the import names its first bad record, as a store's does.
    private func failure(_ what: String, before destination: ImportDestination) -> WriteFailure {
        do {
            try destination.finish()
        } catch let earlier as ImportFailure {
            return failure(earlier.description)
        } catch {
            // Any other error of `finish` (a refusal of the whole COPY, a lost connection) names
            // no record before this one, and the transaction it leaves aborted would only hide
            // the record's own failure: the import reports that one.
        }
        return failure(what)
    }

    private func failure(_ what: String) -> WriteFailure {
        let name = input.name == "-" ? "standard input" : "'\(input.name)'"
        return WriteFailure(underlying: StatementError("import from \(name) failed: \(what); nothing was imported"))
    }
}
