import Foundation

/// One `PostgresServer` for a test class (about 1 s and 70 MB to start; each test makes its
/// own database): started in the class's `setUp()`, stopped in its `tearDown()`. A server that
/// did not start is no skip: each test of the class throws the start failure from `running()`.
///
///     static let postgres = PostgresFixture()
///     override class func setUp() { super.setUp(); postgres.start() }
///     override class func tearDown() { postgres.stop(); super.tearDown() }
///     override func setUpWithError() throws { uri = try Self.postgres.running().makeDatabase() }
public final class PostgresFixture: @unchecked Sendable {
    private let lock = NSLock()
    private var server: PostgresServer?
    private var startError: Error?

    public init() {}

    /// Starts the server; a failure is kept for `running()`.
    public func start() {
        let outcome = Result { try PostgresServer() }
        lock.withLock {
            switch outcome {
            case .success(let started): (server, startError) = (started, nil)
            case .failure(let error): (server, startError) = (nil, error)
            }
        }
    }

    /// Stops the server (safe when it did not start).
    public func stop() {
        let running = lock.withLock { () -> PostgresServer? in
            defer { server = nil }
            return server
        }
        running?.stop()
    }

    /// The running server; throws why it did not start.
    public func running() throws -> PostgresServer {
        try lock.withLock {
            if let server { return server }
            throw startError ?? PostgresServer.StartFailure(description: "PostgreSQL was not started: call start() in the class's setUp()")
        }
    }
}
