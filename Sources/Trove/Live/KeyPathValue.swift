extension DynamicObject {
    /// The value at a dotted key path that follows to-one links (`"publisher.name"`); null
    /// where a link on the way is null.
    func value(atKeyPath path: String) throws -> Value {
        try value(atKeyPath: path.split(separator: ".").map(String.init))
    }

    func value(atKeyPath components: [String]) throws -> Value {
        guard let last = components.last else { throw StoreError.invalidArgument("an empty key path") }
        var object = self
        for name in components.dropLast() {
            guard let next = try object.object(name) else { return .null }
            object = next
        }
        return try object.value(last)
    }
}
