/// A key path resolved against the schema: the links and lists it crosses, then the property
/// it reads (or, inside a `SUBQUERY` over a list of primitives, the element itself).
struct BoundKeyPath {
    enum Terminal {
        /// A stored scalar, primitive list, link or list of links, or a linkingObjects property.
        case property(PropertyLayout)
        /// `$x` standing for an element of a list of primitives.
        case element(PropertyLayout)
    }

    /// The links, lists of links and linkingObjects crossed before the terminal, in order.
    var hops: [PropertyLayout]
    var terminal: Terminal
    /// The type of each value reached.
    var kind: ValueKind
    /// The path as written, for plans and messages.
    var text: String
    var range: QuerySourceRange

    /// The property read at the end (the list, for an element).
    var property: PropertyLayout {
        switch terminal {
        case .property(let p), .element(let p): p
        }
    }

    /// Whether the path may reach many values: it crosses or ends in a list or linkingObjects.
    var isToMany: Bool {
        if case .element = terminal { return false }
        return hops.contains { !$0.isLink } || !property.isLink && (property.isList || property.isLinkingObjects)
    }

    /// Whether the path reads a property of the queried object itself, with no hops.
    var isDirect: Bool {
        if case .property = terminal { return hops.isEmpty }
        return false
    }

    /// The path without its terminal reads only to-one links: at most one value, null when a
    /// link on the way is null.
    var hopsAreToOne: Bool { hops.allSatisfy(\.isLink) }
}
