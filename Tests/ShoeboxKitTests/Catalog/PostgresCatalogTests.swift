import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// PostgresCatalog against a real PostgreSQL 15 server on 127.0.0.1 (one per class, a fresh
/// database per test): the `Catalog` contract shared with SQLiteCatalog, then what only a
/// server has (schema creation races, a server that stops, wrong names, passwords).
final class PostgresCatalogTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var server: PostgresServer!
    private var uri = ""

    override func setUpWithError() throws {
        guard PostgresServer.isAvailable else {
            throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)")
        }
        server = try Self.postgres.running()
        uri = try server.makeDatabase()
    }

    private var contract: CatalogContract {
        let uri = uri
        return CatalogContract(open: { try PostgresCatalog(uri: uri) }) { error in
            (error as? PostgresError)?.isConstraintViolation ?? false
        }
    }

    private var database: String { String(uri.split(separator: "/").last ?? "") }

    // MARK: The contract shared with SQLiteCatalog

    func testRoundTrips() throws { try contract.checkRoundTrips() }
    func testInsertConflicts() throws { try contract.checkInsertConflicts() }
    func testInsertIfAbsent() throws { try contract.checkInsertIfAbsent() }
    func testConcurrentInsertIfAbsent() throws { try contract.checkConcurrentInsertIfAbsent() }
    func testRollback() throws { try contract.checkRollback() }
    func testNestedTransactions() throws { try contract.checkNestedTransactions() }
    func testPagedCursor() throws { try contract.checkPagedCursor() }
    func testSourcesBySHA() throws { try contract.checkSourcesBySHA() }
    func testSourceVersions() throws { try contract.checkSourceVersions() }
    func testThumbnails() throws { try contract.checkThumbnails() }
    func testPathReservations() throws { try contract.checkPathReservations() }
    func testBatchedSourceLookups() throws { try contract.checkBatchedSourceLookups() }
    func testBatchedOriginalsAndSources() throws { try contract.checkBatchedOriginalsAndSources() }
    func testBatchedPathReservations() throws { try contract.checkBatchedPathReservations() }

    /// Paging keeps byte order on a database whose default collation (ICU en-US) would sort
    /// "a" before "B".
    func testPagedCursorKeepsByteOrderUnderAnICUCollation() throws {
        uri = try server.makeDatabase(icuLocale: "en-US")
        XCTAssertEqual(try server.psql("SELECT 'B' < 'a'", database: database), "f", "the database sorts by locale")
        try contract.checkPagedCursor()
    }

    // MARK: Schema

    func testAVersion3CatalogIsUpgradedOnceWithItsSourcesAsHistory() throws {
        let catalog = try PostgresCatalog(uri: uri)
        try catalog.insertOriginal(CatalogContract.original(1))
        try catalog.upsertSource(CatalogContract.source("https://a.example/1.jpg", sha: CatalogContract.uniqueHash(1)))
        catalog.close()
        _ = try server.psql("DROP TABLE source_versions", database: database)
        _ = try server.psql("ALTER TABLE originals DROP COLUMN lens", database: database)
        _ = try server.psql("ALTER TABLE originals DROP COLUMN exposure", database: database)
        _ = try server.psql("UPDATE meta SET value = '3' WHERE key = 'schema_version'", database: database)
        // Two processes opening it at once: both succeed, the upgrade runs once.
        let box = LockedResults()
        let address = uri
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            box.set(index, Result { try PostgresCatalog(uri: address).sourceVersions(sha256: CatalogContract.uniqueHash(1)) })
        }
        for result in box.all { XCTAssertEqual(try result.get().map(\.url), ["https://a.example/1.jpg"]) }
        XCTAssertEqual(try server.psql("SELECT value FROM meta WHERE key = 'schema_version'", database: database),
                       "\(PostgresCatalog.schemaVersion)")
        let upgraded = try PostgresCatalog(uri: uri)
        XCTAssertNil(try upgraded.original(sha256: CatalogContract.uniqueHash(1))?.lens, "catalogued before lenses were: not known")
        XCTAssertNil(try upgraded.original(sha256: CatalogContract.uniqueHash(1))?.exposure, "nor its exposure")
        var query = OriginalQuery()
        query.lens = "EF"
        XCTAssertEqual(try upgraded.countOriginals(matching: query.lensNotJudged!, upTo: 10), 1)
        try upgraded.recordMetadata(lens: "", exposure: "f=8 iso=100", sha256: CatalogContract.uniqueHash(1))
        XCTAssertEqual(try upgraded.original(sha256: CatalogContract.uniqueHash(1))?.exposureValues, Exposure(fNumber: 8, iso: 100))
        XCTAssertEqual(try upgraded.countOriginals(matching: query.lensNotJudged!, upTo: 10), 0)
        try upgraded.insertOriginal(CatalogContract.original(2))
        XCTAssertEqual(try upgraded.original(sha256: CatalogContract.uniqueHash(2))?.lens, "EF2mm f/2.8L USM")
        XCTAssertEqual(try upgraded.countOriginals(matching: query, upTo: 10), 1)
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_indexes WHERE indexname = 'originals_lens_unknown'", database: database), "1")
    }

    func testSchemaIsCreatedOnceWithItsVersion() throws {
        let catalog = try PostgresCatalog(uri: uri)
        try catalog.insertOriginal(CatalogContract.original(1))
        XCTAssertEqual(try server.psql("SELECT value FROM meta WHERE key = 'schema_version'", database: database),
                       "\(PostgresCatalog.schemaVersion)")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM meta", database: database), "3")
        let tables = try server.psql(
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'",
            database: database)
        XCTAssertEqual(tables, "meta,originals,path_reservations,source_versions,sources,thumbnails")
        let indexes = try server.psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'originals_folded_path'",
                                      database: database)
        XCTAssertTrue(indexes.contains("CREATE UNIQUE INDEX"), indexes)
        catalog.close()
        // Reopening finds it and changes nothing.
        let created = try server.psql("SELECT value FROM meta WHERE key = 'created_at'", database: database)
        let again = try PostgresCatalog(uri: uri)
        XCTAssertEqual(try again.countOriginals(), 1)
        XCTAssertEqual(try server.psql("SELECT value FROM meta WHERE key = 'created_at'", database: database), created)
    }

    /// Several sessions opening a new database at the same moment all succeed (advisory lock
    /// plus IF NOT EXISTS), and the meta rows exist once.
    func testConcurrentFirstOpensAllSucceed() throws {
        let count = 6
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let results = ResultBox()
        let uri = uri
        for index in 0..<count {
            group.enter()
            Thread {
                start.wait()
                do {
                    let catalog = try PostgresCatalog(uri: uri)
                    results.add(round: 0, try catalog.insertOriginalIfAbsent(CatalogContract.original(index)))
                    catalog.close()
                } catch {
                    results.fail("\(error)")
                }
                group.leave()
            }.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
        XCTAssertEqual(results.failures, [])
        XCTAssertEqual(results.answers(round: 0), Array(repeating: true, count: count))
        XCTAssertEqual(try server.psql("SELECT count(*) FROM meta", database: database), "3")
    }

    func testNewerSchemaVersionIsRefused() throws {
        _ = try PostgresCatalog(uri: uri)
        try server.psql("UPDATE meta SET value = '99' WHERE key = 'schema_version'", database: database)
        XCTAssertThrowsError(try PostgresCatalog(uri: uri)) { error in
            XCTAssertEqual(error as? PostgresError, .schemaTooNew(
                server: "127.0.0.1:\(server.port) (database \(database), user postgres)", found: 99,
                supported: PostgresCatalog.schemaVersion))
            XCTAssertTrue("\(error)".contains("upgrade shoebox"), "\(error)")
        }
    }

    func testForeignDatabaseIsNotACatalog() throws {
        try server.psql("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)", database: database)
        XCTAssertThrowsError(try PostgresCatalog(uri: uri)) { error in
            guard case PostgresError.notACatalog = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: database), "1",
                       "left untouched")
    }

    // MARK: What PostgreSQL adds to the contract

    /// The case-folded path is unique in PostgreSQL (SQLite's index is not): IMG.jpg and
    /// img.JPG, or Été and été, cannot both be recorded.
    func testCaseFoldedPathConflict() throws {
        let catalog = try PostgresCatalog(uri: uri)
        try catalog.insertOriginal(CatalogContract.original(1, path: "originals/2024/IMG.jpg"))
        try catalog.insertOriginal(CatalogContract.original(2, path: "originals/2024/Été.jpg"))
        for (n, path) in [(3, "originals/2024/img.JPG"), (4, "originals/2024/été.JPG")] {
            XCTAssertThrowsError(try catalog.insertOriginal(CatalogContract.original(n, path: path))) { error in
                guard case let PostgresError.constraint(_, constraint, _) = error else { return XCTFail("got \(error)") }
                XCTAssertEqual(constraint, "originals_folded_path")
            }
            XCTAssertThrowsError(try catalog.insertOriginalIfAbsent(CatalogContract.original(n, path: path)))
        }
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: "ORIGINALS/2024/img.jpg"))
        XCTAssertEqual(try catalog.countOriginals(), 2)
        // The constraints are named in the error.
        XCTAssertThrowsError(try catalog.insertOriginal(CatalogContract.original(1, path: "originals/x.jpg"))) { error in
            guard case let PostgresError.constraint(_, constraint, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(constraint, "originals_pkey")
        }
        XCTAssertThrowsError(try catalog.insertOriginal(CatalogContract.original(5, path: "originals/2024/IMG.jpg"))) { error in
            guard case let PostgresError.constraint(_, constraint, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(constraint, "originals_path_key")
        }
    }

    /// Unlike SQLite, a failed statement aborts the whole PostgreSQL transaction: a body that
    /// catches the error and goes on gets an error at commit, and nothing is kept.
    func testCaughtFailureWithoutSavepointKeepsNothing() throws {
        let catalog = try PostgresCatalog(uri: uri)
        try catalog.insertOriginal(CatalogContract.original(1))
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(CatalogContract.original(2))
            XCTAssertThrowsError(try catalog.insertOriginal(CatalogContract.original(1)))
        }) { error in
            guard case let PostgresError.server(_, sqlState, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(sqlState, "25P02")
        }
        XCTAssertEqual(try catalog.countOriginals(), 1)
    }

    /// Floating-point columns round-trip bit for bit, infinities included.
    /// Two writers whose batches want the same names in opposite orders: each batch's rows go
    /// in in one order, so one waits for the other instead of both being killed as a deadlock
    /// (40P01, which no retry handles: the batch would fail and the run stop). Found by review.
    func testBatchedReservationsOfTwoWritersInOppositeOrdersNeverDeadlock() throws {
        let uri = uri
        let names = (0..<64).map { "originals/2024/05/01/IMG_\($0).jpg" }
        let errors = LockedBox([String]())
        let group = DispatchGroup()
        for writer in 0..<2 {
            let catalog = UncheckedBox(try PostgresCatalog(uri: uri))
            let order = writer == 0 ? names : names.reversed()
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for round in 0..<200 {
                    do {
                        let sha = String(repeating: "\(writer)", count: 60) + String(format: "%04d", round)
                        _ = try catalog.value.reservePaths(order.map { PathReservation(path: $0, sha256: sha) })
                        try catalog.value.releaseReservations()
                    } catch {
                        errors.update { $0.append("\(error)") }
                        try? catalog.value.releaseReservations()
                    }
                }
                catalog.value.close()
            }
        }
        group.wait()
        XCTAssertEqual(errors.current, [])
    }

    /// Two writers' recoveries that both listed a dead writer's reservation: one takes it over,
    /// the other gets nothing, also once the path has been reserved again since; without that,
    /// the second removed the object a live writer had just published there (and then
    /// catalogued): a catalogued original gone, found by the kill test at scale.
    func testAStaleReservationIsTakenOverByOneRecoveryOnly() throws {
        let dead = try PostgresCatalog(uri: uri)
        XCTAssertTrue(try dead.reservePath("originals/2024/05/26/IMG_0333.jpg", for: String(repeating: "a", count: 64)))
        dead.close()  // its session, and so its liveness lock, ends
        let first = try PostgresCatalog(uri: uri), second = try PostgresCatalog(uri: uri), live = try PostgresCatalog(uri: uri)
        defer { first.close(); second.close(); live.close() }
        // The server ends the closed session (and frees its lock) a moment after the close.
        var seenByFirst = try first.staleReservations(olderThan: 0)
        let deadline = Date().addingTimeInterval(10)
        while seenByFirst.isEmpty && Date() < deadline {
            usleep(50_000)
            seenByFirst = try first.staleReservations(olderThan: 0)
        }
        let seenBySecond = try second.staleReservations(olderThan: 0)
        XCTAssertEqual(seenByFirst.map(\.path), ["originals/2024/05/26/IMG_0333.jpg"])
        XCTAssertEqual(seenBySecond, seenByFirst)
        let taken = try XCTUnwrap(try first.takeOver(seenByFirst[0]))
        XCTAssertNil(try second.takeOver(seenBySecond[0]), "taken over already")
        XCTAssertFalse(try live.reservePath(taken.path, for: taken.sha256), "held while the first recovery deals with it")
        try first.dropReservation(taken)
        XCTAssertTrue(try live.reservePath(taken.path, for: taken.sha256), "free once dealt with, and reserved again")
        XCTAssertNil(try second.takeOver(seenBySecond[0]), "a live writer's reservation now: never the dead one's")
        XCTAssertTrue(try live.isReserved(taken.path))
    }

    /// Two URLs that differ only in Unicode normalization are two rows (their bytes differ), though
    /// Swift strings call them equal: a batch upsert keeps both, as one upsert at a time does.
    func testBatchedSourcesKeepURLsThatDifferOnlyInNormalization() throws {
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        let composed = "http://127.0.0.1:9/caf\u{E9}.jpg", decomposed = "http://127.0.0.1:9/cafe\u{301}.jpg"
        let records = [composed, decomposed].map {
            SourceRecord(url: $0, finalURL: nil, etag: nil, lastModified: nil, httpStatus: 404, fetchedAt: "2024-05-01T00:00:00Z", outcome: .failed)
        }
        try catalog.upsertSources(records)
        XCTAssertEqual(try catalog.countSources(), 2)
        XCTAssertEqual(try catalog.sources(urls: [decomposed]).count, 1)
    }

    func testDoublesRoundTripExactly() throws {
        let catalog = try PostgresCatalog(uri: uri)
        let values: [Double] = [0.1, 1.0 / 3.0, -2.294_481_987_654_321, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity]
        for (n, value) in values.enumerated() {
            var record = CatalogContract.bareOriginal(n)
            record.gpsLatitude = value
            record.gpsAltitude = -value
            try catalog.insertOriginal(record)
            XCTAssertEqual(try catalog.original(sha256: record.sha256), record)
        }
    }

    // MARK: A server that goes away

    /// The server stops between calls: a typed error naming the server, never a crash; calls
    /// after it keep failing cleanly; a transaction in progress keeps nothing.
    func testServerStoppedMidUse() throws {
        let own = try PostgresServer()
        defer { own.stop() }
        let catalog = try PostgresCatalog(uri: own.uri())
        try catalog.insertOriginal(CatalogContract.original(1))
        let name = "127.0.0.1:\(own.port)"
        var caught: Error?
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(CatalogContract.original(2))
            own.stop()
            try catalog.insertOriginal(CatalogContract.original(3))
        }) { caught = $0 }
        guard case let PostgresError.connectionLost(server, _) = try XCTUnwrap(caught) else {
            return XCTFail("got \(String(describing: caught))")
        }
        XCTAssertTrue(server.hasPrefix(name), server)
        XCTAssertTrue("\(caught!)".contains(name), "\(caught!)")
        // Later calls try to reconnect once and fail with a typed error too.
        XCTAssertThrowsError(try catalog.countOriginals()) { error in
            guard case let PostgresError.connectionLost(_, detail) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(detail.contains("reconnecting failed"), detail)
            XCTAssertTrue("\(error)".contains(name), "\(error)")
        }
        XCTAssertThrowsError(try catalog.original(sha256: CatalogContract.uniqueHash(1)))
        catalog.close()
        XCTAssertThrowsError(try catalog.countOriginals()) { error in
            guard case PostgresError.closed = error else { return XCTFail("got \(error)") }
        }
    }

    /// The server ends a session (restart, administrator): that call fails, the next one outside
    /// a transaction reconnects and works.
    func testTerminatedSessionReconnects() throws {
        let catalog = try PostgresCatalog(uri: uri)
        try catalog.insertOriginal(CatalogContract.original(1))
        try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()")
        XCTAssertThrowsError(try catalog.countOriginals()) { error in
            guard case PostgresError.connectionLost = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try catalog.countOriginals(), 1)
        XCTAssertEqual(try catalog.original(sha256: CatalogContract.uniqueHash(1)), CatalogContract.original(1),
                       "prepared statements made anew")
    }

    func testNoServerAtThatPortNamesHostAndPortButNoPassword() throws {
        let port = try freePort()
        let started = Date()
        XCTAssertThrowsError(try PostgresCatalog(uri: "postgres://shoebox:s3cret-pw@127.0.0.1:\(port)/photos")) { error in
            guard case let PostgresError.serverUnreachable(server, detail) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(server, "127.0.0.1:\(port) (database photos, user shoebox)")
            XCTAssertTrue(detail.contains("refused"), detail)
            XCTAssertFalse("\(error)".contains("s3cret"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testWrongDatabaseNameIsAClearError() throws {
        XCTAssertThrowsError(try PostgresCatalog(uri: server.uri(database: "no_such_db"))) { error in
            XCTAssertEqual(error as? PostgresError, .databaseMissing(
                server: "127.0.0.1:\(server.port) (database no_such_db, user postgres)", database: "no_such_db"))
            XCTAssertTrue("\(error)".contains("has no database \"no_such_db\""), "\(error)")
        }
    }

    func testUnknownUserIsAnAuthenticationError() throws {
        XCTAssertThrowsError(try PostgresCatalog(uri: "postgresql://nobody:hunter2@127.0.0.1:\(server.port)/postgres")) { error in
            guard case let PostgresError.authenticationFailed(_, user, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(user, "nobody")
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
        }
    }

    func testInvalidURIsAreRefusedWithoutTheirPassword() throws {
        XCTAssertThrowsError(try PostgresCatalog(uri: "mysql://u:pw1@127.0.0.1/db")) { error in
            guard case let PostgresError.invalidURI(uri, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(uri, "mysql://u:***@127.0.0.1/db")
        }
        XCTAssertThrowsError(try PostgresCatalog(uri: "postgres://u:pw2@127.0.0.1/db?bogus=1&password=pw3")) { error in
            guard case PostgresError.invalidURI = error else { return XCTFail("got \(error)") }
            XCTAssertFalse("\(error)".contains("pw2"), "\(error)")
            XCTAssertFalse("\(error)".contains("pw3"), "\(error)")
        }
    }

    func testURIRedaction() {
        XCTAssertEqual(PostgresURI.redacted("postgres://alice:p%40ss@db.example:5433/photos?sslmode=require"),
                       "postgres://alice:***@db.example:5433/photos?sslmode=require")
        XCTAssertEqual(PostgresURI.redacted("postgresql://alice@db/photos?password=x&sslmode=disable"),
                       "postgresql://alice@db/photos?password=***&sslmode=disable")
        XCTAssertEqual(PostgresURI.redacted("postgres://db/photos"), "postgres://db/photos")
        XCTAssertEqual(PostgresURI.redacted("postgres:///photos?host=/var/run/postgresql"),
                       "postgres:///photos?host=/var/run/postgresql")
        XCTAssertTrue(PostgresCatalog.isPostgresURI("PostgreSQL://x/y"))
        XCTAssertFalse(PostgresCatalog.isPostgresURI("/srv/library/catalog.sqlite"))
    }

    private func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw XCTSkip("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Results of parallel opens, by index.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Result<[SourceVersion], Error>] = [:]
    func set(_ index: Int, _ result: Result<[SourceVersion], Error>) { lock.withLock { results[index] = result } }
    var all: [Result<[SourceVersion], Error>] { lock.withLock { results.keys.sorted().map { results[$0]! } } }
}
