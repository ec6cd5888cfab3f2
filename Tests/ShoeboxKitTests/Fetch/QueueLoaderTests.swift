import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

final class QueueLoaderTests: XCTestCase {
    func testALoadRetriedAfterALostConnectionReportsEachRefusedLineOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queue-loader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt").path
        try """
        http://127.0.0.1:9/a.jpg
        not a url
        http://user:secret@127.0.0.1:9/b.jpg
        http://127.0.0.1:9/c.jpg

        """.write(toFile: list, atomically: true, encoding: .utf8)
        let queue = InMemoryWorkQueue()
        queue.failNextLoad = PostgresError.connectionLost(server: "127.0.0.1:9", detail: "server closed the connection")
        var reported: [FetchResult] = []
        var retry = ConnectionRetry(bound: 5)
        retry.sleep = { _ in }
        let identities = try QueueLoader.load(lists: [list], shownNames: [:], queue: queue, retry: retry) { reported.append($0) }
        XCTAssertEqual(reported.map(\.origin), [list + ":2", list + ":3"], "each refused line once, though the list was read twice")
        XCTAssertFalse(reported[1].url.contains("secret"), "the password is never shown")
        let status = try XCTUnwrap(try queue.status(list: try XCTUnwrap(identities.first)))
        XCTAssertEqual(status.total, 2, "the two URLs queued")
    }
}
