/// How results are printed (`--json`, `.mode csv`, ...).
public enum OutputMode: String, Sendable, CaseIterable {
    /// One JSON array per query; `get` of one key prints an object or `null`.
    case json
    /// One JSON object per line.
    case jsonl
    /// A header line, then RFC 4180 records.
    case csv
    /// `csv` with tabs between fields: the form `import` reads from a `.tsv` file.
    case tsv
    /// A box table for people; its look may change between versions.
    case table
    /// A GitHub-flavoured Markdown pipe table, to paste into documents.
    case markdown
    /// `name = value` per line, a blank line between records (sqlite3's `.mode line`).
    case line

    /// Whether output is meant for programs, where counts and write summaries are bare JSON.
    var isMachineReadable: Bool { self == .json || self == .jsonl || self == .csv || self == .tsv }

    /// What null prints as when `.nullvalue` has not chosen: empty where a field may be
    /// empty, `null` where a blank would be lost in the layout.
    var defaultNullText: String {
        switch self {
        case .csv, .tsv, .markdown: ""
        case .json, .jsonl, .table, .line: "null"
        }
    }
}
