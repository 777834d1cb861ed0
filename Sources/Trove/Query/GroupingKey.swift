/// The values of GROUP's or DISTINCT's key paths for one object (or a section's key), as a
/// dictionary key: the one rule of which values make one group.
///
/// Two values are the same when `==` says so (null equals null, -0 equals 0, strings compare
/// as `==` compares them) and also when both are NaN. NaN is unequal to itself under `==`,
/// which would make each NaN object a group of its own; SORT orders every NaN alike (after
/// every number), and PostgreSQL's float types make NaN equal to NaN, so GROUP and DISTINCT
/// keep all NaN together too. A group of NaN shows its first object's value, as a group of
/// -0 and 0 does.
struct GroupingKey: Hashable {
    let values: [Value]

    init(_ values: [Value]) { self.values = values }

    static func == (a: GroupingKey, b: GroupingKey) -> Bool {
        a.values.count == b.values.count && zip(a.values, b.values).allSatisfy { same($0, $1) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(values.count)
        for value in values { Self.hash(value, into: &hasher) }
    }

    /// Whether `a` and `b` fall in one group.
    static func same(_ a: Value, _ b: Value) -> Bool {
        a == b || (ValueComparison.isNaN(a) && ValueComparison.isNaN(b))
    }

    /// Hashes `value` so that values `same` calls one hash alike: every NaN one way, whatever
    /// its payload.
    static func hash(_ value: Value, into hasher: inout Hasher) {
        if ValueComparison.isNaN(value) {
            hasher.combine(Double.nan.bitPattern)
        } else {
            hasher.combine(value)
        }
    }
}
