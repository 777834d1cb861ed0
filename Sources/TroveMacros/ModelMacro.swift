import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a struct or a final class a `PersistentModel` whose property table lists
/// its stored properties by name and key path, with the attributes written on them.
///
/// The table holds no types: each entry is built by a generic initializer, so the schema type
/// of a property comes from its Swift type through `StorableProperty`, checked by the
/// compiler. The extension also holds the `Codable` conformance over the stored properties
/// (`@Transient` ones keep their initial value), `init(_storedObject:)`, which reads a stored
/// object property by property in the table's order, and the property-by-property comparison
/// of partial updates (`_changedProperties(from:to:)`, `_storedEqual`, and `_partialUpdate(from:to:)`,
/// which reads the key and each changed value from its property) and the property values of
/// writes (`_writtenProperties(of:)`), and the table's key paths from an optional of the type
/// (`_chainedKeyPaths`, `\Project?.?.title`), which name the key paths through optional links
/// to it (`\Task.project?.title`): the compiler synthesizes
/// `Codable` only in the type's own file, and an initializer in the struct itself would take
/// away its memberwise one. A class's two initializers are members of the class (the member
/// role): an extension of a class can declare only convenience initializers.
public struct ModelMacro: ExtensionMacro, MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let model = try ModelDeclaration(declaration)
        let stored = model.stored
        // The type as the extension names it (`Outer.Dog` for a nested model): a bare `Dog` in
        // the extension would find a top-level type of that name first.
        let typeName = type.trimmedDescription
        let access = model.access
        let entries = stored.map { "    " + $0.entry(root: typeName) + "," }
        let keys = stored.isEmpty ? "" : "case " + stored.map(\.name).joined(separator: ", ")
        let compared = stored.enumerated().filter { $0.element.linkingOrigin == nil }
        let changes = compared.map { index, property in
            "    if !_storedPropertyEqual(old.\(property.name), new.\(property.name)) { changed.append(\(index)) }"
        }
        // A partial update's key and changed values, read straight from each property (a
        // model with no primary key updates through the table, which throws for it).
        var partialUpdate = ""
        if let key = compared.first(where: { $0.element.isPrimaryKey })?.element {
            let updates = compared.map { _, property in
                property.isPrimaryKey
                    ? "    if !_storedPropertyEqual(old.\(key.name), new.\(key.name)) { throw TroveModels._ModelPartialUpdate.primaryKeyChanged(\"\(key.storedName)\", of: modelName) }"
                    : "    if !_storedPropertyEqual(old.\(property.name), new.\(property.name)) { update.set(\"\(property.storedName)\", try new.\(property.name)._writtenValue()) }"
            }
            partialUpdate = """
                \(access)static func _partialUpdate(from old: \(typeName), to new: \(typeName)) throws -> TroveModels._ModelPartialUpdate? {
                    \(compared.count > 1 ? "var" : "let") update = TroveModels._ModelPartialUpdate(primaryKey: try old.\(key.name)._writtenValue())
                \(updates.joined(separator: "\n"))
                    return update
                }
                """
        }
        let written = compared.map { "\"\($0.element.storedName)\": try value.\($0.element.name)._writtenValue()" }
        let equalities = compared.map { "_storedPropertyEqual(a.\($0.element.name), b.\($0.element.name))" }
        // A class compares by identity first, and through its cycles once (see
        // `_storedInstancesEqual`): links between instances can come back to where they began.
        let conjunction = equalities.isEmpty ? "true" : equalities.joined(separator: " && ")
        let storedEqual = model.isClass ? "_storedInstancesEqual(a, b) { \(conjunction) }" : conjunction
        // Rooted at a plain name: swift-syntax misreads `\Outer.Dog?.?.id`, and `\Self?.?.id` in
        // a class is a key path whose type the runtime cannot read.
        let chained = stored.map { "\\_ModelType?.?.\($0.name)" }
        // A class holds itself; whether a struct's links reach a class (for writes), or a class
        // instance at all (for reads), is found through the property tables, once: the macro
        // sees only the linked types' names.
        let holds = model.isClass
            ? "\(access)static var _holdsNoClassInstance: Bool { false }\n\(access)static var _nestsNoClassInstance: Bool { false }"
            : "\(access)static let _holdsNoClassInstance: Bool = _reachesNoClassInstance()\n"
                + "\(access)static let _nestsNoClassInstance: Bool = _reachesNoClassModel()"
        let encodes = stored.filter { $0.linkingOrigin == nil }.map { "    try container.encode(self.\($0.name), forKey: .\($0.name))" }
        var members = """
            \(access)static let modelProperties: [TroveModels.ModelProperty<\(typeName)>] = [
            \(entries.joined(separator: "\n"))
            ]
            typealias _ModelType = \(typeName)
            enum _ModelCodingKeys: String, CodingKey {
            \(keys)
            }
            \(model.isClass ? "" : model.initializers())
            \(access)static func _changedProperties(from old: \(typeName), to new: \(typeName)) throws -> [Int] {
            \(changes.isEmpty ? "    []" : (["    var changed: [Int] = []"] + changes + ["    return changed"]).joined(separator: "\n"))
            }
            \(partialUpdate)
            \(access)static func _writtenProperties(of value: \(typeName)) throws -> TroveModels._ModelPropertyValues {
                [\(written.isEmpty ? ":" : written.joined(separator: ", "))]
            }
            \(access)static var _writesEveryProperty: Bool { true }
            \(access)static var _chainedKeyPaths: [Swift.AnyKeyPath] {
                [\(chained.joined(separator: ", "))]
            }
            \(holds)
            \(access)static func _storedEqual(_ a: \(typeName), _ b: \(typeName)) -> Bool {
                \(storedEqual)
            }
            \(access)func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: _ModelCodingKeys.self)
            \(encodes.joined(separator: "\n"))
            }
            """
        if let name = Self.modelName(node) {
            members += "\n\(access)static var modelName: String { \(name) }"
        }
        // The conformances the type lacks, each named: one implied by PersistentModel alone is
        // not seen when the compiler checks a macro's extension.
        let conformances = protocols.map(\.trimmedDescription)
        let inheritance = conformances.isEmpty ? "" : ": " + conformances.joined(separator: ", ")
        let ext: DeclSyntax = """
            extension \(type.trimmed)\(raw: inheritance) {
            \(raw: members)
            }
            """
        return [ext.cast(ExtensionDeclSyntax.self)]
    }

    /// A final class's initializers, which an extension cannot declare (there they would
    /// be convenience initializers, with no designated one of the class's to call), and the
    /// `init()` Swift gives a class whose properties all have initial values and that
    /// declares no initializer, which declaring these would take away.
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // An error is the extension role's to report, once.
        guard let model = try? ModelDeclaration(declaration), model.isClass else { return [] }
        var members = [model.initializers()]
        if model.keepsDefaultInitializer { members.append("init() {}") }
        return members.map { DeclSyntax(stringLiteral: $0) }
    }

    /// `public ` or `package ` when the type is, so the table is as visible as the type.
    static func access(of modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// The string literal of `@Model("Name")`, as written.
    static func modelName(_ node: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = node.arguments, let first = arguments.first else { return nil }
        return first.expression.trimmedDescription
    }
}

/// The struct or final class `@Model` is attached to, and its stored properties.
struct ModelDeclaration {
    var isClass: Bool
    var access: String
    /// The stored properties that are not `@Transient`.
    var stored: [StoredProperty]
    /// A class that declares no initializer and whose stored properties all have initial
    /// values (or are optional `var`s): Swift gives it `init()`.
    var keepsDefaultInitializer = false

    init(_ declaration: some DeclGroupSyntax) throws {
        let members: MemberBlockSyntax
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            isClass = false
            access = ModelMacro.access(of: structDecl.modifiers)
            members = structDecl.memberBlock
        } else if let classDecl = declaration.as(ClassDeclSyntax.self) {
            let name = classDecl.name.text
            // A subclass of a model would be a second model stored as the first, and a model
            // that is a subclass would leave its superclass's properties unstored.
            guard classDecl.modifiers.contains(where: { $0.name.tokenKind == .keyword(.final) }) else {
                throw MacroError("@Model applies to a final class: mark '\(name)' final (a subclass's own properties would not be stored)")
            }
            isClass = true
            access = ModelMacro.access(of: classDecl.modifiers)
            members = classDecl.memberBlock
        } else {
            throw MacroError("@Model applies to a struct or a final class")
        }
        let all = try StoredProperty.all(in: members)
        stored = all.filter { !$0.isTransient }
        keepsDefaultInitializer = isClass && all.allSatisfy(\.hasInitialValue)
            && !members.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
    }

    /// `init(from:)` and `init(_storedObject:)`, which set each stored property (in a class,
    /// then check that it has no superclass).
    func initializers() -> String {
        let decodes = stored.map {
            "    self.\($0.name) = try container.\($0.linkingOrigin == nil ? "_decodeModelProperty" : "_decodeLinkingObjects")(forKey: .\($0.name))"
        }
        let reads = stored.enumerated().map { index, property in
            "    self.\(property.name) = try _storedObject.\(property.linkingOrigin == nil ? "read" : "linkingObjects")(\(index))"
        }
        // In a subclass, `self` cannot be used before `super.init`, which these do not call:
        // the compiler's error names the method.
        let rootCheck = isClass ? ["    self._modelClassMustNotHaveASuperclass()"] : []
        return """
            \(access)init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: _ModelCodingKeys.self)
            \((decodes + rootCheck).joined(separator: "\n"))
            }
            @_documentation(visibility: internal)
            \(access)init(_storedObject: TroveModels._ModelReader) throws {
            \((reads + rootCheck).joined(separator: "\n"))
            }
            """
    }
}

/// A stored property of a `@Model` type and the attributes written on it.
struct StoredProperty {
    /// The name as Swift code writes it: `` `in` `` for a keyword.
    var name: String
    var isTransient = false
    var isPrimaryKey = false
    var isIndexed = false
    var originalName: String?
    /// The origin property of `@LinkingObjects(\Origin.property)`.
    var linkingOrigin: String?
    /// A literal initial value, which is also the schema's default.
    var defaultLiteral: String?
    /// An initial value that is not a literal (`.happy`, `Date()`), which the schema cannot
    /// hold: the table keeps it as a closure, for a model created from its primary key alone.
    var initialExpression: String?

    /// Whether the declaration gives it a value: an initial value, or nil for an optional `var`.
    var hasInitialValue = false

    static func all(in block: MemberBlockSyntax) throws -> [StoredProperty] {
        var out: [StoredProperty] = []
        for member in block.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
                continue
            }
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                if let accessors = binding.accessorBlock, !Self.isObserversOnly(accessors) { continue }
                var property = StoredProperty(name: pattern.identifier.trimmedDescription)
                // A `let` with a value is never decoded: it is the same in every instance.
                if variable.bindingSpecifier.tokenKind == .keyword(.let), binding.initializer != nil { continue }
                try property.readAttributes(variable.attributes)
                if !property.isTransient && binding.typeAnnotation == nil {
                    throw MacroError("@Model needs the type of '\(property.name)' written out (var \(property.name): Type)")
                }
                if property.isTransient && binding.initializer == nil {
                    throw MacroError("a @Transient property needs an initial value: '\(property.name)' is not decoded")
                }
                property.hasInitialValue = binding.initializer != nil
                    || (variable.bindingSpecifier.tokenKind == .keyword(.var) && Self.isOptional(binding.typeAnnotation?.type))
                if let value = binding.initializer?.value, Self.isLiteral(value) {
                    property.defaultLiteral = value.trimmedDescription
                } else if let value = binding.initializer?.value, !Self.isAbsentValue(value),
                          !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
                    // The table's closure is static: a `lazy` initial value, the one kind that
                    // may read the instance, cannot be evaluated there.
                    property.initialExpression = value.trimmedDescription
                }
                out.append(property)
            }
        }
        return out
    }

    /// `T?` or `T!`: the optionals Swift starts at nil (`Optional<T>` spelt out it does not).
    static func isOptional(_ type: TypeSyntax?) -> Bool {
        type?.is(OptionalTypeSyntax.self) == true || type?.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) == true
    }

    static func isObserversOnly(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let list) = block.accessors else { return false }
        return list.allSatisfy { $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet) }
    }

    /// `nil` and `[]`: what a property created without a value holds already.
    static func isAbsentValue(_ e: ExprSyntax) -> Bool {
        e.is(NilLiteralExprSyntax.self) || e.as(ArrayExprSyntax.self)?.elements.isEmpty == true
    }

    /// Literals a schema default can hold; `nil` and `[]` are what an absent value already is.
    static func isLiteral(_ e: ExprSyntax) -> Bool {
        if e.is(IntegerLiteralExprSyntax.self) || e.is(FloatLiteralExprSyntax.self) || e.is(BooleanLiteralExprSyntax.self) {
            return true
        }
        if let s = e.as(StringLiteralExprSyntax.self) {
            return s.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = e.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        return false
    }

    mutating func readAttributes(_ attributes: AttributeListSyntax) throws {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let name = attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
            switch name {
            case "Transient":
                isTransient = true
            case "Attribute":
                guard case .argumentList(let arguments) = attribute.arguments else { continue }
                for argument in arguments {
                    if argument.label?.text == "originalName" {
                        originalName = argument.expression.trimmedDescription
                        continue
                    }
                    let option = argument.expression.trimmedDescription.split(separator: ".").last.map(String.init)
                    switch option {
                    case "primaryKey": isPrimaryKey = true
                    case "indexed": isIndexed = true
                    default: throw MacroError("unknown @Attribute option '\(argument.expression.trimmedDescription)'")
                    }
                }
            case "LinkingObjects":
                guard case .argumentList(let arguments) = attribute.arguments,
                      let path = arguments.first?.expression.as(KeyPathExprSyntax.self),
                      let last = path.components.last?.component.as(KeyPathPropertyComponentSyntax.self)
                else {
                    throw MacroError("@LinkingObjects takes the key path of the link that points here: @LinkingObjects(\\Dog.owner)")
                }
                linkingOrigin = last.declName.baseName.text
            default:
                continue
            }
        }
    }

    /// The name the schema stores: `in` for `` `in` ``, as the coding key's.
    var storedName: String { Self.unescaped(name) }

    /// `name` without the backticks that make a keyword a Swift identifier.
    static func unescaped(_ name: String) -> String {
        name.count > 1 && name.hasPrefix("`") && name.hasSuffix("`") ? String(name.dropFirst().dropLast()) : name
    }

    /// The `ModelProperty` initializer call of the property table.
    func entry(root: String) -> String {
        let keyPath = "\\\(root).\(name)"
        if let origin = linkingOrigin {
            return ".init(\"\(storedName)\", linkingObjects: \(keyPath), origin: \"\(Self.unescaped(origin))\")"
        }
        var arguments = ["\"\(storedName)\"", keyPath]
        if isPrimaryKey { arguments.append("primaryKey: true") }
        if isIndexed { arguments.append("indexed: true") }
        // A primary key's initial value is only Swift's: a schema default would give every
        // object created without one the same key.
        if let defaultLiteral, !isPrimaryKey { arguments.append("default: \(defaultLiteral)") }
        if let originalName { arguments.append("originalName: \(originalName)") }
        if let initialExpression, !isPrimaryKey { arguments.append("initial: { \(initialExpression) }") }
        return ".init(\(arguments.joined(separator: ", ")))"
    }
}

/// Attributes read by `@Model`; they expand to nothing themselves.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

struct MacroError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
