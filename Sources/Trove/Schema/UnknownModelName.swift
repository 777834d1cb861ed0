/// What is said of a name that is no model of the schema, by every layer that refuses one (the
/// query binder, the shell's statements and dot-commands, PostgreSQL): the model it most likely
/// misspells, as `NameSuggestion` finds it, else the models there are.
public enum UnknownModelName {
    /// `no model named 'Dgo'; did you mean 'Dog'?`, or `no model named 'Cat' (models: Dog,
    /// Person)` when no model is close; just `no model named 'Cat'` among no models.
    public static func message(_ name: String, among models: [String]) -> String {
        "no model named '\(name)'" + hint(for: name, among: models)
    }

    /// What follows the name in `message(_:among:)`: `; did you mean 'Dog'?`, ` (models: ...)`
    /// or nothing.
    public static func hint(for name: String, among models: [String]) -> String {
        if let closest = NameSuggestion.closest(to: name, among: models) { return "; did you mean '\(closest)'?" }
        return models.isEmpty ? "" : " (models: \(models.joined(separator: ", ")))"
    }
}
