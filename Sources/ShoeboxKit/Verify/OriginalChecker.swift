import Foundation

/// Reads the EXIF summary of a file (`MetadataReader.read(path:)` in production).
public typealias MetadataReading = @Sendable (_ path: String) throws -> PhotoMetadata

/// Checks one catalogued original against its file: present, read-only, same size,
/// same SHA-256 and same EXIF summary (size only when `quick`).
struct OriginalChecker: Sendable {
    let layout: LibraryLayout
    let quick: Bool
    let readMetadata: MetadataReading?
    /// Hashes with a `.tmp/<sha256>.staged` file: recorded but not yet moved into place.
    let staged: Set<String>
    /// A store whose originals are not local files (an object store), with the size of
    /// each object one listing found: originals are checked there instead of in the folder.
    var remote: (store: OriginalStore, listed: [String: Int64])? = nil

    struct Outcome: Sendable {
        var findings: [VerifyProblem] = []
        var bytesHashed: Int64 = 0
    }

    func check(_ record: OriginalRecord) -> Outcome {
        var outcome = Outcome()
        guard LibraryLayout.isPlainOriginalPath(record.path) else {
            outcome.findings.append(VerifyProblem(
                kind: .badPath, path: record.path, sha256: record.sha256,
                detail: "the catalog's path for this original is not a plain path under originals/, so it was not followed: "
                    + "the catalog was edited or damaged; `shoebox reindex --force` rebuilds it from the files"))
            return outcome
        }
        if let remote { return checkRemote(record, in: remote.store, listedSize: remote.listed[record.path]) }
        let absolute = layout.absolute(record.path)
        guard let file = LibraryFile.stat(absolute: absolute, relative: record.path) else {
            outcome.findings.append(missing(record, code: errno))
            return outcome
        }
        func report(_ kind: VerifyProblem.Kind, _ detail: String) {
            outcome.findings.append(VerifyProblem(kind: kind, path: record.path, sha256: record.sha256, detail: detail))
        }
        guard file.isRegular else {
            report(.unreadable, "not a regular file")
            return outcome
        }
        if file.isWritable {
            report(.writable, String(format: "mode %o allows writing; originals are kept read-only (chmod a-w to fix)", file.mode & 0o7777))
        }
        guard file.bytes == record.bytes else {
            report(.sizeMismatch, "\(file.bytes) bytes but the catalog recorded \(record.bytes)")
            return outcome
        }
        guard !quick else { return outcome }
        do {
            let (sha256, bytes) = try SHA256Hasher.hashFile(atPath: absolute)
            outcome.bytesHashed = bytes
            if sha256 != record.sha256 {
                report(.hashMismatch, "SHA-256 is \(sha256) but the catalog recorded \(record.sha256): the bytes changed")
            }
        } catch {
            report(.unreadable, "\(error)")
            return outcome
        }
        if let readMetadata, let metadata = try? readMetadata(absolute) {
            let differences = MetadataComparison.differences(recorded: record, read: metadata)
            if !differences.isEmpty { report(.metadataMismatch, differences.joined(separator: "; ")) }
        }
        return outcome
    }

    /// Originals in a remote store up to this size have their EXIF read from the bytes streamed
    /// for the hash, not by range (a HEAD and a ranged GET more each).
    static let metadataFromBodyLimit: Int64 = 1 << 20

    /// The same checks for an original in a remote store: present in the listing, same
    /// size, and (unless `quick`) the same SHA-256 streamed and the same EXIF, read from the
    /// streamed bytes (up to `metadataFromBodyLimit`) or by range.
    private func checkRemote(_ record: OriginalRecord, in store: OriginalStore, listedSize: Int64?) -> Outcome {
        var outcome = Outcome()
        func report(_ kind: VerifyProblem.Kind, _ detail: String) {
            outcome.findings.append(VerifyProblem(kind: kind, path: record.path, sha256: record.sha256, detail: detail))
        }
        guard let size = listedSize else {
            outcome.findings.append(missing(record, code: ENOENT, where: store.location(of: record.path)))
            return outcome
        }
        guard size == record.bytes else {
            report(.sizeMismatch, "\(size) bytes but the catalog recorded \(record.bytes)")
            return outcome
        }
        guard !quick else { return outcome }
        // A small original's metadata is read from the bytes just hashed: one request for it in all.
        var body: [UInt8]? = readMetadata != nil && size <= Self.metadataFromBodyLimit ? [] : nil
        do {
            let hasher = SHA256Hasher()
            var bytes: Int64 = 0
            try store.stream(path: record.path) { chunk in
                hasher.update(chunk)
                bytes += Int64(chunk.count)
                body?.append(contentsOf: chunk)
            }
            outcome.bytesHashed = bytes
            let sha256 = hasher.finalizeHex()
            if sha256 != record.sha256 {
                report(.hashMismatch, "SHA-256 is \(sha256) but the catalog recorded \(record.sha256): the bytes changed")
            }
        } catch {
            report(.unreadable, "\(error)")
            return outcome
        }
        if readMetadata != nil, let metadata = try? body.map({ try MetadataReader.read(bytes: $0, name: store.location(of: record.path)) })
            ?? MetadataReader.read(store: store, path: record.path) {
            let differences = MetadataComparison.differences(recorded: record, read: metadata)
            if !differences.isEmpty { report(.metadataMismatch, differences.joined(separator: "; ")) }
        }
        return outcome
    }

    private func missing(_ record: OriginalRecord, code: Int32, where location: String? = nil) -> VerifyProblem {
        if code != ENOENT {
            return VerifyProblem(kind: .unreadable, path: record.path, sha256: record.sha256, detail: String(cString: strerror(code)))
        }
        if staged.contains(record.sha256) {
            return VerifyProblem(
                kind: .pendingPublish, path: record.path, sha256: record.sha256,
                detail: "recorded by an interrupted run; its content waits in .tmp/\(record.sha256).staged and the next fetch moves it into place")
        }
        return VerifyProblem(
            kind: .missing, path: record.path, sha256: record.sha256,
            detail: location.map { "the catalog has this original but \($0) is gone; restore it from a backup" }
                ?? "the catalog has this original but the file is gone; restore it from a backup")
    }
}
