import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// The shoebox binary with `--catalog postgres://…` against a real PostgreSQL 15 (one server for
/// the class, a database per test) and the fixture HTTP server, all on 127.0.0.1.
final class SharedCatalogTests: XCTestCase {
    static let postgres = PostgresFixture()
    nonisolated(unsafe) static var fixtures: FixtureServer?
    nonisolated(unsafe) static var startError: Error?

    override class func setUp() {
        super.setUp()
        postgres.start()
        do {
            fixtures = try FixtureServer()
        } catch {
            startError = error
        }
    }

    override class func tearDown() {
        postgres.stop()
        fixtures?.stop()
        fixtures = nil
        super.tearDown()
    }

    private var server: FixtureServer!
    private var uri = ""
    private var work: URL!
    private var library: String { work.appendingPathComponent("library").path }

    override func setUpWithError() throws {
        if let error = Self.startError { throw error }
        server = try XCTUnwrap(Self.fixtures)
        uri = try Self.postgres.running().makeDatabase()
        work = try makeTemporaryDirectory(self)
    }

    private func writeList(_ urls: [String], name: String = "list.txt") throws -> String {
        let list = work.appendingPathComponent(name)
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        return list.path
    }

    private func catalog() throws -> PostgresCatalog { try PostgresCatalog(uri: uri) }

    /// A unique key for the fixture server (its request log is per key, for the whole class).
    private func key(_ name: String) -> String { name + "-" + UUID().uuidString.prefix(8).lowercased() }

    func testFetchRecordsInPostgreSQLWithoutJournalOrLocalCatalogAndARerunSkips() throws {
        let keys = (1...5).map { key("p\($0)") }
        let list = try writeList(keys.map { server.url("/photo/\($0)?date=2021:06:0\(1)%2012:00:00") })
        let first = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri])
        XCTAssertEqual(first.status, 0, first.stderr)
        let shared = try catalog()
        defer { shared.close() }
        XCTAssertEqual(try shared.countOriginals(), 5)
        XCTAssertEqual(try shared.countSources(), 5)
        for original in try shared.allOriginals() {
            XCTAssertEqual(FileManager.default.contents(atPath: library + "/" + original.path)?.count, Int(original.bytes))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.sqlite"), "no local catalog")
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/journal.jsonl"), "no journal: the database is durable")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: library + "/.tmp"), [],
                       "the writer's staging folder is removed when it ends")

        // The list is finished in the shared queue: a rerun has nothing to claim, and says so.
        let second = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("list.txt: finished (5 done, 0 failed)"), second.stderr)
        // The same URLs given again on their own (not the shared list): skipped as archived, no request.
        let again = try ShoeboxProcess.run(["fetch", "-L", library, "--catalog", uri] + keys.flatMap {
            ["--url", server.url("/photo/\($0)?date=2021:06:0\(1)%2012:00:00")] })
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("5 skipped"), again.stderr)
        for key in keys { XCTAssertEqual(try server.requestTimes(key).count, 1, "\(key) was requested again") }

        let verify = try ShoeboxProcess.run(["verify", "-L", library, "--catalog", uri])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue((verify.stdout + verify.stderr).contains("5 originals checked"), verify.stdout + verify.stderr)
    }

    func testTwoWritersAtOnceWithTheSameBytesUnderOtherURLsKeepOneOriginalPerContent() throws {
        // The same ten photos under two names each, one list per writer, both running at once.
        let seeds = (1...10).map { key("same\($0)") }
        let listA = try writeList(seeds.map { server.url("/photo/a-\($0)?seed=\($0)") }, name: "a.txt")
        let listB = try writeList(seeds.map { server.url("/photo/b-\($0)?seed=\($0)") }, name: "b.txt")
        let a = try ShoeboxProcess.start(["fetch", listA, "-L", library, "--catalog", uri, "--json"])
        let b = try ShoeboxProcess.start(["fetch", listB, "-L", library, "--catalog", uri, "--json"])
        let resultA = ShoeboxProcess.waitCapturing(a.0, out: a.1, err: a.2)
        let resultB = ShoeboxProcess.waitCapturing(b.0, out: b.1, err: b.2)
        XCTAssertEqual(resultA.status, 0, resultA.stderr)
        XCTAssertEqual(resultB.status, 0, resultB.stderr)
        let shared = try catalog()
        defer { shared.close() }
        let originals = try shared.allOriginals()
        XCTAssertEqual(originals.count, 10, "one original per content")
        XCTAssertEqual(try shared.countSources(), 20, "every URL recorded")
        var files: [String] = []
        if let walker = FileManager.default.enumerator(atPath: library + "/originals") {
            while let path = walker.nextObject() as? String {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: library + "/originals/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                    files.append("originals/" + path)
                }
            }
        }
        XCTAssertEqual(files.sorted(), originals.map(\.path).sorted(), "no second copy left in the library")
        let outcomes = (resultA.stdout + resultB.stdout).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.compactMap { $0["outcome"] as? String }
        XCTAssertEqual(outcomes.filter { $0 == "stored" }.count, 10, "\(outcomes)")
        XCTAssertEqual(outcomes.filter { $0 == "duplicate" }.count, 10, "\(outcomes)")
    }

    func testTheCatalogRemembersItsStoreAndRefusesAnother() throws {
        let list = try writeList([server.url("/photo/\(key("bound"))")])
        XCTAssertEqual(try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri]).status, 0)
        let other = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri, "--store", "s3://elsewhere/x"],
                                           environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"])
        XCTAssertEqual(other.status, 2, other.stderr)
        XCTAssertTrue(other.stderr.contains("LIBRARY/originals/") && other.stderr.contains("s3://elsewhere/x"), other.stderr)
    }

    func testAnUnreachableDatabaseIsExitStatusFiveAndABadURIIsAUsageError() throws {
        let list = try writeList([server.url("/photo/\(key("down"))")])
        // A port nothing listens on: connection refused at once.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(listener)
        let down = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", "postgres://postgres:s3cret@127.0.0.1:\(port)/photos"])
        XCTAssertEqual(down.status, 5, down.stderr)
        XCTAssertTrue(down.stderr.contains("127.0.0.1:\(port)"), down.stderr)
        XCTAssertFalse(down.stderr.contains("s3cret"), "the password was printed: \(down.stderr)")
        let bad = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", "mysql://user:s3cret@127.0.0.1/photos"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--catalog"), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("s3cret"), "the password was printed: \(bad.stderr)")
        let fromEnvironment = try ShoeboxProcess.run(["verify", "-L", library],
                                                     environment: ["SHOEBOX_CATALOG": "postgres://postgres@127.0.0.1:\(port)/photos"])
        XCTAssertEqual(fromEnvironment.status, 5, "SHOEBOX_CATALOG is honoured: \(fromEnvironment.stderr)")
    }

    func testVerifyBesideWritersTakesTheirBatchesInFlightForWorkInProgress() throws {
        let list = try writeList([server.url("/photo/\(key("v"))")])
        XCTAssertEqual(try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri]).status, 0)
        // A writer between its publish and its commit: the path reserved, the file in place,
        // its staging folder with a download in progress.
        let writer = try catalog()
        defer { writer.close() }
        let path = "originals/2026/12/02/in-flight.jpg"
        XCTAssertTrue(try writer.reservePath(path, for: String(repeating: "d", count: 64)))
        try FileManager.default.createDirectory(atPath: library + "/originals/2026/12/02", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: library + "/" + path, contents: Data("published, not yet committed".utf8))
        let staging = try WriterStagingFolder(parent: library + "/.tmp", library: library)
        FileManager.default.createFile(atPath: staging.path + "/x.part", contents: Data("half".utf8))
        let verify = try ShoeboxProcess.run(["verify", "-L", library, "--catalog", uri])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertFalse((verify.stdout + verify.stderr).contains("in-flight.jpg"), verify.stdout + verify.stderr)
        XCTAssertFalse((verify.stdout + verify.stderr).contains("x.part"), verify.stdout + verify.stderr)
        withExtendedLifetime(staging) {}
        // Once the reservation ends without a row, the file is an unknown file again.
        try writer.releaseReservations()
        let after = try ShoeboxProcess.run(["verify", "-L", library, "--catalog", uri])
        XCTAssertEqual(after.status, 1, after.stdout + after.stderr)
        XCTAssertTrue((after.stdout + after.stderr).contains("in-flight.jpg"), after.stdout + after.stderr)
    }
}
