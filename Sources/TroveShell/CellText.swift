import Trove

/// How a value reads in a cell of csv, table and line output: strings without quotes,
/// null as empty (csv) or `null`, arrays and objects as compact JSON.
enum CellText {
    static func plain(_ value: JSONValue?, null: String) -> String {
        switch value {
        case nil, .null?: null
        case .string(let s)?: s
        case .bool(let b)?: b ? "true" : "false"
        case .int(let i)?: String(i)
        case .double(let d)?: JSONText.number(d)
        case let other?: JSONText.string(other)
        }
    }
}
