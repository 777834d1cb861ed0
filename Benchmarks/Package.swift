// swift-tools-version:6.0
import PackageDescription

// Peer comparisons: TroveStorage against LMDB and SQLite on redb's benchmark workloads
// (TroveBench), and the Trove object layer against SQLite's C API and GRDB (ObjectBench).
// Its own package so the root build and `make test` never compile or link the peers.
let package = Package(
    name: "TroveBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Trove", path: ".."),
        // ObjectBench's third peer: Codable records over SQLite, the idiomatic Swift way.
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // What both benchmarks share: the seeded generator, errors, file sizes, SQLite calls.
        .target(name: "BenchSupport", dependencies: ["CSQLite"]),
        .executableTarget(
            name: "TroveBench",
            dependencies: [
                "BenchSupport",
                .product(name: "TroveStorage", package: "Trove"),
                "CLMDB",
                "CSQLite",
            ]
        ),
        // Trove's PostgreSQL backend against the same SQL through libpq (and the shell against psql).
        .executableTarget(name: "PostgresBench", dependencies: [.product(name: "TrovePostgres", package: "Trove")]),
        .executableTarget(
            name: "ObjectBench",
            dependencies: [
                "BenchSupport",
                .product(name: "Trove", package: "Trove"),
                .product(name: "TroveModels", package: "Trove"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLite",
            ]
        ),
    ]
)
