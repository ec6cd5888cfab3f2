import Foundation
import ShoeboxKit
import XCTest

/// Runs `shoebox fetch --json` on URLs and parses its output.
struct FetchRunner {
    let library: URL
    let workDirectory: URL
    /// Where the originals go when not LIBRARY/originals/: every run gets its --store and
    /// credentials, and the checks below look there.
    var store: ObjectStoreBackend?
    /// The shared catalog (`--catalog postgres://…`) every run is given when not
    /// LIBRARY/catalog.sqlite: the checks below read the catalog there.
    var sharedCatalog: SharedCatalogBackend?

    /// What every run is given besides --library: its store and its catalog.
    var backendArguments: [String] { (store?.arguments ?? []) + (sharedCatalog?.arguments ?? []) }
    var backendEnvironment: [String: String] { store?.environment ?? [:] }

    init(_ test: XCTestCase) throws {
        workDirectory = try makeTemporaryDirectory(test)
        library = workDirectory.appendingPathComponent("library")
    }

    struct Output {
        var status: Int32
        var records: [[String: Any]]
        var stderr: String
        var stdout: String

        /// The record for a URL (the first one when listed more than once).
        func record(_ url: String) -> [String: Any]? {
            records.first { $0["url"] as? String == url }
        }

        func outcome(_ url: String) -> String? {
            record(url)?["outcome"] as? String
        }
    }

    /// Writes `urls` to a new list file in the work directory, one per line.
    func writeList(_ urls: [String]) throws -> URL {
        let list = workDirectory.appendingPathComponent("list-\(UUID().uuidString).txt")
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        return list
    }

    /// Writes `urls` to a list file and fetches it.
    @discardableResult
    func fetch(_ urls: [String], _ extra: [String] = [], environment: [String: String] = [:]) throws -> Output {
        try run([writeList(urls).path] + extra, environment: environment)
    }

    func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Output {
        let result = try ShoeboxProcess.run(["fetch", "--json", "--library", library.path] + backendArguments + arguments,
                                            environment: backendEnvironment.merging(environment) { $1 }, stdin: stdin)
        return Output(status: result.status, records: Self.parseLines(result.stdout), stderr: result.stderr, stdout: result.stdout)
    }

    static func parseLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits until at least `count` originals are in place (a running fetch's progress).
    func waitForStoredFiles(atLeast count: Int, timeout: Double = 30) {
        let deadline = Date().addingTimeInterval(timeout)
        let originals = library.appendingPathComponent("originals").path
        while Date() < deadline {
            let files = (FileManager.default.enumerator(atPath: originals)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }
            if files.count >= count { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The catalog the runs record in, opened to read it.
    func openCatalog(checkIntegrity: Bool = true) throws -> Catalog {
        if let sharedCatalog { return try sharedCatalog.open() }
        return try SQLiteCatalog(path: library.appendingPathComponent("catalog.sqlite").path, readOnly: true, checkIntegrity: checkIntegrity)
    }

    func contents(of relativePath: String) throws -> Data {
        if let store { return try store.contents(of: relativePath) }
        return try Data(contentsOf: library.appendingPathComponent(relativePath))
    }

    /// Every catalog row has its file with the recorded size and hash, every file
    /// under originals/ has a row, and no partial download is left in originals/.
    /// `allowStaging` (after a kill): staging files may remain, and a row's content may
    /// still be staged under its hash, waiting for the next run to publish it — with a
    /// shared catalog, a file may instead wait at a name a dead writer reserved for it
    /// (`assertLeftByADeadWriter`).
    func assertConsistent(allowStaging: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        if let store { return try assertConsistent(in: store, allowStaging: allowStaging, file: file, line: line) }
        let catalog = try openCatalog()
        defer { catalog.close() }
        var recorded: Set<String> = []
        for original in try catalog.allOriginals() {
            recorded.insert(original.path)
            var path = library.appendingPathComponent(original.path).path
            // A writer sharing its catalog publishes a batch before it commits it: its rows never wait in .tmp/.
            if allowStaging && sharedCatalog == nil && !FileManager.default.fileExists(atPath: path) {
                // Killed between the catalog commit and publishing: the complete content waits
                // under its hash in .tmp/ and the next run moves it into place.
                path = library.appendingPathComponent(".tmp/\(original.sha256).staged").path
            }
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "row without file: \(original.path)", file: file, line: line)
            if let hashed = try? SHA256Hasher.hashFile(atPath: path) {
                XCTAssertEqual(hashed.sha256, original.sha256, "hash mismatch: \(original.path)", file: file, line: line)
                XCTAssertEqual(hashed.bytes, original.bytes, "size mismatch: \(original.path)", file: file, line: line)
            }
        }
        let originals = library.appendingPathComponent("originals")
        let files = (FileManager.default.enumerator(atPath: originals.path)?.allObjects as? [String] ?? [])
            .filter { !isDirectory(originals.appendingPathComponent($0)) }
            .map { "originals/" + $0 }
        for path in files where !recorded.contains(path) {
            try assertLeftByADeadWriter(path, allowStaging: allowStaging, what: "file without row", file: file, line: line) {
                try SHA256Hasher.hashFile(atPath: library.appendingPathComponent(path).path).sha256
            }
        }
        if !allowStaging {
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent(".tmp").path)) ?? []
            XCTAssertEqual(staging, [], "leftover staging files", file: file, line: line)
        }
    }

    /// A file or object at `path` without a row is a failure, except after a kill with a shared
    /// catalog: a writer killed between publishing a batch and committing it leaves what it
    /// published at names still reserved for it, for this content, until a writer starting
    /// once the reservation is stale removes them (`LibraryRecovery.run(store:sharedCatalog:)`).
    func assertLeftByADeadWriter(_ path: String, allowStaging: Bool, what: String, file: StaticString, line: UInt,
                                 sha256: () throws -> String) throws {
        guard allowStaging, let reserved = try sharedCatalog?.reservations()[path] else {
            return XCTFail("\(what): \(path)", file: file, line: line)
        }
        XCTAssertEqual(try sha256(), reserved, "\(what), other bytes than it is reserved for: \(path)", file: file, line: line)
    }

    private func isDirectory(_ url: URL) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &flag) && flag.boolValue
    }
}

extension SHA256Hasher {
    /// The SHA-256 of `data`, in lower-case hex.
    static func hex(of data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }
}
