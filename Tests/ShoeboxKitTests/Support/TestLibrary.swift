import Foundation
import XCTest
@testable import ShoeboxKit

/// A library folder in a temporary directory: originals/ with read-only files,
/// and a real SQLite catalog (LIBRARY/catalog.sqlite) listing them.
final class TestLibrary {
    let root: String
    let catalog: SQLiteCatalog

    init(_ test: XCTestCase) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-lib-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/originals", withIntermediateDirectories: true)
        catalog = try SQLiteCatalog(path: root + "/catalog.sqlite")
        let root = root
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Where to write a new original before `add` records it.
    func prepare(_ relative: String) throws -> String {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        return path
    }

    /// Makes the file read-only and records it in the catalog.
    @discardableResult
    func add(_ relative: String, takenAt: String? = nil, make: String? = nil, model: String? = nil,
             latitude: Double? = nil, longitude: Double? = nil) throws -> OriginalRecord {
        let path = root + "/" + relative
        let sum = try ImageFixtures.run("sha256sum", [path]).prefix(64)
        chmod(path, 0o444)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        let record = OriginalRecord(sha256: String(sum), path: relative, bytes: size, contentType: "image/jpeg",
                                    takenAt: takenAt, make: make, model: model, gpsLatitude: latitude,
                                    gpsLongitude: longitude, addedAt: "2024-05-02T00:00:00Z")
        try catalog.insertOriginal(record)
        return record
    }

    /// Deletes an original's file (its folder stays writable, as in a library).
    func deleteOriginalFile(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: root + "/" + relative)
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + relative) }

    func modificationTime(_ relative: String) throws -> Date {
        try FileManager.default.attributesOfItem(atPath: root + "/" + relative)[.modificationDate] as! Date
    }
}
