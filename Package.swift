// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

// Layers, each knowing only the one below it:
//   TroveStorage (pages, B+trees, transactions) <- Trove (objects, schema, query)
//   <- TroveShell (argv, REPL, formatters) <- trove (main.swift only).
let package = Package(
    name: "Trove",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TroveStorage", targets: ["TroveStorage"]),
        .library(name: "Trove", targets: ["Trove"]),
        .library(name: "TrovePostgres", targets: ["TrovePostgres"]),
        .library(name: "TroveModels", targets: ["TroveModels"]),
        .executable(name: "trove", targets: ["trove"]),
    ],
    dependencies: [
        // AES-GCM page sealing and HKDF for encryption at rest.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // Lock-free reader slots in the lock file shared between processes (UnsafeAtomic over mmap'd memory).
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        // The @Model macro of TroveModels (see DEVELOPERS.md, "Typed models").
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.1"..<"604.0.0"),
    ],
    targets: [
        .target(
            name: "TroveStorage",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Atomics", package: "swift-atomics"),
                "CTroveSystem",
            ]
        ),
        // What Swift cannot spell: the prefetch instruction (scans), O_DIRECT (the commit log).
        .target(name: "CTroveSystem"),
        // MATCHES runs on the toolchain's ICU (its C API, the engine of NSRegularExpression),
        // which Foundation would link only with the rest of Foundation (see DEVELOPERS.md).
        // ICU is C++: libstdc++ again after it, for a static link that reads archives in order.
        .target(
            name: "Trove", dependencies: ["TroveStorage"],
            linkerSettings: [
                .linkedLibrary("_FoundationICU", .when(platforms: [.linux])),
                .linkedLibrary("stdc++", .when(platforms: [.linux])),
            ]
        ),
        .systemLibrary(
            name: "CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        // The PostgreSQL backend: Trove's schemas and queries on a server, through libpq,
        // which CLibPQ loads on first use (no libpq at build time; see its header for why).
        .target(name: "CLibPQ"),
        .target(name: "TrovePostgres", dependencies: ["Trove", "CLibPQ"]),
        .target(name: "TroveShell", dependencies: ["Trove", "TrovePostgres", "CLibEdit"]),
        // argv from glibc's constructor arguments, for the start-up of the static shell: the
        // executable's alone, since it replaces the runtime's accessor (see its source).
        .target(name: "CTroveArguments"),
        .executableTarget(name: "trove", dependencies: ["TroveShell", "CTroveArguments"]),
        // Models declared in Swift and queried with #Predicate, over Trove.
        .macro(
            name: "TroveMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "TroveModels", dependencies: ["Trove", "TroveMacros"]),

        // A helper process for the multi-process and kill -9 tests of the storage engine.
        .executableTarget(name: "StorageProbe", dependencies: ["TroveStorage"], path: "Tests/StorageProbe"),
        // Fixtures: a store written by format 1 (see PageChecksumTests).
        .testTarget(name: "TroveStorageTests", dependencies: ["TroveStorage", "StorageProbe", "TestRandom", "TestWaits"],
                    resources: [.copy("Fixtures")]),
        // The seeded generator of the randomized tests in every test target.
        .target(name: "TestRandom", path: "Tests/TestRandom"),
        // The budget a test waits on another process or thread within, and the waits that keep it.
        .target(name: "TestWaits", path: "Tests/TestWaits"),
        // The MATCHES patterns and subjects that ICU and PostgreSQL's translation are tested on.
        .target(name: "RegularExpressionSamples", path: "Tests/RegularExpressionSamples"),
        // The contract every Repository keeps, run by the tests of each one.
        .target(name: "RepositoryContract", dependencies: ["Trove"], path: "Tests/RepositoryContract"),
        // Schemas and objects that suites of several test targets share.
        .target(name: "TroveTestFixtures", dependencies: ["Trove"], path: "Tests/TroveTestFixtures"),
        .testTarget(name: "TroveTests", dependencies: ["Trove", "RepositoryContract", "TestRandom", "RegularExpressionSamples", "TestWaits",
                                                       "TroveTestFixtures"]),
        // The PostgreSQL server the tests run against, and a fresh schema on it for each test.
        .target(name: "PostgresTestSupport", dependencies: ["TrovePostgres", "TestWaits"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "TroveShellTests", dependencies: ["TroveShell", "TrovePostgres", "PostgresTestSupport"]),
        .testTarget(name: "TrovePostgresTests", dependencies: ["TrovePostgres", "Trove", "TroveModels", "RepositoryContract",
                                                             "RegularExpressionSamples", "PostgresTestSupport", "TroveTestFixtures"]),
        .testTarget(name: "TroveModelsTests", dependencies: ["TroveModels", "TestRandom"]),
        .testTarget(name: "TroveEndToEndTests", dependencies: ["trove", "TrovePostgres", "TroveModels", "TestWaits", "PostgresTestSupport"]),
    ]
)
