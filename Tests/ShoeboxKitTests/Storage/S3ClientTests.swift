import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// S3Client against a real S3 server: OpenStack Swift with s3api on 127.0.0.1, one per class.
final class S3ClientTests: SwiftS3TestCase {
    override class var bucketName: String { "shoebox-test" }

    /// A key of its own for each test (the bucket is shared by the class).
    private func key(_ name: String, function: String = #function) -> String {
        "\(function.prefix { $0 != "(" })/\(name)"
    }

    private func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var state = UInt32(seed) &* 2_654_435_761 &+ 1
        let values = (0..<count).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return Data(values)
    }

    func testPutGetRangeAndHeadKeepContentTypeAndMetadata() throws {
        let key = key("photo.jpg")
        let data = bytes(100_000)
        let etag = try client.putObject(bucket: bucket, key: key, data: data, contentType: "image/jpeg",
                                        metadata: ["sha256": "abc123", "Original-Name": "IMG 0001.JPG"])
        XCTAssertEqual(etag.count, 32, "a simple upload's ETag is the MD5 hex")
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key, range: 10...19), data[10...19])
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key, range: 99_990...200_000), data[99_990...])
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.size, 100_000)
        XCTAssertEqual(info.etag, etag)
        XCTAssertEqual(info.contentType, "image/jpeg")
        XCTAssertEqual(info.metadata, ["sha256": "abc123", "original-name": "IMG 0001.JPG"])
        let age = try XCTUnwrap(info.lastModified).timeIntervalSinceNow
        XCTAssertLessThan(abs(age), 300)
    }

    func testStreamingGetHandsOverTheWholeObjectInChunks() throws {
        let key = key("big.raw")
        let data = bytes(3 << 20, seed: 3)
        try client.putObject(bucket: bucket, key: key, data: data)
        var received = Data()
        var chunks = 0
        let info = try client.getObject(bucket: bucket, key: key) { chunk in
            received.append(contentsOf: chunk)
            chunks += 1
        }
        XCTAssertEqual(received, data)
        XCTAssertGreaterThan(chunks, 1)
        XCTAssertEqual(info.size, Int64(data.count))

        var ranged = Data()
        let rangedInfo = try client.getObject(bucket: bucket, key: key, range: 1000...1999) { ranged.append(contentsOf: $0) }
        XCTAssertEqual(ranged, data[1000...1999])
        XCTAssertEqual(rangedInfo.size, Int64(data.count), "the size is the whole object's, from Content-Range")

        // The receiver's error ends the transfer and comes back as it was.
        struct Enough: Error {}
        XCTAssertThrowsError(try client.getObject(bucket: bucket, key: key) { _ in throw Enough() }) { error in
            XCTAssertTrue(error is Enough, "\(error)")
        }
    }

    func testListingPagesTwoKeysAtATimeOverFiveObjects() throws {
        let prefix = key("")
        let names = (1...5).map { prefix + "object-\($0)" }
        for name in names { try client.putObject(bucket: bucket, key: name, data: Data(name.utf8)) }
        var pages: [[String]] = []
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: token, maxKeys: 2)
            pages.append(page.objects.map(\.key))
            for object in page.objects {
                XCTAssertEqual(object.size, Int64(object.key.utf8.count))
                XCTAssertEqual(object.etag.count, 32)
                XCTAssertNotNil(object.lastModified)
            }
            token = page.nextContinuationToken
        } while token != nil && pages.count < 10
        XCTAssertEqual(pages.map(\.count), [2, 2, 1])
        XCTAssertEqual(pages.flatMap { $0 }, names)
    }

    /// Keys and prefixes with characters SigV4 encodes (space, '+', '=', '&', '%', '/', é, 日本): a
    /// path or query signed differently from how the server reads it fails with 403.
    func testKeysAndPrefixesWithSpecialCharactersRoundTripAndList() throws {
        let prefix = key("dir with space+plus=eq&amp%25/été 日本/")
        let names = ["a b.jpg", "c+d=e&f.jpg", "100% é.jpg", "日本語.png", "x~y_z-.v", "a/../b", "q?r#s.jpg"].map { prefix + $0 }
        for (index, name) in names.enumerated() {
            try client.putObject(bucket: bucket, key: name, data: Data("object \(index)".utf8), contentType: "text/plain")
        }
        for (index, name) in names.enumerated() {
            XCTAssertEqual(try client.getObject(bucket: bucket, key: name), Data("object \(index)".utf8), name)
            XCTAssertEqual(try client.headObject(bucket: bucket, key: name).size, Int64("object \(index)".utf8.count), name)
        }
        // All at once, then one at a time: the continuation token (base64: '=', '/', '+') goes
        // into the signed query string too.
        let all = try client.listObjectsV2(bucket: bucket, prefix: prefix)
        XCTAssertEqual(Set(all.objects.map(\.key)), Set(names))
        XCTAssertNil(all.nextContinuationToken)
        var listed: [String] = []
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: token, maxKeys: 1)
            listed += page.objects.map(\.key)
            token = page.nextContinuationToken
        } while token != nil && listed.count <= names.count
        XCTAssertEqual(listed, all.objects.map(\.key))
        // A narrower prefix with non-ASCII and '%' in it.
        let narrow = try client.listObjectsV2(bucket: bucket, prefix: prefix + "100% é")
        XCTAssertEqual(narrow.objects.map(\.key), [prefix + "100% é.jpg"])
        // Delimiter listing: "a/../b" sits under the "a/" folder.
        let folders = try client.listObjectsV2(bucket: bucket, prefix: prefix, delimiter: "/")
        XCTAssertEqual(folders.commonPrefixes, [prefix + "a/"])
        XCTAssertFalse(folders.objects.map(\.key).contains(prefix + "a/../b"))
    }

    func testCopyReplacesMetadataAndContentType() throws {
        let source = key("source é.jpg"), target = key("copy + target.jpg")
        let data = bytes(1000)
        try client.putObject(bucket: bucket, key: source, data: data, contentType: "image/jpeg", metadata: ["state": "old", "keep": "no"])
        let etag = try client.copyObject(sourceBucket: bucket, sourceKey: source, bucket: bucket, key: target,
                                         contentType: "image/x-test", metadata: ["state": "new"])
        let info = try client.headObject(bucket: bucket, key: target)
        XCTAssertEqual(info.etag, etag)
        XCTAssertEqual(info.contentType, "image/x-test")
        XCTAssertEqual(info.metadata, ["state": "new"])
        XCTAssertEqual(try client.getObject(bucket: bucket, key: target), data)
        // The source is untouched.
        XCTAssertEqual(try client.headObject(bucket: bucket, key: source).metadata, ["state": "old", "keep": "no"])
        // COPY keeps the source's.
        try client.copyObject(sourceBucket: bucket, sourceKey: source, bucket: bucket, key: target + ".2",
                              metadataDirective: .copy, contentType: "text/plain", metadata: ["state": "ignored"])
        let copied = try client.headObject(bucket: bucket, key: target + ".2")
        XCTAssertEqual(copied.metadata["state"], "old")
        XCTAssertEqual(copied.contentType, "image/jpeg")
        // A missing source names the source.
        XCTAssertThrowsError(try client.copyObject(sourceBucket: bucket, sourceKey: source + ".missing", bucket: bucket, key: target)) {
            guard case S3Error.noSuchKey(_, let key) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(key, source + ".missing")
        }
    }

    func testDeleteThenGetAndHeadSayNoSuchKey() throws {
        let key = key("gone.jpg")
        try client.putObject(bucket: bucket, key: key, data: Data("x".utf8))
        try client.deleteObject(bucket: bucket, key: key)
        XCTAssertThrowsError(try client.getObject(bucket: bucket, key: key)) { error in
            guard case S3Error.noSuchKey(let errorBucket, let errorKey) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(errorBucket, self.bucket)
            XCTAssertEqual(errorKey, key)
            XCTAssertTrue("\(error)".contains(key))
        }
        XCTAssertThrowsError(try client.headObject(bucket: bucket, key: key)) { error in
            guard case S3Error.noSuchKey = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try client.getObject(bucket: bucket, key: key) { _ in }) { error in
            guard case S3Error.noSuchKey = error else { return XCTFail("\(error)") }
        }
    }

    func testMultipartUploadOfThreePartsReadsBackIdentical() throws {
        let key = key("multi part.raw")
        let parts = [bytes(5 << 20, seed: 1), bytes(5 << 20, seed: 2), bytes(12345, seed: 3)]
        let uploadID = try client.createMultipartUpload(bucket: bucket, key: key, contentType: "image/x-raw", metadata: ["sha256": "f00"])
        XCTAssertTrue(try client.listAllMultipartUploads(bucket: bucket, prefix: key).contains { $0.uploadID == uploadID })
        var uploaded: [S3UploadedPart] = []
        // Out of order on purpose: completion sorts by part number.
        for number in [2, 1, 3] {
            uploaded.append(try client.uploadPart(bucket: bucket, key: key, uploadID: uploadID, partNumber: number, data: parts[number - 1]))
        }
        let etag = try client.completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID, parts: uploaded)
        XCTAssertTrue(etag.hasSuffix("-3"), etag)
        let whole = parts.reduce(Data(), +)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), whole)
        let info = try client.headObject(bucket: bucket, key: key)
        XCTAssertEqual(info.size, Int64(whole.count))
        XCTAssertEqual(info.contentType, "image/x-raw")
        XCTAssertEqual(info.metadata["sha256"], "f00")
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key, range: Int64(5 << 20) - 2...Int64(5 << 20) + 1),
                       whole[(5 << 20) - 2...(5 << 20) + 1])
        XCTAssertTrue(try client.listAllMultipartUploads(bucket: bucket, prefix: key).isEmpty)
    }

    func testAbortLeavesNoUploadBehind() throws {
        let key = key("aborted.raw")
        let uploadID = try client.createMultipartUpload(bucket: bucket, key: key)
        _ = try client.uploadPart(bucket: bucket, key: key, uploadID: uploadID, partNumber: 1, data: bytes(1000))
        XCTAssertEqual(try client.listAllMultipartUploads(bucket: bucket, prefix: key).map(\.uploadID), [uploadID])
        try client.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID)
        XCTAssertTrue(try client.listAllMultipartUploads(bucket: bucket, prefix: key).isEmpty)
        XCTAssertThrowsError(try client.completeMultipartUpload(
            bucket: bucket, key: key, uploadID: uploadID, parts: [S3UploadedPart(partNumber: 1, etag: "x")])) { error in
            guard case S3Error.noSuchUpload(let id) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(id, uploadID)
        }
        XCTAssertThrowsError(try client.headObject(bucket: bucket, key: key))
    }

    func testMultipartHelperSendsFixedPartsAndAborts() throws {
        let key = key("helper.raw")
        let data = bytes((11 << 20) + 777, seed: 9)
        let upload = try S3MultipartUpload(client: client, bucket: bucket, key: key, partSize: 5 << 20, contentType: "image/x-raw")
        // Odd-sized pieces, as a reader hands them over.
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + 1_234_567)
            try upload.append(data[offset..<end])
            offset = end
        }
        XCTAssertEqual(upload.uploadedParts.count, 2, "two full parts sent before complete()")
        try upload.complete()
        XCTAssertEqual(try client.getObject(bucket: bucket, key: key), data)

        XCTAssertThrowsError(try S3MultipartUpload(client: client, bucket: bucket, key: key, partSize: 1 << 20))
        let abandoned = try S3MultipartUpload(client: client, bucket: bucket, key: key + ".abandoned", partSize: 5 << 20)
        try abandoned.append(bytes(6 << 20))
        XCTAssertNotNil(abandoned.uploadID)
        try abandoned.abort()
        XCTAssertTrue(try client.listAllMultipartUploads(bucket: bucket, prefix: key).isEmpty)
    }

    // MARK: Bodies streamed from a file

    /// Writes `data` to a temporary file, removed after the test; returns its path.
    private func temporaryFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-s3client-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// A file of `count` bytes, and the same bytes with the one at `changed` altered.
    private func fileAndAlteredCopy(count: Int, seed: UInt8, changed: Int) throws -> (data: Data, file: String, other: Data) {
        let data = bytes(count, seed: seed)
        var other = data
        other[changed] ^= 0x80
        return (data, try temporaryFile(data), other)
    }

    private func sha256<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        let hasher = SHA256Hasher()
        hasher.update(Data(bytes))
        return hasher.finalizeHex()
    }

    func testFileSlicesGoUpAsThoseBytesInOnePutAndAsParts() throws {
        let data = bytes((6 << 20) + 4321, seed: 13)
        let file = try temporaryFile(data)

        // One PUT of bytes from the middle of the file.
        let objectKey = key("slice.raw")
        let middle = data[1000..<(3 << 20)]
        let etag = try client.putObject(
            bucket: bucket, key: objectKey, file: S3FileSlice(path: file, offset: 1000, length: Int64(middle.count), sha256: sha256(middle)),
            contentType: "image/x-raw", metadata: ["sha256": "abc"])
        XCTAssertEqual(etag.count, 32, "one PUT: an MD5 ETag")
        XCTAssertTrue(try client.getObject(bucket: bucket, key: objectKey) == middle, "the object is the slice, byte for byte")
        let info = try client.headObject(bucket: bucket, key: objectKey)
        XCTAssertEqual(info.size, Int64(middle.count))
        XCTAssertEqual(info.contentType, "image/x-raw")
        XCTAssertEqual(info.metadata, ["sha256": "abc"])

        // Two parts: the first 5 MiB, then the rest.
        let partsKey = key("parts.raw")
        let uploadID = try client.createMultipartUpload(bucket: bucket, key: partsKey, contentType: "image/x-raw")
        let split = 5 << 20
        let first = try client.uploadPart(bucket: bucket, key: partsKey, uploadID: uploadID, partNumber: 1,
                                          file: S3FileSlice(path: file, length: Int64(split), sha256: sha256(data[..<split])))
        let second = try client.uploadPart(
            bucket: bucket, key: partsKey, uploadID: uploadID, partNumber: 2,
            file: S3FileSlice(path: file, offset: Int64(split), length: Int64(data.count - split), sha256: sha256(data[split...])))
        let multipartETag = try client.completeMultipartUpload(bucket: bucket, key: partsKey, uploadID: uploadID, parts: [first, second])
        XCTAssertTrue(multipartETag.hasSuffix("-2"), multipartETag)
        XCTAssertTrue(try client.getObject(bucket: bucket, key: partsKey) == data, "the parts join into the file, byte for byte")
    }

    func testAFileSliceThatIsNotItsDeclaredBytesIsRefusedAndStoresNothing() throws {
        let (data, file, other) = try fileAndAlteredCopy(count: 300_000, seed: 14, changed: 299_000)
        let objectKey = key("refused.raw")
        func assertNoObject(line: UInt = #line) {
            XCTAssertThrowsError(try client.headObject(bucket: bucket, key: objectKey), line: line) { error in
                guard case S3Error.noSuchKey = error else { return XCTFail("\(error)", line: line) }
            }
        }

        // Declared as other bytes (a file changed since it was hashed): refused before its end is sent.
        XCTAssertThrowsError(try client.putObject(
            bucket: bucket, key: objectKey, file: S3FileSlice(path: file, length: Int64(data.count), sha256: sha256(other)))) { error in
            XCTAssertEqual(error as? S3StoreError, .contentChanged(path: file, sha256: sha256(other)))
        }
        assertNoObject()
        // Longer than what is left of the file (a file cut short since).
        XCTAssertThrowsError(try client.putObject(
            bucket: bucket, key: objectKey, file: S3FileSlice(path: file, offset: 1000, length: Int64(data.count), sha256: sha256(data)))) { error in
            XCTAssertEqual(error as? S3StoreError, .shortRead(path: file))
        }
        assertNoObject()
        // No file at all.
        XCTAssertThrowsError(try client.putObject(
            bucket: bucket, key: objectKey, file: S3FileSlice(path: file + ".gone", length: 1, sha256: sha256(data)))) { error in
            XCTAssertEqual((error as? POSIXFileError)?.code, ENOENT, "\(error)")
        }
        assertNoObject()

        // A part likewise: the upload gets no part 1, so it cannot be completed.
        let uploadID = try client.createMultipartUpload(bucket: bucket, key: objectKey)
        XCTAssertThrowsError(try client.uploadPart(
            bucket: bucket, key: objectKey, uploadID: uploadID, partNumber: 1,
            file: S3FileSlice(path: file, length: Int64(data.count), sha256: sha256(other)))) { error in
            XCTAssertEqual(error as? S3StoreError, .contentChanged(path: file, sha256: sha256(other)))
        }
        let etagOfData = try client.putObject(bucket: bucket, key: key("md5"), data: data)
        XCTAssertThrowsError(try client.completeMultipartUpload(
            bucket: bucket, key: objectKey, uploadID: uploadID, parts: [S3UploadedPart(partNumber: 1, etag: etagOfData)])) { error in
            guard case S3Error.http(400, "InvalidPart", _, _) = error else { return XCTFail("\(error)") }
        }
        try client.abortMultipartUpload(bucket: bucket, key: objectKey, uploadID: uploadID)
        assertNoObject()
    }

    /// The client's own check, against a server that checks nothing: a file body that is not
    /// the bytes it was declared as is cut off before its end, and not sent again.
    func testAFileBodyThatIsNotItsDeclaredBytesNeverReachesTheServerWhole() throws {
        let (data, file, other) = try fileAndAlteredCopy(count: (1 << 20) + 3, seed: 17, changed: 10)
        let scripted = try ScriptedHTTPServer(answers: [.init(status: 200, headers: ["ETag": "\"e1\""])])
        defer { scripted.stop() }
        var configuration = try S3Configuration(accessKeyID: "AKID", secretAccessKey: "secret", endpoint: scripted.endpoint)
        configuration.retryPolicy = S3RetryPolicy(maxAttempts: 5, baseDelay: 0.01)
        XCTAssertThrowsError(try S3Client(configuration: configuration).putObject(
            bucket: "bucket", key: "k.jpg", file: S3FileSlice(path: file, length: Int64(data.count), sha256: sha256(other)))) { error in
            XCTAssertEqual(error as? S3StoreError, .contentChanged(path: file, sha256: sha256(other)))
        }
        // The server logs the request once it sees the connection end, maybe after the client returned.
        let deadline = Date().addingTimeInterval(10)
        while scripted.requests().isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.3)  // time for a retry to show, were there one
        let requests = scripted.requests()
        XCTAssertEqual(requests.count, 1, "not retried")
        XCTAssertEqual(requests.first?.headers["x-amz-content-sha256"], sha256(other))
        XCTAssertLessThan(requests.first?.bodyLength ?? .max, data.count, "the body was cut off before its end")
    }

    /// What one PUT from a file relies on besides the client's own check: Swift's s3api refuses
    /// a body that does not hash to its `x-amz-content-sha256` (400 BadDigest) and stores
    /// nothing; an UploadPart too. Sent with /usr/bin/curl, which sends the body whatever the header says.
    func testTheServerRefusesABodyThatDoesNotHashToItsContentSHA256() throws {
        let (data, file, other) = try fileAndAlteredCopy(count: 200_000, seed: 15, changed: 199_999)
        let objectKey = key("mismatch.raw")

        let refused = try server.signedPut(path: "/\(bucket)/\(objectKey)", file: file, contentSHA256: sha256(other))
        XCTAssertEqual(refused.status, 400, refused.body)
        XCTAssertTrue(refused.body.contains("<Code>BadDigest</Code>"), refused.body)
        XCTAssertThrowsError(try client.headObject(bucket: bucket, key: objectKey)) { error in
            guard case S3Error.noSuchKey = error else { return XCTFail("\(error)") }
        }
        // The same request with the body's own hash is taken: it was the hash that was refused.
        let taken = try server.signedPut(path: "/\(bucket)/\(objectKey)", file: file, contentSHA256: sha256(data))
        XCTAssertEqual(taken.status, 200, taken.body)
        XCTAssertEqual(try client.getObject(bucket: bucket, key: objectKey), data)
        let etagOfData = try client.headObject(bucket: bucket, key: objectKey).etag

        let partKey = key("mismatch-part.raw")
        let uploadID = try client.createMultipartUpload(bucket: bucket, key: partKey)
        // curl signs the query as written: it is written in canonical form.
        let encodedID = try XCTUnwrap(uploadID.addingPercentEncoding(withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")))
        let part = try server.signedPut(path: "/\(bucket)/\(partKey)?partNumber=1&uploadId=\(encodedID)", file: file,
                                        contentSHA256: sha256(other))
        XCTAssertEqual(part.status, 400, part.body)
        XCTAssertTrue(part.body.contains("<Code>BadDigest</Code>"), part.body)
        // Had the part been stored, its ETag would be the MD5 of `data`, and this would complete.
        XCTAssertThrowsError(try client.completeMultipartUpload(
            bucket: bucket, key: partKey, uploadID: uploadID, parts: [S3UploadedPart(partNumber: 1, etag: etagOfData)])) { error in
            guard case S3Error.http(400, "InvalidPart", _, _) = error else { return XCTFail("\(error)") }
        }
        try client.abortMultipartUpload(bucket: bucket, key: partKey, uploadID: uploadID)
    }

    /// Each attempt streams the whole file again (a fresh read and hash), with the same header.
    func testAFileBodyIsSentWholeAgainWhenItsRequestIsRetried() throws {
        let data = bytes((2 << 20) + 5, seed: 16)
        let file = try temporaryFile(data)
        let scripted = try ScriptedHTTPServer(answers: [
            .init(status: 503, body: ""), .init(status: 500, body: ""), .init(status: 200, headers: ["ETag": "\"e1\""]),
        ])
        defer { scripted.stop() }
        var configuration = try S3Configuration(accessKeyID: "AKID", secretAccessKey: "secret", endpoint: scripted.endpoint)
        configuration.retryPolicy = S3RetryPolicy(maxAttempts: 5, baseDelay: 0.01)
        let hash = sha256(data)
        let etag = try S3Client(configuration: configuration).putObject(
            bucket: "bucket", key: "k.jpg", file: S3FileSlice(path: file, length: Int64(data.count), sha256: hash), contentType: "image/jpeg")
        XCTAssertEqual(etag, "e1")
        let requests = scripted.requests()
        XCTAssertEqual(requests.count, 3)
        for request in requests {
            XCTAssertEqual(request.method, "PUT")
            XCTAssertEqual(request.headers["x-amz-content-sha256"], hash)
            XCTAssertEqual(request.headers["content-type"], "image/jpeg")
            XCTAssertEqual(request.bodyLength, data.count)
            XCTAssertEqual(request.bodySHA256, hash)
        }
    }

    func testWrongSecretSaysTheSecretDoesNotMatch() throws {
        let wrong = S3Client(configuration: try S3Configuration(
            accessKeyID: server.accessKey, secretAccessKey: "not-the-secret-42", region: server.region, endpoint: server.endpoint))
        XCTAssertThrowsError(try wrong.listObjectsV2(bucket: bucket)) { error in
            guard case S3Error.signatureMismatch(let accessKey) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(accessKey, "test:tester")
            let text = "\(error)"
            XCTAssertTrue(text.contains("secret key does not match AWS_ACCESS_KEY_ID test:tester"), text)
            XCTAssertFalse(text.contains("not-the-secret-42"), text)
            XCTAssertFalse(text.contains("testing"), text)
        }
        XCTAssertThrowsError(try wrong.putObject(bucket: bucket, key: key("x"), data: Data("x".utf8))) { error in
            guard case S3Error.signatureMismatch = error else { return XCTFail("\(error)") }
        }
    }

    /// Swift's s3api (with tempauth) never says InvalidAccessKeyId: an unknown key is a
    /// SignatureDoesNotMatch there, which the message allows for. AWS's own answer is checked
    /// against a scripted server.
    func testUnknownAccessKeySaysSo() throws {
        let stranger = S3Client(configuration: try S3Configuration(
            accessKeyID: "nobody:here", secretAccessKey: "whatever", region: server.region, endpoint: server.endpoint))
        XCTAssertThrowsError(try stranger.listObjectsV2(bucket: bucket)) { error in
            guard case S3Error.signatureMismatch(let accessKey) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(accessKey, "nobody:here")
            XCTAssertTrue("\(error)".contains("do not know the access key"), "\(error)")
        }

        func error(status: Int, code: String, message: String) throws -> S3Error {
            let scripted = try ScriptedHTTPServer(answers: [.init(
                status: status, body: "<Error><Code>\(code)</Code><Message>\(message)</Message><SignatureProvided>deadbeef</SignatureProvided></Error>")])
            defer { scripted.stop() }
            let client = S3Client(configuration: try S3Configuration(
                accessKeyID: "AKIAEXAMPLE", secretAccessKey: "very-secret", endpoint: scripted.endpoint))
            do {
                _ = try client.getObject(bucket: "bucket", key: "k")
            } catch let error as S3Error {
                XCTAssertFalse("\(error)".contains("very-secret"))
                XCTAssertFalse("\(error)".contains("deadbeef"))
                return error
            }
            throw S3Error.invalidResponse("no error")
        }
        let unknown = try error(status: 403, code: "InvalidAccessKeyId", message: "The AWS Access Key Id you provided does not exist in our records.")
        guard case .unknownAccessKey("AKIAEXAMPLE") = unknown else { return XCTFail("\(unknown)") }
        XCTAssertTrue("\(unknown)".contains("unknown access key AKIAEXAMPLE"))
        let denied = try error(status: 403, code: "AccessDenied", message: "Access Denied")
        guard case .accessDenied(let resource, _) = denied else { return XCTFail("\(denied)") }
        XCTAssertEqual(resource, "s3://bucket/k")
        let skewed = try error(status: 403, code: "RequestTimeTooSkewed", message: "The difference between the request time and the current time is too large.")
        guard case .clockSkewed = skewed else { return XCTFail("\(skewed)") }
        XCTAssertTrue("\(skewed)".contains("clock is off"))
        let other = try error(status: 409, code: "OperationAborted", message: "A conflicting operation is in progress.")
        guard case .http(409, "OperationAborted", "A conflicting operation is in progress.", _) = other else { return XCTFail("\(other)") }
    }

    func testMissingBucketIsNamed() throws {
        for call in [
            { _ = try self.client.listObjectsV2(bucket: "no-such-bucket-here") },
            { _ = try self.client.putObject(bucket: "no-such-bucket-here", key: "k", data: Data("x".utf8)) },
            { try self.client.headBucket("no-such-bucket-here") },
        ] {
            XCTAssertThrowsError(try call()) { error in
                guard case S3Error.noSuchBucket(let name) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(name, "no-such-bucket-here")
                XCTAssertTrue("\(error)".contains("'no-such-bucket-here' does not exist"))
            }
        }
        XCTAssertNoThrow(try client.headBucket(bucket))
    }

    func testEndpointDownFailsFastNamingTheEndpoint() throws {
        // A port nothing listens on: bound, then closed.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(fd)
        // The default retry policy: refused connections are retried, within a bound.
        let endpoint = "http://127.0.0.1:\(port)"
        let down = S3Client(configuration: try S3Configuration(
            accessKeyID: server.accessKey, secretAccessKey: server.secret, endpoint: endpoint))
        let start = Date()
        XCTAssertThrowsError(try down.headObject(bucket: bucket, key: "k")) { error in
            guard case S3Error.endpointUnreachable(let named, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(named, endpoint)
            XCTAssertTrue("\(error)".contains("cannot reach the S3 endpoint \(endpoint)"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
    }

    func testSlowDownAnd503AreRetriedUntilSuccess() throws {
        let slowDown = "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
        let scripted = try ScriptedHTTPServer(answers: [
            .init(status: 503, body: slowDown),
            .init(status: 503, body: ""),
            .init(status: 200, body: "third time", headers: ["ETag": "\"abc\"", "Content-Type": "text/plain"]),
        ])
        defer { scripted.stop() }
        var configuration = try S3Configuration(accessKeyID: "AKID", secretAccessKey: "secret", endpoint: scripted.endpoint)
        configuration.retryPolicy = S3RetryPolicy(maxAttempts: 5, baseDelay: 0.01)
        let flaky = S3Client(configuration: configuration)
        XCTAssertEqual(try flaky.getObject(bucket: "bucket", key: "a b.jpg"), Data("third time".utf8))
        let requests = scripted.requests()
        XCTAssertEqual(requests.count, 3)
        XCTAssertEqual(requests.map(\.path), Array(repeating: "/bucket/a%20b.jpg", count: 3))
        for request in requests {
            XCTAssertEqual(request.headers["x-amz-content-sha256"], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            XCTAssertTrue(request.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/") == true)
        }

        // With fewer attempts than failures, the last failure is reported with its S3 code.
        let always = try ScriptedHTTPServer(answers: [.init(status: 503, body: slowDown)])
        defer { always.stop() }
        configuration = try S3Configuration(accessKeyID: "AKID", secretAccessKey: "secret", endpoint: always.endpoint)
        configuration.retryPolicy = S3RetryPolicy(maxAttempts: 3, baseDelay: 0.01)
        XCTAssertThrowsError(try S3Client(configuration: configuration).getObject(bucket: "bucket", key: "k")) { error in
            guard case S3Error.http(503, "SlowDown", _, _) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(always.requests().count, 3)
    }

    func testOneClientServesSeveralThreadsAtOnce() throws {
        let prefix = key("")
        let client = self.client!, bucket = self.bucket
        let failures = NSLock()
        nonisolated(unsafe) var problems: [String] = []
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                let name = prefix + "thread-\(index)"
                let data = Data(repeating: UInt8(index), count: 10_000 + index)
                try client.putObject(bucket: bucket, key: name, data: data)
                if try client.getObject(bucket: bucket, key: name) != data { throw S3Error.invalidResponse("wrong bytes for \(name)") }
            } catch {
                failures.lock(); problems.append("\(error)"); failures.unlock()
            }
        }
        XCTAssertEqual(problems, [])
        XCTAssertEqual(try client.listObjectsV2(bucket: bucket, prefix: prefix).objects.count, 8)
    }
}
