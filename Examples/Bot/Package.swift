// swift-tools-version: 6.1
import PackageDescription

// A server-side Swift bot built on Carillon as a dependency, the way an app outside this repository would use it
// (here by path; elsewhere `.package(url: "https://github.com/...", from: "...")`).
let package = Package(
    name: "RosterBot",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "carillon", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RosterBot",
            dependencies: [
                .product(name: "Carillon", package: "carillon"),
                .product(name: "CarillonControlClient", package: "carillon"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
