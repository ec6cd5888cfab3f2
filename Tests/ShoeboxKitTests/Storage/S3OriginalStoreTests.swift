import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// S3OriginalStore against a real S3 server (OpenStack Swift with s3api on 127.0.0.1), one per
/// class. Each test works under a prefix of its own in the shared bucket.
final class S3OriginalStoreTests: SwiftS3TestCase {
    override class var bucketName: String { "shoebox-store-test" }

    /// A prefix of the test's own ("t/testName").
    private func testPrefix(function: String = #function) -> String {
        "t/" + function.prefix { $0 != "(" }
    }

    /// A store on a fresh library folder, at s3://BUCKET/PREFIX.
    private func makeStore(bucket: String? = nil, prefix: String? = nil, function: String = #function) throws -> S3OriginalStore {
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-s3store-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: library) }
        let location = try S3Location(bucket: bucket ?? self.bucket, prefix: prefix ?? testPrefix(function: function))
        return try S3OriginalStore(location: location, configuration: server.configuration(),
                                   layout: LibraryLayout(root: library), creating: true)
    }

    private func bytes(_ count: Int, seed: UInt32 = 7) -> Data {
        var state = seed &* 2_654_435_761 &+ 1
        var values = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            values[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return Data(values)
    }

    private func sha256(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }

    /// Writes `data` into a new staging file and stages it as its hash, durably.
    @discardableResult
    private func stage(_ data: Data, in store: S3OriginalStore) throws -> String {
        let file = try store.makeStagingFile()
        try data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = write(file.descriptor, buffer.baseAddress! + done, buffer.count - done)
                guard written > 0 else { throw POSIXFileError(path: file.path, operation: "write", code: errno) }
                done += written
            }
        }
        let hash = sha256(data)
        try store.stage(file, sha256: hash)
        try store.syncStaged()
        return hash
    }

    private func uploads(under prefix: String) throws -> [S3MultipartUploadSummary] {
        try client.listAllMultipartUploads(bucket: bucket, prefix: prefix)
    }

    // MARK: Publishing

    func testPublishCreatesOneObjectWithItsHashAndContentTypeAndDropsTheStagedFile() throws {
        let store = try makeStore()
        let data = bytes(100_000)
        let hash = try stage(data, in: store)
        let staged = store.staging.stagedPath(hash)
        XCTAssertTrue(FileManager.default.fileExists(atPath: staged))

        XCTAssertEqual(try store.publish(sha256: hash, to: "originals/2024/05/01/a.jpg"), .created)

        let key = testPrefix() + "/originals/2024/05/01/a.jpg"
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.metadata["sha256"], hash)
        XCTAssertEqual(info.contentType, "image/jpeg")
        XCTAssertFalse(FileManager.default.fileExists(atPath: staged), "the staged file is dropped once uploaded")
        XCTAssertEqual(try store.pendingStaged(), [])
        XCTAssertEqual(try store.recordedSHA256(path: "originals/2024/05/01/a.jpg"), hash)
        XCTAssertEqual(try store.size(path: "originals/2024/05/01/a.jpg"), 100_000)
        XCTAssertTrue(try store.exists(path: "originals/2024/05/01/a.jpg"))
        XCTAssertEqual(store.location(of: "originals/2024/05/01/a.jpg"), "s3://\(bucket)/\(key)")
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])

        // Another format gets its own media type.
        let png = bytes(2_000, seed: 9)
        XCTAssertEqual(try store.publish(sha256: try stage(png, in: store), to: "originals/2024/05/01/b.png"), .created)
        XCTAssertEqual(try client.headObject(bucket: bucket, key: testPrefix() + "/originals/2024/05/01/b.png").contentType, "image/png")
    }

    func testPublishingTheSameContentAgainFindsItAlreadyPresent() throws {
        let store = try makeStore()
        let data = bytes(50_000, seed: 2)
        let path = "originals/2024/05/02/same.jpg"
        let hash = try stage(data, in: store)
        XCTAssertEqual(try store.publish(sha256: hash, to: path), .created)
        let key = testPrefix() + "/" + path
        let etag = try client.headObject(bucket: bucket, key: key).etag

        // An earlier publish that was not recorded as done: the same content is staged again.
        XCTAssertEqual(try stage(data, in: store), hash)
        XCTAssertEqual(try store.publish(sha256: hash, to: path), .alreadyPresent)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)))
        XCTAssertEqual(try client.headObject(bucket: bucket, key: key).etag, etag)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)
    }

    func testAnObjectWithOtherBytesAtTheKeyIsOccupiedAndLeftUntouched() throws {
        let store = try makeStore()
        let path = "originals/2024/05/03/taken.jpg"
        let key = testPrefix() + "/" + path
        let theirs = Data("someone else's object".utf8)
        try client.putObject(bucket: bucket, key: key, data: theirs, contentType: "text/plain")
        let theirETag = try client.headObject(bucket: bucket, key: key).etag

        let ours = bytes(10_000, seed: 3)
        let hash = try stage(ours, in: store)
        XCTAssertThrowsError(try store.publish(sha256: hash, to: path)) { error in
            XCTAssertEqual(error as? S3StoreError, .occupied(location: "s3://\(bucket)/\(key)"))
        }
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), theirs)
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.etag, theirETag)
        XCTAssertEqual(info.contentType, "text/plain")
        XCTAssertNil(info.metadata["sha256"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)),
                      "the content stays staged until the key is freed")

        // An object carrying another hash is not ours either.
        let otherPath = "originals/2024/05/03/other-hash.jpg"
        try client.putObject(bucket: bucket, key: testPrefix() + "/" + otherPath, data: theirs,
                             metadata: ["sha256": sha256(theirs)])
        XCTAssertThrowsError(try store.publish(sha256: hash, to: otherPath)) { error in
            XCTAssertEqual(error as? S3StoreError, .occupied(location: store.location(of: otherPath)))
        }
        XCTAssertEqual(try client.getObject(bucket: bucket, key: testPrefix() + "/" + otherPath), theirs)
    }

    func testABodyOverTheSingleUploadLimitGoesUpInPartsAndComesBackIdentical() throws {
        let store = try makeStore()
        store.singleUploadLimit = 8 << 20
        store.minimumPartSize = 5 << 20
        let data = bytes((11 << 20) + 12_345, seed: 4)
        let hash = try stage(data, in: store)
        let path = "originals/2024/05/04/big.tif"
        XCTAssertEqual(try store.publish(sha256: hash, to: path), .created)

        let key = testPrefix() + "/" + path
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertTrue(info.etag.hasSuffix("-3"), "a multipart object of 3 parts (5 + 5 + 1 MiB), ETag \(info.etag)")
        XCTAssertEqual(info.size, Int64(data.count))
        XCTAssertEqual(info.metadata["sha256"], hash)
        XCTAssertEqual(info.contentType, "image/tiff")
        var streamed = Data()
        try store.stream(path: path) { streamed.append(contentsOf: $0) }
        XCTAssertEqual(streamed.count, data.count)
        XCTAssertTrue(streamed == data, "the object's bytes are the staged file's")
        XCTAssertEqual(try store.withLocalFile(path: path) { try SHA256Hasher.hashFile(atPath: $0).sha256 }, hash)
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)))

        // A body exactly at the limit still goes up in one PUT (an MD5 ETag, no part count).
        store.singleUploadLimit = 1 << 20
        let atLimit = bytes(1 << 20, seed: 5)
        XCTAssertEqual(try store.publish(sha256: try stage(atLimit, in: store), to: "originals/2024/05/04/limit.jpg"), .created)
        let single = try client.headObject(bucket: bucket, key: testPrefix() + "/originals/2024/05/04/limit.jpg")
        XCTAssertEqual(single.etag.count, 32, "one PUT: ETag \(single.etag)")
        XCTAssertFalse(single.etag.contains("-"))
    }

    /// Points the staged file of a made-up hash at a file that ends before its size: /sys
    /// files say 4096 bytes and hold a few, so a read comes short at a known place.
    private func stageShortFile(in store: S3OriginalStore) throws -> String {
        let source = "/sys/devices/system/cpu/online"
        var info = stat()
        guard stat(source, &info) == 0, info.st_size == 4096,
              let content = FileManager.default.contents(atPath: source), content.count < 4096, !content.isEmpty else {
            throw XCTSkip("\(source) is not a file that reads shorter than its size on this machine")
        }
        let hash = String(repeating: "ab", count: 32)
        try FileManager.default.createSymbolicLink(atPath: store.staging.stagedPath(hash), withDestinationPath: source)
        return hash
    }

    func testAPartThatReadsShortAbortsTheMultipartUploadAndLeavesNoObject() throws {
        let store = try makeStore()
        store.singleUploadLimit = 0  // every body goes up in parts
        store.minimumPartSize = 5 << 20
        let hash = try stageShortFile(in: store)
        let path = "originals/2024/05/05/short.jpg"
        XCTAssertThrowsError(try store.publish(sha256: hash, to: path)) { error in
            XCTAssertEqual(error as? S3StoreError, .shortRead(path: store.staging.stagedPath(hash)))
        }
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [], "the failed upload was aborted")
        XCTAssertFalse(try store.exists(path: path))
        XCTAssertEqual(try client.listObjectsV2(bucket: bucket, prefix: testPrefix() + "/").objects, [])
    }

    /// Found by this test: one PUT sent whatever the read gave, so a staged file shorter than
    /// its size went up short under the whole content's hash.
    func testASmallFileThatReadsShortIsNotUploaded() throws {
        let store = try makeStore()
        let hash = try stageShortFile(in: store)
        let path = "originals/2024/05/05/short-single.jpg"
        XCTAssertThrowsError(try store.publish(sha256: hash, to: path)) { error in
            XCTAssertEqual(error as? S3StoreError, .shortRead(path: store.staging.stagedPath(hash)))
        }
        XCTAssertFalse(try store.exists(path: path))
    }

    func testACompletionTheServerRefusesAbortsTheUpload() throws {
        let store = try makeStore()
        // Parts of 1 MiB: accepted one by one, refused by CompleteMultipartUpload (EntityTooSmall).
        store.singleUploadLimit = 1 << 20
        store.minimumPartSize = 1 << 20
        let data = bytes(3 << 20, seed: 6)
        let hash = try stage(data, in: store)
        let path = "originals/2024/05/06/small-parts.jpg"
        XCTAssertThrowsError(try store.publish(sha256: hash, to: path)) { error in
            XCTAssertTrue("\(error)".contains("EntityTooSmall"), "\(error)")
        }
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])
        XCTAssertFalse(try store.exists(path: path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)), "still staged for the next run")
    }

    // MARK: Streaming from the staged file

    func testBodiesJustBelowAndAboveTheDefaultSingleUploadLimitRoundTripByteForByte() throws {
        let store = try makeStore()
        XCTAssertEqual(store.singleUploadLimit, 8 << 20)
        let cases: [(path: String, count: Int, seed: UInt32, contentType: String, parts: Int?)] = [
            ("originals/2024/06/01/below.jpg", (8 << 20) - 1, 21, "image/jpeg", nil),
            ("originals/2024/06/01/above.png", (8 << 20) + 1_234_567, 22, "image/png", 2),
        ]
        for item in cases {
            let data = bytes(item.count, seed: item.seed)
            let hash = try stage(data, in: store)
            XCTAssertEqual(try store.publish(sha256: hash, to: item.path), .created)
            let key = testPrefix() + "/" + item.path
            let info = try client.headObject(bucket: bucket, key: key)
            XCTAssertEqual(info.size, Int64(data.count), item.path)
            XCTAssertEqual(info.metadata, ["sha256": hash], item.path)
            XCTAssertEqual(info.contentType, item.contentType, item.path)
            if let parts = item.parts {
                XCTAssertTrue(info.etag.hasSuffix("-\(parts)"), "\(parts) parts (8 MiB and the rest): ETag \(info.etag)")
            } else {
                XCTAssertEqual(info.etag.count, 32, "one PUT: ETag \(info.etag)")
            }
            XCTAssertTrue(try client.getObject(bucket: bucket, key: key) == data, "\(item.path) byte for byte")
            XCTAssertFalse(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)))
        }
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])
    }

    /// Changes the staged file once it has been hashed for its upload (as a disk that tore it
    /// would), with `change` given a descriptor open for writing.
    private func changeAfterHashing(_ store: S3OriginalStore, _ change: @escaping (Int32) throws -> Void) -> () -> Int {
        nonisolated(unsafe) var calls = 0
        store.afterHashing = { path in
            calls += 1
            guard chmod(path, 0o644) == 0 else { throw POSIXFileError(path: path, operation: "chmod", code: errno) }
            let fd = open(path, O_RDWR)
            guard fd >= 0 else { throw POSIXFileError(path: path, operation: "open", code: errno) }
            defer { close(fd) }
            try change(fd)
        }
        return { calls }
    }

    private func flipByte(at offset: Int) -> (Int32) throws -> Void {
        { fd in
            var byte: UInt8 = 0
            guard pread(fd, &byte, 1, off_t(offset)) == 1 else { throw POSIXFileError(path: "staged", operation: "read", code: errno) }
            byte ^= 0xFF
            guard pwrite(fd, &byte, 1, off_t(offset)) == 1 else { throw POSIXFileError(path: "staged", operation: "write", code: errno) }
        }
    }

    /// Stages `data`, changes the staged file with `change` once it has been hashed for its
    /// upload, and checks that the publish to `path` fails with `expected` (given the staged
    /// path and the hash), leaving no object and no multipart upload, and the content staged.
    private func assertPublishRefused(_ data: Data, to path: String, in store: S3OriginalStore,
                                      changedAfterHashing change: @escaping (Int32) throws -> Void,
                                      expected: (String, String) -> S3StoreError, line: UInt = #line) throws {
        let hash = try stage(data, in: store)
        let calls = changeAfterHashing(store, change)
        XCTAssertThrowsError(try store.publish(sha256: hash, to: path), line: line) { error in
            XCTAssertEqual(error as? S3StoreError, expected(store.staging.stagedPath(hash), hash), line: line)
        }
        XCTAssertEqual(calls(), 1, line: line)
        XCTAssertFalse(try store.exists(path: path), line: line)
        XCTAssertEqual(try client.listObjectsV2(bucket: bucket, prefix: store.bucket.listingPrefix).objects, [], line: line)
        XCTAssertEqual(try uploads(under: store.bucket.listingPrefix), [], "no multipart upload left", line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.staging.stagedPath(hash)), "left staged", line: line)
    }

    func testAStagedFileChangedAfterHashingIsNotUploadedInOnePut() throws {
        let store = try makeStore()
        try assertPublishRefused(bytes(600_000, seed: 23), to: "originals/2024/06/02/torn.jpg", in: store,
                                 changedAfterHashing: flipByte(at: 599_000), expected: S3StoreError.contentChanged)
    }

    func testAStagedFileChangedAfterHashingIsNotUploadedInPartsAndTheUploadIsAborted() throws {
        let store = try makeStore()
        store.singleUploadLimit = 8 << 20
        store.minimumPartSize = 5 << 20
        // In the last part: parts 1 and 2 are sent and taken before the change is found.
        let data = bytes((11 << 20) + 99, seed: 24)
        try assertPublishRefused(data, to: "originals/2024/06/03/torn-parts.jpg", in: store,
                                 changedAfterHashing: flipByte(at: data.count - 10), expected: S3StoreError.contentChanged)
    }

    func testAStagedFileCutShortAfterHashingIsNotUploaded() throws {
        let store = try makeStore()
        store.singleUploadLimit = 1 << 20
        store.minimumPartSize = 5 << 20
        // One PUT, then two parts (the second cut short).
        for (count, path) in [(500_000, "originals/2024/06/04/cut.jpg"), ((6 << 20) + 1, "originals/2024/06/04/cut-parts.jpg")] {
            try assertPublishRefused(bytes(count, seed: UInt32(count & 0xFF)), to: path, in: store, changedAfterHashing: { fd in
                guard ftruncate(fd, off_t(count - 1000)) == 0 else { throw POSIXFileError(path: path, operation: "truncate", code: errno) }
            }, expected: { path, _ in .shortRead(path: path) })
        }
    }

    // MARK: Recovery

    func testRemovePartialDownloadsAbortsUploadsUnderThePrefixOnly() throws {
        let store = try makeStore()
        let inside = testPrefix() + "/originals/2024/05/07/left.jpg"
        let outsideKey = "elsewhere/originals/2024/05/07/left.jpg"
        let notOriginals = testPrefix() + "/thumbnails/left.jpg"
        for key in [inside, outsideKey, notOriginals] {
            let id = try client.createMultipartUpload(bucket: bucket, key: key)
            _ = try client.uploadPart(bucket: bucket, key: key, uploadID: id, partNumber: 1, data: bytes(1000))
        }
        let partial = try store.makeStagingFile()
        close(partial.descriptor)

        XCTAssertEqual(try store.removePartialDownloads(), 2, "one partial download and one upload")
        XCTAssertEqual(try uploads(under: testPrefix() + "/originals/"), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path))
        let outside = try uploads(under: "elsewhere/")
        XCTAssertEqual(outside.map(\.key), [outsideKey], "an upload outside the prefix is not this store's")
        XCTAssertEqual(try uploads(under: testPrefix() + "/thumbnails/").map(\.key), [notOriginals])
        for upload in try uploads(under: "elsewhere/") + uploads(under: testPrefix() + "/") {
            try client.abortMultipartUpload(bucket: bucket, key: upload.key, uploadID: upload.uploadID)
        }
        XCTAssertEqual(try store.removePartialDownloads(), 0)
    }

    // MARK: Streamed bodies (a large body goes into an upload as it arrives)

    /// A store streaming bodies over 5 MiB, in parts of 5 MiB.
    private func makeStreamingStore(shared: Bool = false, function: String = #function) throws -> S3OriginalStore {
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-s3store-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: library) }
        let location = try S3Location(bucket: bucket, prefix: testPrefix(function: function))
        let store = try S3OriginalStore(location: location, configuration: server.configuration(),
                                        layout: LibraryLayout(root: library), creating: true, sharedPrefix: shared)
        store.streamingThreshold = 5 << 20
        store.streamingPartSize = 5 << 20
        return store
    }

    /// Writes `data` as the body writer does: its head into the staging file, the rest, in
    /// pieces of 1 MiB, into the file's spill.
    private func receive(_ data: Data, in store: S3OriginalStore) throws -> StagingFile {
        let file = try store.makeStagingFile()
        let spill = try XCTUnwrap(file.spill)
        let head = Int(min(Int64(data.count), spill.headLimit))
        try data.prefix(head).withUnsafeBytes { buffer in
            guard write(file.descriptor, buffer.baseAddress!, buffer.count) == buffer.count else {
                throw POSIXFileError(path: file.path, operation: "write", code: errno)
            }
        }
        var offset = head
        while offset < data.count {
            let end = min(offset + (1 << 20), data.count)
            try data[offset..<end].withUnsafeBytes { try spill.append($0) }
            offset = end
        }
        return file
    }

    private func stagingObjects(_ store: S3OriginalStore) throws -> [String] {
        try client.listObjectsV2(bucket: bucket, prefix: store.bucket.key(for: ".tmp") + "/").objects.map(\.key)
    }

    func testAStreamedBodyIsStagedAsAnObjectAndPublishedByACopyWithItsHash() throws {
        let store = try makeStreamingStore()
        let data = bytes((13 << 20) + 7)
        let hash = sha256(data)
        let file = try receive(data, in: store)
        XCTAssertEqual(try uploads(under: testPrefix() + "/.tmp/").count, 1, "the upload began while the body arrived")
        let headSize = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
        XCTAssertEqual(headSize, 5 << 20, "only the head is on the local disk")

        try store.stage(file, sha256: hash)
        try store.syncStaged()
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "the head is dropped once in the object")
        XCTAssertEqual(try store.pendingStaged(), [hash])
        XCTAssertTrue(store.stagedContentMatches(sha256: hash))
        let staged = try stagingObjects(store)
        XCTAssertEqual(staged.count, 1)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: staged[0]), data, "what went up is the body")
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])

        XCTAssertEqual(try store.publish(sha256: hash, to: "originals/2024/05/01/big.jpg"), .created)
        let key = testPrefix() + "/originals/2024/05/01/big.jpg"
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.metadata["sha256"], hash)
        XCTAssertEqual(info.contentType, "image/jpeg")
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)
        XCTAssertEqual(try stagingObjects(store), [], "the staged object is deleted once copied")
        XCTAssertEqual(try store.pendingStaged(), [])
        XCTAssertEqual(try store.publish(sha256: hash, to: "originals/2024/05/01/big.jpg"), .alreadyPresent)
    }

    func testAStreamedBodyOverTheSingleCopyLimitIsUploadedAgainInParts() throws {
        let store = try makeStreamingStore()
        store.singleCopyLimit = 6 << 20  // stands for CopyObject's 5 GiB
        store.minimumPartSize = 5 << 20
        let data = bytes((12 << 20) + 3, seed: 9)
        let hash = sha256(data)
        try store.stage(try receive(data, in: store), sha256: hash)
        try store.syncStaged()
        XCTAssertEqual(try store.publish(sha256: hash, to: "originals/2024/05/02/copied.jpg"), .created)
        let key = testPrefix() + "/originals/2024/05/02/copied.jpg"
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.metadata["sha256"], hash)
        XCTAssertEqual(info.contentType, "image/jpeg")
        XCTAssertTrue(info.etag.hasSuffix("-3"), "uploaded again in 3 parts (5 + 5 + 2 MiB), ETag \(info.etag)")
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)
        XCTAssertEqual(try stagingObjects(store), [])
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])
    }

    func testAStreamedBodyThatDoesNotHashToItsNameOrIsDiscardedLeavesNothing() throws {
        let store = try makeStreamingStore()
        let wrong = try receive(bytes(11 << 20, seed: 1), in: store)
        XCTAssertThrowsError(try store.stage(wrong, sha256: sha256(bytes(11 << 20, seed: 2)))) { error in
            guard case S3StoreError.contentChanged = error else { return XCTFail("\(error)") }
        }
        let dropped = try receive(bytes(11 << 20, seed: 3), in: store)
        store.discard(dropped)
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [], "no incomplete upload")
        XCTAssertEqual(try stagingObjects(store), [], "no staged object")
        XCTAssertEqual(try store.pendingStaged(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: wrong.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dropped.path))
        // A body within the head stays a local staging file (no upload at all).
        let small = try receive(bytes(1 << 20, seed: 4), in: store)
        XCTAssertFalse(small.spill!.isSpilled)
        try store.stage(small, sha256: sha256(bytes(1 << 20, seed: 4)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.staging.stagedPath(sha256(bytes(1 << 20, seed: 4)))))
    }

    func testRecoveryRemovesStagingLeftoversNobodyRefersToAndKeepsNotedContent() throws {
        let store = try makeStreamingStore()
        let data = bytes(12 << 20, seed: 5)
        let hash = sha256(data)
        try store.stage(try receive(data, in: store), sha256: hash)
        try store.syncStaged()
        // A killed run's leftovers: a staged object nobody noted, and an upload never completed.
        let prefix = store.bucket.key(for: ".tmp") + "/"
        try client.putObject(bucket: bucket, key: prefix + "stray", data: bytes(1000))
        let id = try client.createMultipartUpload(bucket: bucket, key: prefix + "cut")
        _ = try client.uploadPart(bucket: bucket, key: prefix + "cut", uploadID: id, partNumber: 1, data: bytes(1000))

        // Another writer sharing the prefix leaves what is recent alone (it may be in progress).
        let shared = try makeStreamingStore(shared: true)
        XCTAssertEqual(try shared.removePartialDownloads(), 0)
        XCTAssertEqual(try stagingObjects(store).count, 2)

        XCTAssertEqual(try store.removePartialDownloads(), 2, "the stray object and the incomplete upload")
        XCTAssertEqual(try uploads(under: testPrefix() + "/"), [])
        XCTAssertEqual(try store.pendingStaged(), [hash], "noted content is kept for recovery to finish")
        let report = try LibraryRecovery.run(store: store) { sha256 in
            sha256 == hash ? OriginalRecord(sha256: hash, path: "originals/2024/06/01/kept.jpg", bytes: Int64(data.count),
                                            contentType: "image/jpeg", addedAt: "2024-06-01T00:00:00Z") : nil
        }
        XCTAssertEqual(report.published, 1)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: testPrefix() + "/originals/2024/06/01/kept.jpg"), data)
        XCTAssertEqual(try stagingObjects(store), [])
        XCTAssertEqual(try store.pendingStaged(), [])
    }

    /// With a shared prefix, an upload begun long ago that still takes parts is another
    /// writer's large body streaming in: kept; one idle as long is a killed writer's: aborted.
    func testASharedPrefixKeepsAnOldUploadThatStillTakesPartsAndAbortsAnIdleOne() throws {
        let store = try makeStreamingStore(shared: true)
        store.abandonedUploadAge = 2
        let prefix = store.bucket.key(for: ".tmp") + "/"
        let active = try client.createMultipartUpload(bucket: bucket, key: prefix + "active")
        let idle = try client.createMultipartUpload(bucket: bucket, key: prefix + "idle")
        _ = try client.uploadPart(bucket: bucket, key: prefix + "idle", uploadID: idle, partNumber: 1, data: bytes(1000))
        _ = try client.uploadPart(bucket: bucket, key: prefix + "active", uploadID: active, partNumber: 1, data: bytes(1000))
        sleep(4)
        _ = try client.uploadPart(bucket: bucket, key: prefix + "active", uploadID: active, partNumber: 2, data: bytes(1000))
        XCTAssertEqual(try store.remoteLeftovers().map(\.key), [prefix + "idle"])
        XCTAssertEqual(try store.removePartialDownloads(), 1)
        XCTAssertEqual(try uploads(under: prefix).map(\.key), [prefix + "active"])
        try client.abortMultipartUpload(bucket: bucket, key: prefix + "active", uploadID: active)
    }

    // MARK: Reading

    func testListPagesThroughMoreObjectsThanOnePage() throws {
        let store = try makeStore()
        store.listPage = 2
        var expected: [String: Int64] = [:]
        for index in 0..<7 {
            let path = "originals/2024/05/08/\(index).jpg"
            try client.putObject(bucket: bucket, key: testPrefix() + "/" + path, data: bytes(100 + index, seed: UInt32(index)))
            expected[path] = Int64(100 + index)
        }
        // Beside the originals, not listed: another folder, and a prefix that only starts alike.
        try client.putObject(bucket: bucket, key: testPrefix() + "/thumbnails/x.jpg", data: Data("t".utf8))
        try client.putObject(bucket: bucket, key: testPrefix() + "x/originals/2024/05/08/y.jpg", data: Data("y".utf8))

        var listed: [String: Int64] = [:]
        var calls = 0
        try store.list(under: "originals") { original in
            calls += 1
            listed[original.path] = original.bytes
            XCTAssertGreaterThan(original.modified, Date().timeIntervalSince1970 - 600)
        }
        XCTAssertEqual(calls, 7, "each object once")
        XCTAssertEqual(listed, expected)
    }

    func testReadGivesRangesClippedAtTheEndAndNothingPastIt() throws {
        let store = try makeStore()
        let data = bytes(1000, seed: 8)
        let path = "originals/2024/05/09/r.jpg"
        try client.putObject(bucket: bucket, key: testPrefix() + "/" + path, data: data)
        XCTAssertEqual(try store.read(path: path, offset: 0, count: 16), [UInt8](data[0..<16]))
        XCTAssertEqual(try store.read(path: path, offset: 990, count: 100), [UInt8](data[990...]))
        XCTAssertEqual(try store.read(path: path, offset: 1000, count: 10), [])
        XCTAssertEqual(try store.read(path: path, offset: 50_000, count: 10), [])
        XCTAssertEqual(try store.read(path: path, offset: 0, count: 0), [])
    }

    func testAMissingKeyHasNoSizeAndDoesNotExist() throws {
        let store = try makeStore()
        let path = "originals/2024/05/10/none.jpg"
        XCTAssertNil(try store.size(path: path))
        XCTAssertFalse(try store.exists(path: path))
        XCTAssertNil(try store.recordedSHA256(path: path))
        XCTAssertNoThrow(try store.remove(path: path), "removing what is gone is no error")
        XCTAssertThrowsError(try store.read(path: path, offset: 0, count: 10))

        try client.putObject(bucket: bucket, key: testPrefix() + "/" + path, data: Data("x".utf8))
        XCTAssertEqual(try store.size(path: path), 1)
        try store.remove(path: path)
        XCTAssertFalse(try store.exists(path: path))
    }

    func testKeysWithoutAPrefixAndUnderAPrefixOfTwoSegments() throws {
        let rootBucket = "shoebox-store-root"
        try server.createBucket(rootBucket)
        let atRoot = try makeStore(bucket: rootBucket, prefix: "")
        let nested = try makeStore(bucket: rootBucket, prefix: "a/b")
        XCTAssertEqual(atRoot.displayName, "s3://\(rootBucket)")
        XCTAssertEqual(nested.displayName, "s3://\(rootBucket)/a/b")

        let path = "originals/2024/05/11/p.jpg"
        let first = bytes(300, seed: 11), second = bytes(400, seed: 12)
        XCTAssertEqual(try atRoot.publish(sha256: try stage(first, in: atRoot), to: path), .created)
        XCTAssertEqual(try nested.publish(sha256: try stage(second, in: nested), to: "/" + path), .created,
                       "a leading slash makes no empty segment")

        XCTAssertEqual(try client.getObject(bucket: rootBucket, key: "originals/2024/05/11/p.jpg"), first)
        XCTAssertEqual(try client.getObject(bucket: rootBucket, key: "a/b/originals/2024/05/11/p.jpg"), second)
        XCTAssertEqual(Set(try client.listObjectsV2(bucket: rootBucket).objects.map(\.key)),
                       ["originals/2024/05/11/p.jpg", "a/b/originals/2024/05/11/p.jpg"])
        XCTAssertEqual(atRoot.location(of: path), "s3://\(rootBucket)/originals/2024/05/11/p.jpg")
        XCTAssertEqual(nested.location(of: path), "s3://\(rootBucket)/a/b/originals/2024/05/11/p.jpg")

        var rootListing: [StoredOriginal] = [], nestedListing: [StoredOriginal] = []
        try atRoot.list(under: "originals") { rootListing.append($0) }
        try nested.list(under: "originals") { nestedListing.append($0) }
        XCTAssertEqual(rootListing.map(\.path), [path], "the root store does not see a/b/originals")
        XCTAssertEqual(rootListing.map(\.bytes), [300])
        XCTAssertEqual(nestedListing.map(\.path), [path], "paths come back relative to the prefix")
        XCTAssertEqual(nestedListing.map(\.bytes), [400])
        XCTAssertEqual(try nested.read(path: path, offset: 0, count: 4), [UInt8](second.prefix(4)))
    }
}
