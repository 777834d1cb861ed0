/// The candidates for the word before the cursor, found by `ShellCompleter`.
struct Completion: Equatable {
    /// UTF-8 offset in the line where the word being completed starts.
    var start: Int
    /// Whole replacements for that word, sorted.
    var candidates: [String]

    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    /// The candidates in columns, as shells list them.
    static func columns(_ words: [String], width: Int) -> String {
        let cell = (words.map(DisplayWidth.of).max() ?? 0) + 2
        let perLine = max(1, (width > 0 ? width : 80) / cell)
        var text = ""
        for (i, word) in words.enumerated() {
            let last = i % perLine == perLine - 1 || i == words.count - 1
            text += last ? word + "\n" : word.padding(to: cell - 1) + " "
        }
        return text
    }
}
