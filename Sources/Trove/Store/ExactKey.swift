/// A primary key as given, as a dictionary key: equal to another when it stores the same
/// (``Value/isStoredSame(as:)``), so a string by its UTF-8 bytes, as an index finds it.
///
/// `Value`'s `==` compares strings by canonical equivalence, under which `é` and `e` + U+0301
/// are one key; a store keeps and finds a key by the spelling written, so they name two objects.
struct ExactKey: Hashable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (a: ExactKey, b: ExactKey) -> Bool {
        a.value.isStoredSame(as: b.value)
    }

    /// `Value`'s hash: values that store the same are `==` there too, so they hash alike (two
    /// spellings of one text share a hash and are told apart by `==`).
    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
