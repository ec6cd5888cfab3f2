import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// A bucket (and prefix) of a real S3 server that a test's library keeps its originals in:
/// the arguments and environment that point shoebox at it, and a client of its own to
/// look at what is there.
struct ObjectStoreBackend {
    let server: SwiftS3Server
    let bucket: String
    let prefix: String
    let client: S3Client

    init(server: SwiftS3Server, bucket: String, prefix: String = "archive") throws {
        self.server = server
        self.bucket = bucket
        self.prefix = prefix
        client = S3Client(configuration: try server.configuration())
        try server.createBucket(bucket)
    }

    var url: String { "s3://\(bucket)/\(prefix)" }
    var arguments: [String] { ["--store", url] }
    var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": server.accessKey, "AWS_SECRET_ACCESS_KEY": server.secret,
         "AWS_ENDPOINT_URL": server.endpoint, "AWS_REGION": server.region]
    }

    func key(_ path: String) -> String { prefix + "/" + path }

    func contents(of path: String) throws -> Data {
        try client.getObject(bucket: bucket, key: key(path))
    }

    /// What the object at `path` carries as x-amz-meta-sha256, and its Content-Type.
    func head(_ path: String) throws -> S3ObjectInfo {
        try client.headObject(bucket: bucket, key: key(path))
    }

    /// Every object under PREFIX/originals/, as library paths.
    func originalPaths() throws -> [String] {
        var paths: [String] = []
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket, prefix: key("originals/"), continuationToken: token)
            paths += page.objects.map { String($0.key.dropFirst(prefix.count + 1)) }
            token = page.nextContinuationToken
        } while token != nil
        return paths.sorted()
    }

    /// Multipart uploads begun and neither completed nor aborted, anywhere in the bucket.
    func incompleteUploads() throws -> Int {
        try client.listAllMultipartUploads(bucket: bucket).count
    }
}

extension FetchRunner {
    /// The bucket holds exactly the catalog's originals, each whole (its bytes hash to the
    /// row's SHA-256, which the object also carries, with the Content-Type of its format);
    /// no multipart upload is left open; nothing is under LIBRARY/originals/. With
    /// `allowStaging` (after a kill) a row may still wait, staged in .tmp/, for the next run — with
    /// a shared catalog, an object may instead wait at a name a dead writer reserved for it.
    func assertConsistent(in store: ObjectStoreBackend, allowStaging: Bool = false,
                          file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try openCatalog()
        defer { catalog.close() }
        let objects = Set(try store.originalPaths())
        var recorded: Set<String> = []
        for original in try catalog.allOriginals() {
            recorded.insert(original.path)
            if !objects.contains(original.path) {
                // A writer sharing its catalog uploads a batch before it commits it: its rows never wait in .tmp/.
                let staged = library.appendingPathComponent(".tmp/\(original.sha256).staged").path
                XCTAssertTrue(allowStaging && sharedCatalog == nil && FileManager.default.fileExists(atPath: staged),
                              "row without object: \(original.path)", file: file, line: line)
                continue
            }
            let bytes = try store.contents(of: original.path)
            XCTAssertEqual(SHA256Hasher.hex(of: bytes), original.sha256, "bytes differ: \(original.path)", file: file, line: line)
            XCTAssertEqual(Int64(bytes.count), original.bytes, "size differs: \(original.path)", file: file, line: line)
            let head = try store.head(original.path)
            XCTAssertEqual(head.metadata["sha256"], original.sha256, "x-amz-meta-sha256 of \(original.path)", file: file, line: line)
            XCTAssertEqual(head.contentType, original.contentType, "Content-Type of \(original.path)", file: file, line: line)
        }
        for path in objects.subtracting(recorded).sorted() {
            try assertLeftByADeadWriter(path, allowStaging: allowStaging, what: "object without a row", file: file, line: line) {
                try SHA256Hasher.hex(of: store.contents(of: path))
            }
        }
        XCTAssertEqual(try store.incompleteUploads(), 0, "multipart uploads left open", file: file, line: line)
        let local = (FileManager.default.enumerator(atPath: library.appendingPathComponent("originals").path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".") }
        XCTAssertEqual(local, [], "files under LIBRARY/originals/ although the originals go to the bucket", file: file, line: line)
        if !allowStaging {
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent(".tmp").path)) ?? []
            XCTAssertEqual(staging, [], "leftover staging files", file: file, line: line)
        }
    }
}
