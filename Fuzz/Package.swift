// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Trove, kept out of the root package because they are built with
// `-sanitize=fuzzer,address` (see README.md). Each fuzzed entry point is an executable target
// whose main.swift hands control to libFuzzer through CFuzzerDriver.
let package = Package(
    name: "TroveFuzz",
    dependencies: [
        .package(name: "Trove", path: ".."),
    ],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "FuzzQueryParser",
            dependencies: ["CFuzzerDriver", .product(name: "Trove", package: "Trove")]
        ),
        .executableTarget(
            name: "FuzzStorageOpen",
            dependencies: ["CFuzzerDriver", .product(name: "TroveStorage", package: "Trove")]
        ),
    ]
)
