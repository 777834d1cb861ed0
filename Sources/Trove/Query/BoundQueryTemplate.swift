/// The path comparisons a binder bound, in order, with the constant expression of each.
final class BindingRecorder {
    struct Leaf {
        var constant: QueryExpression
        var op: BoundOperator

        /// Whether the constant reads an argument (`$0`, or `{$0, 1}`).
        var usesArguments: Bool { Self.usesArguments(constant) }

        private static func usesArguments(_ e: QueryExpression) -> Bool {
            switch e.kind {
            case .parameter: true
            case .literal(.list(let items)): items.contains(where: usesArguments)
            default: false
            }
        }
    }

    var leaves: [Leaf] = []
}

/// A predicate bound once against a model, ready to take new arguments: only the constants
/// read from arguments are typed again, so a query run many times with `$n` arguments skips
/// resolving key paths and checking operators.
///
/// Only for predicates made of path comparisons (with `AND`, `OR`, `NOT`): their constants
/// are the whole part of binding that depends on the arguments.
///
/// A class: a cache hit hands it out, and a copy of this many fields costs a retain each.
final class BoundQueryTemplate {
    let layout: StoreLayout
    let model: ModelLayout
    private let predicate: BoundPredicate
    /// The comparisons' constants, in the order a traversal of `predicate` meets them; nil
    /// for a constant that reads no argument.
    private let constants: [QueryExpression?]
    private let usesArguments: Bool
    /// The index lookup that answers the predicate, when it is one indexed equality.
    let pointLookup: PointLookup?
    /// The index range that answers the predicate, when it orders one indexed property.
    let rangeLookup: RangeLookup?

    /// The template of `predicate`, bound by a binder that had `recorder`; nil when the
    /// predicate has other parts.
    init?(_ predicate: BoundPredicate, recorder: BindingRecorder, layout: StoreLayout, model: ModelLayout) {
        var comparisons = 0
        guard Self.onlyPathComparisons(predicate, &comparisons), comparisons == recorder.leaves.count,
              // A pattern is checked when bound.
              !recorder.leaves.contains(where: { $0.op == .matches && $0.usesArguments }) else { return nil }
        self.layout = layout
        self.model = model
        self.predicate = predicate
        self.constants = recorder.leaves.map { $0.usesArguments ? $0.constant : nil }
        self.usesArguments = constants.contains { $0 != nil }
        self.pointLookup = PointLookup(predicate, model: model, constant: constants.first ?? nil)
        self.rangeLookup = RangeLookup(predicate, model: model, constants: constants)
    }

    /// The predicate with the arguments of `binder`; throws what binding it would throw.
    func bind(_ binder: QueryBinder) throws -> BoundPredicate {
        guard usesArguments else { return predicate }
        var next = 0
        return try substitute(predicate, binder, &next)
    }

    private func substitute(_ p: BoundPredicate, _ binder: QueryBinder, _ next: inout Int) throws -> BoundPredicate {
        switch p {
        case .path(var c):
            defer { next += 1 }
            guard let constant = constants[next] else { return p }
            c.constant = try binder.typedConstant(constant, kind: c.path.kind, op: c.op)
            return .path(c)
        case .and(let operands):
            var bound: [BoundPredicate] = []
            bound.reserveCapacity(operands.count)
            for operand in operands { bound.append(try substitute(operand, binder, &next)) }
            return .and(bound)
        case .or(let operands):
            var bound: [BoundPredicate] = []
            bound.reserveCapacity(operands.count)
            for operand in operands { bound.append(try substitute(operand, binder, &next)) }
            return .or(bound)
        case .not(let operand):
            return .not(try substitute(operand, binder, &next))
        case .constant, .general:
            return p
        }
    }

    private static func onlyPathComparisons(_ p: BoundPredicate, _ count: inout Int) -> Bool {
        switch p {
        case .path:
            count += 1
            return true
        case .constant:
            return true
        case .and(let operands), .or(let operands):
            return operands.allSatisfy { onlyPathComparisons($0, &count) }
        case .not(let operand):
            return onlyPathComparisons(operand, &count)
        case .general:
            return false
        }
    }
}
