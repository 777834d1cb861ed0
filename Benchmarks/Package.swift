// swift-tools-version:6.0
import PackageDescription

// Peer comparison of TroveStorage against LMDB and SQLite on redb's benchmark workloads.
// Its own package so the root build and `make test` never compile or link the peers.
let package = Package(
    name: "TroveBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Trove", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "TroveBench",
            dependencies: [
                .product(name: "TroveStorage", package: "Trove"),
                "CLMDB",
                "CSQLite",
            ]
        ),
    ]
)
