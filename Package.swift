// swift-tools-version:6.0
import Foundation
import PackageDescription

/// The -I flags of a pkg-config package. libvips is used through its headers
/// only: Sources/CShim/vips.c opens the library with dlopen on first use, so it
/// must not be linked (a system-library target would link it, and its hundred
/// dependencies cost every shoebox process 25 ms at start).
func headerSearchFlags(pkgConfig package: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags", package]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return [] }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.hasPrefix("-I") }
}

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
        // Exempi (Adobe's XMP Toolkit in C): XMP packets in JPEG, PNG and WebP files.
        .systemLibrary(name: "CExempi", pkgConfig: "exempi-2.0", providers: [.apt(["libexempi-dev"])]),
        // libiptcdata: the IPTC record of a JPEG's Photoshop (APP13) resources.
        .systemLibrary(name: "CIPTC", pkgConfig: "libiptcdata", providers: [.apt(["libiptcdata0-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The PostgreSQL client library, for a catalog shared by several machines (PostgresCatalog).
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The one C shim: typed wrappers for the variadic C calls Swift cannot make.
        // libvips (libvips-dev) and LibRaw (libraw-dev) are opened there with dlopen on first use; zlib
        // (zlib1g-dev) inflates PNG text chunks, and with brotli (libbrotli-dev)
        // decodes Content-Encoding, whose premature end libcurl 7.88 does not report.
        .target(
            name: "CShim", dependencies: ["CCurl", "CExif"],
            cSettings: [.unsafeFlags(headerSearchFlags(pkgConfig: "vips") + headerSearchFlags(pkgConfig: "libraw_r"))],
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("brotlidec")]
        ),
        // All behaviour: fetch, library, catalog, metadata, thumbnails, verify.
        .target(
            name: "ShoeboxKit",
            dependencies: ["CShim", "CCurl", "CExif", "CExempi", "CIPTC", "CSQLite", "CCrypto", "CPostgres"]
        ),
        // Argument parsing and printing only.
        .target(name: "ShoeboxCLI", dependencies: ["ShoeboxKit"]),
        .executableTarget(name: "shoebox", dependencies: ["ShoeboxCLI"]),
        // Shared by the test targets: servers tests run against (OpenStack Swift with s3api,
        // PostgreSQL 15).
        .target(
            name: "ShoeboxTestSupport", dependencies: ["ShoeboxKit"], path: "Tests/ShoeboxTestSupport",
            resources: [
                .copy("Resources/swift-s3"), .copy("Resources/postgres"), .copy("Resources/scripted-http"),
                .copy("Resources/Fixtures"),
            ]
        ),
        .testTarget(name: "ShoeboxKitTests", dependencies: ["ShoeboxKit", "CShim", "CExif", "ShoeboxTestSupport"]),
        .testTarget(
            name: "ShoeboxCLITests",
            dependencies: ["ShoeboxCLI", "ShoeboxKit", "ShoeboxTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
