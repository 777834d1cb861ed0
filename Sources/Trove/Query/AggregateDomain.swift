/// Which values each aggregate takes: the one rule behind the store's checks of `sum`,
/// `@avg.KP` and `list.@max`, the aggregates the hint of a grouped SELECT offers, and
/// PostgreSQL's checks, so that both backends refuse and suggest alike.
extension AggregateFunction {
    /// The aggregates that read a value of each object (not `@count`), in the order hints name them.
    package static let valued: [AggregateFunction] = [.sum, .avg, .min, .max]

    /// Whether the aggregate takes values of the scalar `type` (nil: objects, which only
    /// counting takes): `sum` and `avg` numbers, `min` and `max` numbers and dates.
    package func takes(_ type: PropertyType?) -> Bool {
        switch self {
        case .count, .size: true
        case .sum, .avg: type?.isNumeric == true
        case .min, .max: type?.isNumeric == true || type == .date
        }
    }

    /// What the aggregate takes, for a message: `numbers` or `numbers and dates`.
    package var domain: String {
        self == .min || self == .max ? "numbers and dates" : "numbers"
    }

    /// Why the aggregate (written `name`) refuses the key path `text`, whose values are of
    /// `type` and read as `what` (`string`, `an object of Team`); nil when it takes them.
    package func refusal(named name: String, of text: String, type: PropertyType?, being what: String) -> String? {
        refusal(named: name, of: text, type: type, saying: "is \(what)")
    }

    /// Why the aggregate refuses the list `text`, whose elements are of `type` and read as
    /// `kind` (`string`): "... holds string values"; nil when it takes them.
    package func refusal(named name: String, of text: String, type: PropertyType?, holding kind: String) -> String? {
        refusal(named: name, of: text, type: type, saying: "holds \(kind) values")
    }

    private func refusal(named name: String, of text: String, type: PropertyType?, saying predicate: String) -> String? {
        takes(type) ? nil : "\(name) applies to \(domain); '\(text)' \(predicate)"
    }
}

extension QuerySelectItem {
    /// Why the key path `text` is no item of a grouped SELECT, naming only what would be
    /// taken instead: the group aggregates that take its values (of `type`; nil for objects),
    /// or GROUP itself; a path that crosses a list (`multiValued`) only `@count`, since
    /// neither GROUP nor another aggregate takes it. The store's and PostgreSQL's message.
    package static func notGroupKey(_ text: String, type: PropertyType?, multiValued: Bool) -> String {
        let taken = multiValued ? [] : AggregateFunction.valued.filter { $0.takes(type) }
        let aggregates = multiValued ? "@count; '\(text)' crosses a list, which neither GROUP nor another aggregate takes"
            : taken.isEmpty ? "@count; add '\(text)' to GROUP to show it"
            : (["@count"] + taken.map { "\($0).\(text)" }).joined(separator: ", ")
        return "'\(text)' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (\(aggregates))"
    }
}
