import Foundation
import XCTest
@testable import ShoeboxKit

/// A library written the way the fetch engine writes one: file published read-only,
/// journal appended, then the catalog committed.
final class VerifyTestLibrary {
    let layout: LibraryLayout
    private(set) var catalog: SQLiteCatalog?
    private let journal: Journal

    init(root: String) throws {
        layout = LibraryLayout(root: root)
        for folder in [layout.root, layout.originals, layout.staging, layout.thumbnails] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        catalog = try SQLiteCatalog(path: layout.catalog)
        journal = try Journal(path: layout.journal)
    }

    /// Closes the catalog so other code may replace it.
    func closeCatalog() {
        catalog?.close()
        catalog = nil
    }

    /// Distinct bytes per seed, starting like a JPEG so that reindex takes them for an image.
    static func bytes(_ seed: Int, count: Int = 3000) -> Data {
        var generator = seed &* 2_654_435_761 &+ 1
        return Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<(count - 4)).map { _ in
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: generator >> 33)
        })
    }

    /// Stores `data` at `path` with a source URL, as `fetch` would.
    @discardableResult
    func store(
        _ data: Data, path: String, url: String? = nil, metadata: PhotoMetadata? = nil, journaled: Bool = true,
        recordedMake: String? = nil
    ) throws -> OriginalRecord {
        let absolute = layout.absolute(path)
        try FileManager.default.createDirectory(
            atPath: (absolute as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: absolute, contents: data))
        chmod(absolute, 0o444)
        let sha = try SHA256Hasher.hashFile(atPath: absolute).sha256
        let record = OriginalRecord(
            sha256: sha, path: path, bytes: Int64(data.count), contentType: "image/jpeg",
            width: metadata?.width, height: metadata?.height, takenAt: metadata?.bestCaptureDate ?? "2024:05:01 10:00:00",
            make: recordedMake ?? metadata?.make, model: metadata?.model, lens: OriginalRecord.lens(of: metadata),
            exposure: OriginalRecord.exposure(of: metadata), gpsLatitude: metadata?.gps?.latitude,
            gpsLongitude: metadata?.gps?.longitude, gpsAltitude: metadata?.gps?.altitude,
            orientation: metadata?.orientation, addedAt: "2026-11-30T01:00:00Z")
        let source = SourceRecord(
            url: url ?? "http://127.0.0.1:9/\(path)", finalURL: "http://127.0.0.1:9/final/\(path)", sha256: sha,
            etag: "\"etag-\(sha.prefix(8))\"", lastModified: "Wed, 01 May 2024 10:00:00 GMT", httpStatus: 200,
            fetchedAt: "2026-11-30T01:00:01Z", outcome: .stored)
        if journaled { try journal.append(originals: [record], sources: [source]) }
        try catalog?.transaction {
            try catalog?.insertOriginal(record)
            try catalog?.upsertSource(source)
        }
        return record
    }

    /// Records another URL for existing content (outcome duplicate), or a failed URL.
    func recordSource(url: String, sha256: String?, outcome: FetchOutcome) throws {
        let source = SourceRecord(
            url: url, sha256: sha256, httpStatus: outcome == .failed ? 404 : 200,
            fetchedAt: "2026-11-30T01:00:02Z", outcome: outcome, reason: outcome == .failed ? "HTTP 404" : nil)
        try journal.append([.sourceRecorded(source)])
        try catalog?.upsertSource(source)
    }

    @discardableResult
    func addThumbnail(for original: OriginalRecord, size: String = "256") throws -> ThumbnailRecord {
        let path = "thumbnails/\(size)/\(original.sha256).jpg"
        let absolute = layout.absolute(path)
        try FileManager.default.createDirectory(
            atPath: (absolute as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: absolute, contents: Data("thumb".utf8)))
        let record = ThumbnailRecord(
            originalSHA256: original.sha256, size: size, path: path, format: "jpeg", width: 256, height: 192,
            bytes: 5, createdAt: "2026-11-30T01:00:03Z")
        try journal.append([.thumbnailRecorded(record)])
        try catalog?.upsertThumbnail(record)
        return record
    }

    /// Everything the catalog holds, for comparing a rebuilt catalog with the original one.
    static func dump(_ path: String) throws -> ([OriginalRecord], [SourceRecord], [ThumbnailRecord]) {
        let catalog = try SQLiteCatalog(path: path, readOnly: true)
        defer { catalog.close() }
        return (try catalog.allOriginals(), try catalog.allSources(), try catalog.allThumbnails())
    }
}

/// Byte surgery on library files, as bit rot or a careless user would do it.
enum Damage {
    static func flipByte(_ path: String, at offset: Int = 100) throws {
        chmod(path, 0o644)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[offset] ^= 0x01
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o444)
    }

    static func truncate(_ path: String, to size: Int) throws {
        chmod(path, 0o644)
        XCTAssertEqual(Glibc.truncate(path, off_t(size)), 0)
        chmod(path, 0o444)
    }

    /// Writes a file named by exact bytes (a decomposed or non-UTF-8 name, as a copy from
    /// macOS or an old archive leaves it), bypassing any String conversion.
    static func writeFile(named path: [UInt8], in root: String, contents: Data) {
        let absolute = Array(root.utf8) + [UInt8(ascii: "/")] + path + [0]
        let fd = absolute.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_TRUNC, 0o444) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0, String(cString: strerror(errno)))
        contents.withUnsafeBytes { XCTAssertEqual(write(fd, $0.baseAddress, $0.count), $0.count) }
        close(fd)
    }
}
