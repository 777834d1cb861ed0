// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Trove. Kept out of the root package because every target here is
// built with `-sanitize=fuzzer,address`, which would break ordinary builds. Add a target per
// fuzzed entry point; each one depends on the root package's products.
let package = Package(
    name: "TroveFuzz",
    dependencies: [
        .package(name: "Trove", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "FuzzQueryParser",
            dependencies: [.product(name: "Trove", package: "Trove")]
        ),
    ]
)
