import Trove
@testable import TroveShell

/// A test double for the store: a fixed set of Person and Dog objects; writes only count.
/// It records what the shell asked, so tests can check what reached the backend.
final class EchoBackend: ShellBackend {
    var executed: [ShellStatement] = []
    var seenArguments: [[String]] = []
    var configuration: BackendConfiguration?
    private(set) var isInTransaction = false
    var transactionLog: [String] = []

    static let people = [
        JSONObject([("id", .int(1)), ("name", .string("Ann")), ("age", .int(31))]),
        JSONObject([("id", .int(2)), ("name", .string("Bob")), ("age", .null)]),
    ]

    func models() throws -> [ModelDescription] {
        [
            ModelDescription(name: "Person", primaryKey: "id", properties: [
                PropertyDescription(name: "id", type: "int", isIndexed: true),
                PropertyDescription(name: "name", type: "string", isIndexed: true),
                PropertyDescription(name: "age", type: "int?"),
                PropertyDescription(name: "bestFriend", type: "Person?", objectType: "Person"),
                PropertyDescription(name: "dogs", type: "Dog[]", objectType: "Dog"),
            ]),
            ModelDescription(name: "Dog", properties: [
                PropertyDescription(name: "name", type: "string"),
                PropertyDescription(name: "owners", type: "linkingObjects", objectType: "Person", linkProperty: "dogs"),
            ]),
        ]
    }

    func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        executed.append(statement)
        seenArguments.append(context.arguments)
        switch statement {
        case .query(let spec):
            try check(spec.model)
            if let at = Self.find("boom", in: spec.text.text) {
                throw StatementError("unknown property 'boom'", at: spec.text.offset + at)
            }
            return .objects(ResultSet(columns: ["id", "name", "age"], rows: Self.people))
        case .count(let model, _):
            try check(model)
            return .count(Self.people.count)
        case .get(_, let keys):
            return .lookup(columns: ["id", "name", "age"], objects: keys.map { key in
                Self.people.first { $0["id"] == .int(Int64(key.text) ?? -1) }
            })
        case .insert(_, let json), .upsert(_, let json):
            let n = json.text.hasPrefix("[") ? json.text.filter { $0 == "{" }.count : 1
            return .written(WriteSummary(inserted: n))
        case .update(_, let target, _):
            if case .keys(let keys) = target { return .written(WriteSummary(updated: keys.count)) }
            return .written(WriteSummary(updated: Self.people.count))
        case .delete(_, let target):
            if case .keys(let keys) = target { return .written(WriteSummary(deleted: keys.count)) }
            return .written(WriteSummary(deleted: Self.people.count))
        case .importFile(_, let file, _, _):
            let bytes = try context.readFile(file.text)
            let lines = bytes.split(separator: 0x0A).count
            context.progress(completed: lines, total: lines)
            return .written(WriteSummary(inserted: lines))
        case .explain(let spec):
            return .plan(JSONObject([("model", .string(spec.model.text)), ("scan", .bool(true))]))
        case .watch:
            context.emit(JSONObject([("event", .string("insert")), ("id", .int(3))]))
            context.emit(JSONObject([("event", .string("delete")), ("id", .int(1))]))
            return .none
        default:
            return .none
        }
    }

    /// The default export, except that a query naming `halfway` fails after its first row.
    func export(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                row: (JSONObject) throws -> Void) throws {
        guard Self.find("halfway", in: query.text.text) != nil else {
            return try exportAnswer(query, context: context, columns: columns, row: row)
        }
        try columns(["id", "name", "age"])
        try row(Self.people[0])
        throw StatementError("the store failed half way")
    }

    /// UTF-8 offset of `needle` in `text`.
    static func find(_ needle: String, in text: String) -> Int? {
        let h = Array(text.utf8), n = Array(needle.utf8)
        guard h.count >= n.count else { return nil }
        return (0...(h.count - n.count)).first { Array(h[$0..<($0 + n.count)]) == n }
    }

    private func check(_ model: SourceFragment) throws {
        guard try models().contains(where: { $0.name == model.text }) else {
            throw StatementError("no model named '\(model.text)'", at: model.offset)
        }
    }

    func begin() throws {
        guard !isInTransaction else { throw StatementError("a transaction is already open") }
        isInTransaction = true
        transactionLog.append("begin")
    }

    func commit() throws {
        guard isInTransaction else { throw StatementError("no transaction is open") }
        isInTransaction = false
        transactionLog.append("commit")
    }

    func rollback() throws {
        guard isInTransaction else { throw StatementError("no transaction is open") }
        isInTransaction = false
        transactionLog.append("rollback")
    }

    // Maintenance: fixed answers, and the copies asked for.
    var problems: [String] = []
    var verifyWarnings: [String] = []
    var openWarnings: [String] = []
    var copies: [String] = []
    /// The keys `.rekey` asked for, nil for none.
    var newKeys: [[UInt8]?] = []

    func verify() throws -> VerifyFindings { VerifyFindings(problems: problems, warnings: verifyWarnings) }

    func statistics() throws -> StoreStatistics {
        StoreStatistics(fileBytes: 602_681_344, pageSize: 4096, pageCount: 147_139, freePages: 73_035, pendingPages: 20, version: 2006)
    }

    var vacuums = 0
    func vacuum() throws -> StoreVacuumReport {
        vacuums += 1
        return StoreVacuumReport(bytesBefore: 602_681_344, bytesAfter: 303_570_944, heldBySnapshots: false)
    }

    func writeCopy(toFile path: String, encryptionKey: [UInt8]?) throws -> UInt64 {
        copies.append(path)
        return 4096
    }

    func changeEncryptionKey(to newKey: [UInt8]?) throws { newKeys.append(newKey) }
}
