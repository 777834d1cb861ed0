import Foundation
import Testing

/// The misuses of the typed API that the compiler rejects, shown by compiling them: each
/// snippet is type-checked by `swiftc` against the modules of this build (and the `@Model`
/// plugin), next to models that compile, and must fail with the diagnostic that names it.
@Suite(.serialized) struct CompileTimeSafetyTests {
    /// Models and uses that compile: what each misuse is a wrong variant of.
    static let models = """
        @Model struct Owner {
            @Attribute(.primaryKey) var id: Int
            @Attribute(.indexed) var name: String = ""
            var nickname: String?
            var tags: [String] = []
            var pets: [Pet] = []
        }

        @Model struct Pet {
            @Attribute(.primaryKey) var id: Int
            var name: String = ""
            var born: Date = Date(timeIntervalSince1970: 0)
            var weight: Double?
            @LinkingObjects(\\Owner.pets) var owners: [Owner] = []
        }

        @Model final class Keeper {
            @Attribute(.primaryKey) let id: Int
            var name: String = ""
            var pet: Pet?
            var pets: [Pet] = []
            @Transient var selected = false

            init(id: Int) { self.id = id }
        }

        @Model final class Tally {
            @Attribute(.primaryKey) var key: String = ""
            var count: Int = 0
        }

        struct NotStorable: Codable {}

        func classUses(_ snapshot: Snapshot, _ tx: Transaction) throws {
            let keeper = try tx.getOrCreate(Keeper(id: 1))
            _ = try tx.update(keeper) { $0.name = "b"; $0.pet?.name = "c" }
            _ = try snapshot.objects(Keeper.self, where: { $0.pet.name == "Rex" && $0.pets.count > 1 }, sortBy: [.init(\\.pet?.name)])
            _ = try snapshot.objects(Keeper.self, where: #Predicate { $0.pets.contains { $0.name == "Rex" } })
            try tx.insert(Tally())
        }

        func uses(_ snapshot: Snapshot, _ tx: Transaction, _ owner: Owner) throws {
            let minimum = 3
            _ = try snapshot.objects(Owner.self, where: #Predicate { $0.id > minimum && $0.name.contains("a") },
                                     sortBy: [.init(\\.name), .init(\\.nickname, order: .reverse)])
            _ = try snapshot.objects(Owner.self, where: #Predicate { $0.nickname == nil || $0.pets.contains { $0.name == "Rex" } })
            _ = try snapshot.objects(Owner.self).sum(\\.id)
            _ = try snapshot.objects(Owner.self, where: { $0.id > minimum && $0.pets.name == "Rex" && $0.nickname == nil || $0.tags.contains("a") })
            _ = try snapshot.objects(Owner.self, where: { $0.pets.born.max > Date() && $0.pets.weight.sum > 1 || $0.pets.count > 2 })
            // Each form of a call picks one overload of `objects`: none is ambiguous.
            _ = try snapshot.objects(Owner.self) { $0.id > minimum && $0.name == "a" }
            _ = try snapshot.objects(Owner.self, where: { $0.id > minimum }, sortBy: [.init(\\.name)], offset: 1)
            _ = try snapshot.objects(Owner.self, where: nil, limit: 2)
            _ = try snapshot.objects(Owner.self, sortBy: [.init(\\.name)], offset: 1, limit: 2)
            let optional: Predicate<Owner>? = #Predicate { $0.id > minimum }
            _ = try snapshot.objects(Owner.self, where: optional, sortBy: [.init(\\.name)])
            let fetch: (Owner.Type, Predicate<Owner>, [ModelSortDescriptor<Owner>], Int, Int?) throws -> ModelResults<Owner> = snapshot.objects
            _ = try fetch(Owner.self, #Predicate { $0.id > minimum }, [], 0, nil)
            _ = try [Owner.self].map { try snapshot.objects($0) }
            _ = try snapshot.objects(Pet.self).min(\\.born)
            _ = try snapshot.objects(Pet.self).sum(\\.weight)
            _ = try snapshot.objects(Pet.self).grouped(by: \\.name, select: [.property(\\.name), .count, .max(\\.born), .average(\\.weight).named("w")])
            let _: [(String, String?)] = try snapshot.objects(Owner.self).select(\\.name, \\.nickname)
            let _: [(String, Int, Date?, Double?)] = try snapshot.objects(Pet.self).grouped(by: \\.name, aggregating: .count, .max(\\.born), .average(\\.weight))
            try tx.insert(owner)
            try tx.append(Pet(id: 1), to: \\.pets, of: owner)
            try tx.append("x", to: \\.tags, of: owner)
            try tx.update(owner) { $0.name = "b" }
        }
        """

    /// A misuse: code beside ``models`` and a part of the diagnostic it must give. It is
    /// compiled as its own file, `Misuse<id>.swift`, and the types it declares have names
    /// starting with `Misuse<id>`, so that every error (one in a macro expansion too) names it.
    struct Misuse: CustomTestStringConvertible, Sendable {
        var name: String
        var code: String
        var diagnostic: String
        var testDescription: String { name }

        /// A misuse in the body of a function with a snapshot, a transaction and an owner.
        static func use(_ name: String, _ statement: String, _ diagnostic: String) -> Misuse {
            Misuse(name: name, code: "func misuse_ID(_ snapshot: Snapshot, _ tx: Transaction, _ owner: Owner) throws {\n    \(statement)\n}",
                   diagnostic: diagnostic)
        }
    }

    static let misuses: [Misuse] = [
        .use("a misspelt property in a predicate", #"let p = #Predicate<Owner> { $0.nmae == "x" }; _ = try snapshot.objects(Owner.self, where: p)"#,
             "has no member 'nmae'"),
        .use("a value of another type in a comparison", #"_ = try snapshot.objects(Owner.self, where: #Predicate { $0.id == "x" })"#,
             "binary operator '==' cannot be applied to operands of type 'Int' and 'String'"),
        .use("an order on an optional", #"_ = try snapshot.objects(Owner.self, where: #Predicate { $0.nickname > "a" })"#,
             "value of optional type 'String?' must be unwrapped"),
        .use("a predicate over another model", "let p = #Predicate<Owner> { $0.id > 1 }; _ = try snapshot.objects(Pet.self, where: p)",
             "cannot convert value of type 'Predicate<Owner>' to expected argument type 'Predicate<Pet>'"),
        .use("hasSuffix in a predicate", #"_ = try snapshot.objects(Owner.self, where: #Predicate { $0.name.hasSuffix("x") })"#,
             "The hasSuffix(_:) function is not supported in this predicate"),
        .use("a misspelt property in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.nmae == "x" })"#,
             "has no dynamic member 'nmae'"),
        .use("a value of another type in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.id == "x" })"#,
             "cannot convert value of type 'String' to expected argument type 'Int'"),
        // swiftc refuses the expression without naming its operands (the number's range
        // `contains` is a candidate too), so the refusal of that expression is what is
        // matched, not any error of the file.
        .use("a string comparison of a number in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.id.contains("1") })"#,
             "error: failed to produce diagnostic for expression"),
        .use("an element of another type in a list's contains", #"_ = try snapshot.objects(Owner.self, where: { $0.tags.contains(1) })"#,
             "cannot convert value of type 'Int' to expected argument type"),
        .use("a list compared as one value in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.tags == ["a"] })"#,
             "requires that '[String]' conform to 'QueryableValue'"),
        .use("a list as the operand of in in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.tags.in([["a"]]) })"#,
             "QueryableValue"),
        .use("a reference to objects that is not a call", "let fetch = snapshot.objects; _ = fetch",
             "ambiguous use of 'objects'"),
        .use("a misspelt sort key", #"_ = try snapshot.objects(Owner.self, sortBy: [ModelSortDescriptor(\Owner.nmae)])"#,
             "has no member 'nmae'"),
        .use("a sort by a property that is not Comparable", #"_ = try snapshot.objects(Owner.self, sortBy: [.init(\.tags)])"#,
             "requires that 'Array<String>' conform to 'Comparable'"),
        .use("a misspelt property in an aggregate", #"_ = try snapshot.objects(Owner.self).sum(\Owner.agee)"#,
             "has no member 'agee'"),
        .use("the sum of a property that is not numeric", #"_ = try snapshot.objects(Owner.self).sum(\.name)"#,
             "requires that 'String' conform to 'QueryableSummand'"),
        .use("the sum of a date", #"_ = try snapshot.objects(Pet.self).sum(\.born)"#,
             "requires that 'Date' conform to 'QueryableSummand'"),
        .use("the sum of a property that is not numeric in a group", #"_ = try snapshot.objects(Owner.self).grouped(by: \.name, select: [.sum(\.name)])"#,
             "requires that 'String' conform to 'QueryableSummand'"),
        .use("a misspelt key path in a typed SELECT", #"let owners = try snapshot.objects(Owner.self); _ = try owners.select(\.name, \.nmae)"#,
             "has no member 'nmae'"),
        .use("a typed SELECT's row read as other types", #"let _: [(String, String)] = try snapshot.objects(Owner.self).select(\.name, \.id)"#,
             "cannot assign value of type '[(String, Int)]' to type '[(String, String)]'"),
        .use("an optional of a typed SELECT read as a value", #"let _: [String] = try snapshot.objects(Owner.self).select(\.nickname)"#,
             "cannot assign value of type '[String?]' to type '[String]'"),
        .use("the sum of a property that is not numeric in a typed group", #"_ = try snapshot.objects(Owner.self).grouped(by: \.id, aggregating: .sum(\.name))"#,
             "requires that 'String' conform to 'QueryableSummand'"),
        .use("an average of a typed group read as a value", #"let _: [(String, Double)] = try snapshot.objects(Pet.self).grouped(by: \.name, aggregating: .average(\.weight))"#,
             "cannot assign value of type '[(String, Double?)]' to type '[(String, Double)]'"),
        .use("an aggregate of a property that is no list in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.id.sum > 3 })"#,
             "no exact matches in reference to property 'sum'"),
        .use("the sum of a date in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.pets.born.sum > Date() })"#,
             "property 'sum' requires that 'Date' conform to 'QueryableSummand'"),
        .use("the least of a string in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.pets.name.min > "a" })"#,
             "property 'min' requires that 'String' conform to 'QueryableExtremum'"),
        .use("an aggregate through two lists in a where: closure", #"_ = try snapshot.objects(Owner.self, where: { $0.pets.owners.id.sum > 3 })"#,
             "property 'sum' requires the types 'QueryReach.Many.ThroughList' (aka 'QueryReach.ManyOfMany') and 'QueryReach.Many' be equivalent"),
        .use("contains(where:) of a list through a list in a where: closure",
             #"_ = try snapshot.objects(Owner.self, where: { $0.pets.owners.contains(where: { $0.id > 3 && $0.name == "a" }) })"#,
             "referencing instance method 'contains(where:)' on 'ModelQueryExpression' requires the types 'QueryReach.One.ThroughList' (aka 'QueryReach.Many') and 'QueryReach.One' be equivalent"),
        // swiftc reports the method's constraint as the dynamic member lookup it tried next.
        .use("allSatisfy of a list through a list in a where: closure",
             #"_ = try snapshot.objects(Owner.self, where: { $0.pets.owners.allSatisfy({ $0.id > 3 }) })"#,
             "(aka 'ModelQueryExpression<Owner, Array<Owner>, QueryReach.Many>') has no dynamic member 'allSatisfy'"),
        .use("the count of a list of each object of a list in a where: closure", #"_ = try snapshot.objects(Pet.self, where: { $0.owners.pets.count > 1 })"#,
             "has no dynamic member 'count'"),
        .use("a model of another type appended to a list of links", #"try tx.append(owner, to: \.pets, of: owner)"#,
             "cannot convert value of type 'Owner' to expected argument type 'Pet'"),
        .use("a value of another type appended to a list", #"try tx.append(1, to: \.tags, of: owner)"#,
             "cannot convert value of type 'Int' to expected argument type 'String'"),
        .use("a partial update that assigns another type", #"try tx.update(owner) { $0.id = "x" }"#,
             "cannot assign value of type 'String' to type 'Int'"),
        .use("an insert of a value that is not a model", #"try tx.insert(NotStorable())"#,
             "requires that 'NotStorable' conform to 'PersistentModel'"),
        Misuse(name: "a model property of a type with no schema form",
               code: "struct Misuse_IDThing: Codable {}\n@Model struct Misuse_IDModel {\n    @Attribute(.primaryKey) var id: Int\n    var thing: Misuse_IDThing\n}",
               diagnostic: "conform to 'StorableProperty'"),
        Misuse(name: "@Model on a class that is not final",
               code: "@Model class Misuse_IDModel {\n    @Attribute(.primaryKey) var id: Int = 0\n}",
               diagnostic: "Model' final (a subclass's own properties would not be stored)"),
        Misuse(name: "@Model on an enum",
               code: "@Model enum Misuse_IDModel { case a }",
               diagnostic: "@Model applies to a struct or a final class"),
        .use("a partial update of a class model that assigns another type", #"_ = try tx.update(Tally()) { $0.count = "x" }"#,
             "cannot assign value of type 'String' to type 'Int'"),
        .use("a class model's let property changed in a partial update", #"_ = try tx.update(Keeper(id: 1)) { $0.id = 2 }"#,
             "cannot assign to property: 'id' is a 'let' constant"),
        Misuse(name: "@LinkingObjects naming a property that does not exist",
               code: "@Model struct Misuse_IDModel {\n    @Attribute(.primaryKey) var id: Int\n    @LinkingObjects(\\Owner.toys) var owners: [Owner] = []\n}",
               diagnostic: "has no member 'toys'"),
    ]

    /// The file name stem of misuse `index`: two digits, so that no stem starts another.
    static func stem(_ index: Int) -> String { "Misuse" + (index < 10 ? "0\(index)" : "\(index)") }

    /// The error lines of type-checking ``models`` and every misuse in one `swiftc` run (a run
    /// loads the modules once, which takes most of its time), by misuse; those that name no
    /// misuse under the key -1.
    static let errors = Result { () throws -> [Int: [String]] in
        var files = ["Models": models]
        for (index, misuse) in misuses.enumerated() {
            files[stem(index)] = misuse.code.replacingOccurrences(of: "_ID", with: stem(index))
        }
        var errors: [Int: [String]] = [:]
        for line in try typeCheck(files) {
            let index = misuses.indices.first { line.contains(stem($0)) } ?? -1
            errors[index, default: []].append(line)
        }
        return errors
    }

    @Test func theModelsAndUsesCompile() throws {
        let unexplained = try Self.errors.get()[-1] ?? []
        #expect(unexplained.isEmpty, "\(unexplained)")
    }

    @Test(arguments: misuses.indices) func misuseDoesNotCompile(_ index: Int) throws {
        let misuse = Self.misuses[index]
        let errors = try Self.errors.get()[index] ?? []
        #expect(errors.contains { $0.contains(misuse.diagnostic) }, "\(misuse.name) gave: \(errors)")
    }

    /// A `@Model` class with a superclass: its initializers, which `@Model` writes, use `self`
    /// without calling `super.init`, and the compiler's error (of definite initialization,
    /// after type checking) names why.
    @Test func aModelClassWithASuperclassDoesNotCompile() throws {
        let code = """
            class Base { init(x: Int) {} }
            @Model final class Derived: Base {
                @Attribute(.primaryKey) var id: Int
                init(id: Int) { self.id = id; super.init(x: 1) }
            }
            """
        let errors = try Self.typeCheck(["Derived": code], mode: ["-emit-sil", "-o", "/dev/null"])
        #expect(errors.contains { $0.contains("'self' used in method call '_modelClassMustNotHaveASuperclass' before 'super.init' call") }, "\(errors)")
    }

    /// The members `@Model` adds to a public model are the model's table and `Codable`, which
    /// users call, and the hooks of the typed API's reads and writes, whose names start with
    /// `_` so that completion and documentation leave them out.
    @Test func theHooksTheMacroWritesAreUnderscored() throws {
        let model = """
            @Model public struct Shown {
                @Attribute(.primaryKey) public var id: Int
                public var name: String = ""
                public var other: ShownToo?
            }
            @Model public struct ShownToo {
                @Attribute(.primaryKey) public var id: Int
                @LinkingObjects(\\Shown.other) public var shown: [Shown] = []
            }
            @Model public final class ShownClass {
                @Attribute(.primaryKey) public var id: Int = 0
                public var other: ShownToo?
            }
            """
        var expansions = ""
        let errors = try Self.typeCheck(["Shown": model], arguments: ["-Xfrontend", "-dump-macro-expansions"]) { expansions = $0 }
        #expect(errors.isEmpty, "\(errors)")
        let declarations = expansions.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("public ") }
        let names = declarations.map { line in
            let words = line.split(separator: " ").drop { ["public", "static"].contains($0) }
            let name = words.dropFirst().first.map(String.init) ?? ""
            return words.first == "init(from" || words.first?.hasPrefix("init(") == true ? String(words.first!) : name
        }
        let hooks = ["_chainedKeyPaths:", "_changedProperties(from", "_holdsNoClassInstance:", "_nestsNoClassInstance:", "_partialUpdate(from", "_storedEqual(_", "_writesEveryProperty:", "_writtenProperties(of", "init(_storedObject:"]
        let api = ["encode(to", "init(from", "modelProperties:"]
        #expect(names.sorted() == (hooks + api + hooks + api + hooks + api).sorted(), "\(declarations)")
    }

    /// The error lines `swiftc -typecheck` (or another `mode`) gives for `files` (by name stem,
    /// without imports), with `arguments` added; `output` is handed everything it printed.
    static func typeCheck(_ files: [String: String], arguments extra: [String] = [], mode: [String] = ["-typecheck"],
                          output report: (String) -> Void = { _ in }) throws -> [String] {
        let toolchain = try TypeCheckSetup()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (stem, code) in files.sorted(by: { $0.key < $1.key }) {
            let file = directory.appendingPathComponent(stem + ".swift")
            try Data("import Foundation\nimport Trove\nimport TroveModels\n\n\(code)\n".utf8).write(to: file)
            paths.append(file.path)
        }
        let process = Process()
        process.executableURL = toolchain.swiftc
        process.arguments = mode + ["-continue-building-after-errors", "-swift-version", "6", "-parse-as-library", "-module-name", "Checked"] + paths + toolchain.arguments + extra
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        report(text)
        let errors = text.split(separator: "\n").map(String.init).filter { $0.contains(": error: ") }
        if process.terminationStatus != 0 && errors.isEmpty {
            throw SetupError("swiftc failed with no error line (\(process.terminationStatus)):\n\(text)")
        }
        return errors
    }

    struct SetupError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Where this build keeps the modules the snippets import, and the compiler that built them.
struct TypeCheckSetup: Sendable {
    var swiftc: URL
    var arguments: [String]

    /// The modules and the `@Model` plugin are next to this test executable, in SwiftPM's
    /// bin directory; the C modules below them are found by their module maps.
    init() throws {
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var bin = executable.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: bin.appendingPathComponent("Modules/TroveModels.swiftmodule").path) {
            guard bin.pathComponents.count > 1 else {
                throw CompileTimeSafetyTests.SetupError("no Modules/TroveModels.swiftmodule above \(executable.path)")
            }
            bin = bin.deletingLastPathComponent()
        }
        let plugin = bin.appendingPathComponent("TroveMacros-tool")
        guard FileManager.default.isExecutableFile(atPath: plugin.path) else {
            throw CompileTimeSafetyTests.SetupError("no @Model plugin at \(plugin.path)")
        }
        var arguments = ["-I", bin.appendingPathComponent("Modules").path, "-load-plugin-executable", plugin.path + "#TroveMacros",
                         "-module-cache-path", bin.appendingPathComponent("ModuleCache").path]
        // The C modules: SwiftPM's generated maps in the bin directory, and the maps the C
        // targets of this package and of its dependencies' checkouts hold.
        var maps = try Self.subdirectories(of: bin).map { $0.appendingPathComponent("module.modulemap") }
        let checkouts = bin.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        for package in try [Self.packageRoot] + Self.subdirectories(of: checkouts) {
            for target in try Self.subdirectories(of: package.appendingPathComponent("Sources")) {
                maps.append(target.appendingPathComponent("module.modulemap"))
                maps.append(target.appendingPathComponent("include/module.modulemap"))
            }
        }
        for map in maps where FileManager.default.fileExists(atPath: map.path) {
            arguments += ["-Xcc", "-fmodule-map-file=" + map.path, "-Xcc", "-I" + map.deletingLastPathComponent().path]
        }
        arguments += ["-Xcc", "-I" + Self.packageRoot.appendingPathComponent("Sources/CTroveSystem/include").path]
        swiftc = try Self.swiftc()
        self.arguments = arguments
    }

    static func subdirectories(of directory: URL) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map { directory.appendingPathComponent($0) }
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The `swiftc` on PATH (the toolchain `swift test` runs from).
    static func swiftc() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CompileTimeSafetyTests.SetupError("no swiftc on PATH (\(path))")
    }
}
