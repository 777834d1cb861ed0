import Trove

/// `json` mode: a query prints one JSON array (an object per line inside it), `get` of one
/// key prints the object or `null`; counts and write summaries are single JSON values.
struct JSONFormatter: ResultFormatter {
    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            writeArray(set.rows.map(JSONValue.object), to: out)
        case .lookup(_, let objects, _):
            if objects.count == 1 {
                out.write(objects[0].map { JSONText.string($0) } ?? "null")
                out.write("\n")
            } else {
                writeArray(objects.map { $0.map(JSONValue.object) ?? .null }, to: out)
            }
        case .count(let n): out.write("\(n)\n")
        case .value(_, let value): out.write(JSONText.bare(value) + "\n")
        case .written(let summary): out.write(JSONText.string(summary.object) + "\n")
        case .plan(let plan): out.write(JSONText.string(plan) + "\n")
        case .none: break
        }
    }

    private func writeArray(_ values: [JSONValue], to out: OutputSink) {
        guard !values.isEmpty else { return out.write("[]\n") }
        var text = "["
        for (i, value) in values.enumerated() {
            text += i == 0 ? "\n  " : ",\n  "
            JSONText.write(value, into: &text)
            if text.utf8.count > 1 << 16 {
                out.write(text)
                text = ""
            }
        }
        out.write(text + "\n]\n")
    }
}
