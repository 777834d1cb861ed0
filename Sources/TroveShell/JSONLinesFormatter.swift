import Trove

/// `jsonl` mode: one JSON object per line (`null` for a `get` key that has no object);
/// counts and write summaries are single JSON values on their own line.
struct JSONLinesFormatter: ResultFormatter {
    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            for row in set.rows { out.write(JSONText.string(row) + "\n") }
        case .lookup(_, let objects, _):
            for object in objects { out.write((object.map { JSONText.string($0) } ?? "null") + "\n") }
        case .count(let n): out.write("\(n)\n")
        case .value(_, let value): out.write(JSONText.bare(value) + "\n")
        case .written(let summary): out.write(JSONText.string(summary.object) + "\n")
        case .plan(let plan): out.write(JSONText.string(plan) + "\n")
        case .none: break
        }
    }
}
