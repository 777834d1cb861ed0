#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// Where a predicate's elements lie in a tree of one expression type: the byte offset of each
/// key path, variable, operator and captured value from the tree's root, in the order
/// ``PredicateShapeReader`` meets them. The expression type fixes every node's layout, so a
/// known expression reads a new predicate's elements at these offsets: no walk through the
/// generic conformances of Foundation's node types, no metadata looked up per node.
/// Sendable as ``PredicateShape`` is: immutable once made.
struct PredicateShapeProgram: @unchecked Sendable {
    enum Step {
        /// A variable used (a `PredicateExpressions.VariableID`).
        case use(Int)
        /// A closure's variable bound (`contains(where:)`, `allSatisfy`, `flatMap`).
        case bind(Int)
        /// A key path (a class reference).
        case keyPath(Int)
        /// A captured value, read by its type's conversion.
        case capture(Int, (UnsafeRawPointer) throws -> Value)
        /// An operator's code.
        case mark(Int, (UnsafeRawPointer) -> Int)
    }

    private(set) var steps: [Step] = []

    /// The program of `E`, nil when a node's operands cannot be located (a property of a
    /// node that is not stored): such a tree is walked.
    static func compile<E: ShapedExpression>(_ type: E.Type) -> PredicateShapeProgram? {
        var program = PredicateShapeProgram()
        do {
            try E.compileShape(at: 0, into: &program)
        } catch {
            return nil
        }
        return program
    }

    mutating func append(_ step: Step) {
        steps.append(step)
    }

    /// The offset of the stored property `keyPath` of a node at `base`.
    static func offset<Node>(_ keyPath: PartialKeyPath<Node>, at base: Int) throws -> Int {
        guard let offset = MemoryLayout<Node>.offset(of: keyPath) else {
            throw ModelQueryError("\(keyPath) is not a stored property")
        }
        return base + offset
    }

    /// The step that binds the closure variable `variable` of a node at `base`.
    static func binding<Node, Output>(_ variable: KeyPath<Node, PredicateExpressions.Variable<Output>>, at base: Int) throws -> Step {
        .bind(try offset(\PredicateExpressions.Variable<Output>.key, at: offset(variable, at: base)))
    }

    /// Gives `reader` the elements of the tree at `root` in the order its walk would.
    func run(on root: UnsafeRawPointer, _ reader: inout PredicateShapeReader) throws {
        try steps.withUnsafeBufferPointer { steps in
            for step in steps {
                switch step {
                case .use(let offset):
                    reader.use(root.load(fromByteOffset: offset, as: PredicateExpressions.VariableID.self))
                case .bind(let offset):
                    reader.bind(root.load(fromByteOffset: offset, as: PredicateExpressions.VariableID.self))
                case .keyPath(let offset):
                    reader.keyPath(root.load(fromByteOffset: offset, as: AnyKeyPath.self))
                case .capture(let offset, let read):
                    reader.capture(try read(root + offset))
                case .mark(let offset, let read):
                    reader.mark(read(root + offset))
                }
                guard reader.matches else { return }
            }
        }
    }
}
