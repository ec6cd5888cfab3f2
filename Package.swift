// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Shoebox",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "shoebox", targets: ["shoebox"]),
        .library(name: "ShoeboxKit", targets: ["ShoeboxKit"]),
    ],
    targets: [
        // System libraries, found through pkg-config and provided by Debian packages.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The one C shim: typed wrappers for the variadic C calls Swift cannot make.
        .target(name: "CShim", dependencies: ["CCurl", "CExif", "CVips"]),
        // All behaviour: fetch, library, catalog, metadata, thumbnails, verify.
        .target(
            name: "ShoeboxKit",
            dependencies: ["CShim", "CCurl", "CExif", "CVips", "CSQLite", "CCrypto"]
        ),
        // Argument parsing and printing only.
        .target(name: "ShoeboxCLI", dependencies: ["ShoeboxKit"]),
        .executableTarget(name: "shoebox", dependencies: ["ShoeboxCLI"]),
        .testTarget(name: "ShoeboxKitTests", dependencies: ["ShoeboxKit", "CShim", "CExif", "CVips"]),
        .testTarget(
            name: "ShoeboxCLITests",
            dependencies: ["ShoeboxCLI", "ShoeboxKit"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
