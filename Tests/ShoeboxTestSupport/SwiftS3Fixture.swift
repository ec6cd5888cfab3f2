import Foundation
import ShoeboxKit

/// One `SwiftS3Server` for a test class, with the buckets the class shares: started in the
/// class's `setUp()`, stopped in its `tearDown()`. A server that did not start is no skip:
/// each test of the class throws the start failure from `running()`.
///
///     static let s3 = SwiftS3Fixture(buckets: ["shoebox-test"])
///     override class func setUp() { super.setUp(); s3.start() }
///     override class func tearDown() { s3.stop(); super.tearDown() }
///     override func setUpWithError() throws { client = try Self.s3.client() }
public final class SwiftS3Fixture: @unchecked Sendable {
    /// Made by `start()` (the class's first bucket first).
    public let buckets: [String]
    private let lock = NSLock()
    private var server: SwiftS3Server?
    private var startError: Error?

    public init(buckets: [String] = []) {
        self.buckets = buckets
    }

    /// Starts the server and makes the buckets; a failure is kept for `running()`.
    public func start() {
        Shoebox.initializeProcess()
        let outcome: Result<SwiftS3Server, Error> = Result {
            let server = try SwiftS3Server()
            do {
                for bucket in buckets { try server.createBucket(bucket) }
            } catch {
                server.stop()
                throw error
            }
            return server
        }
        lock.withLock {
            switch outcome {
            case .success(let started): (server, startError) = (started, nil)
            case .failure(let error): (server, startError) = (nil, error)
            }
        }
    }

    /// Stops the server (safe when it did not start).
    public func stop() {
        let running = lock.withLock { () -> SwiftS3Server? in
            defer { server = nil }
            return server
        }
        running?.stop()
    }

    /// The running server, or the error that kept it from starting.
    public func running() throws -> SwiftS3Server {
        try lock.withLock {
            if let startError { throw startError }
            guard let server else {
                throw SwiftS3Server.StartFailure(description: "the Swift S3 server is not running (SwiftS3Fixture.start() was not called in the class's setUp)")
            }
            return server
        }
    }

    /// A client of the running server (its default retries).
    public func client() throws -> S3Client {
        S3Client(configuration: try running().configuration())
    }
}
