/// Whether a value written over a stored one stores the same: the comparison that decides
/// whether an update changes a property.
///
/// Swift's `==` takes canonically equivalent strings as equal (`"é"` in NFC, one scalar, and
/// in NFD, `e` and a combining accent), but the store keeps a string's UTF-8 bytes as written,
/// and indexes and primary keys order and find them by those bytes: changing one spelling into
/// the other is a change, which an update writes. The rule for each kind of payload is stated
/// once, on the payload (``String/hasSameUTF8(as:)``, `Double.isStoredSame(as:)`,
/// `Float.isStoredSame(as:)`); ``Value`` and ``JSONValue`` apply it element by element.
extension Value {
    /// Whether writing `other` where `self` is stored leaves the same value: strings by their
    /// UTF-8 bytes, a double or float equal or of the same bits (a NaN stays the same NaN),
    /// lists and nested objects element by element; anything else by `==`.
    @usableFromInline
    package func isStoredSame(as other: Value) -> Bool {
        // One switch over `self`, not over the pair: a tuple of the two would copy both.
        switch self {
        case .string(let a):
            guard case .string(let b) = other else { return false }
            return a.hasSameUTF8(as: b)
        case .double(let a):
            guard case .double(let b) = other else { return false }
            return a.isStoredSame(as: b)
        case .float(let a):
            guard case .float(let b) = other else { return false }
            return a.isStoredSame(as: b)
        case .list(let a):
            guard case .list(let b) = other else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0.isStoredSame(as: $1) }
        case .object(let a):
            guard case .object(let b) = other else { return false }
            return a.count == b.count && a.allSatisfy { name, value in b[name].map { value.isStoredSame(as: $0) } ?? false }
        default:
            return self == other
        }
    }
}

extension String {
    /// Whether the two strings are the same UTF-8 bytes, as ``ExactText`` compares them: for
    /// the comparisons of typed partial updates, whose copy of a value shares the original's
    /// strings, found equal by their representation without reading their bytes.
    @usableFromInline
    package func hasSameUTF8(as other: String) -> Bool {
        ExactText(self) == ExactText(other)
    }
}

extension Double {
    /// Whether writing `other` where `self` is stored leaves the same number: equal (0 and
    /// -0 too), or of the same bits (a NaN stays the same NaN, which `==` says differs).
    @inline(__always)
    func isStoredSame(as other: Double) -> Bool { bitPattern == other.bitPattern || self == other }
}

extension Float {
    /// As `Double.isStoredSame(as:)`.
    @inline(__always)
    func isStoredSame(as other: Float) -> Bool { bitPattern == other.bitPattern || self == other }
}

extension JSONValue {
    /// Whether the two are the same values as written, by the rule of ``Value/isStoredSame(as:)``:
    /// strings (and object keys) by their UTF-8 bytes, doubles equal or of the same bits,
    /// arrays and objects element by element. `==` takes canonically equivalent strings as equal.
    package func isStoredSame(as other: JSONValue) -> Bool {
        switch self {
        case .string(let a):
            guard case .string(let b) = other else { return false }
            return a.hasSameUTF8(as: b)
        case .double(let a):
            guard case .double(let b) = other else { return false }
            return a.isStoredSame(as: b)
        case .array(let a):
            guard case .array(let b) = other else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0.isStoredSame(as: $1) }
        case .object(let a):
            guard case .object(let b) = other else { return false }
            return a.isStoredSame(as: b)
        default:
            return self == other
        }
    }
}

extension JSONObject {
    /// Whether the two hold the same pairs in the same order, by ``JSONValue/isStoredSame(as:)``.
    package func isStoredSame(as other: JSONObject) -> Bool {
        pairs.count == other.pairs.count
            && zip(pairs, other.pairs).allSatisfy { $0.key.hasSameUTF8(as: $1.key) && $0.value.isStoredSame(as: $1.value) }
    }
}
