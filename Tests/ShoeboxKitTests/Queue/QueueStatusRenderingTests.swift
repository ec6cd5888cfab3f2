import Foundation
import ShoeboxKit
import XCTest

/// The readable and JSON forms of a queue's status, from a status made by hand.
final class QueueStatusRenderingTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_796_181_000.25)  // 2026-12-02T03:10:00.250Z

    private func status(loaded: Bool = true, loaderActive: Bool = false, workers: [QueueStatus.Worker]? = nil, nextRetry: Double? = 42) -> QueueStatus {
        QueueStatus(
            list: ListIdentity(sha256: String(repeating: "1a2b", count: 16), name: "urls.txt"), loaded: loaded,
            loaderActive: loaderActive,
            linesLoaded: 61_234, urlsOffered: 51_200, total: 50_000, done: 12_345, failed: 40, claimed: 120,
            waiting: 36_595, abandoned: 10, waitingForRetry: 900, nextRetry: nextRetry.map { now + $0 }, serverTime: now,
            workers: workers ?? [
                QueueStatus.Worker(
                    id: "box1-811-0a1b2c3d", host: "box1", pid: 811, started: now - 720, lastHeartbeat: now - 1,
                    leaseUntil: now + 29, leaseExpired: false, claims: 80),
                QueueStatus.Worker(
                    id: "box2-97-99aa01ff", host: "box2.example.org", pid: 97, started: now - 1_200, lastHeartbeat: now - 215,
                    leaseUntil: now - 185, leaseExpired: true, claims: 10),
                QueueStatus.Worker(
                    id: "box3-12000-00000001", host: "box3", pid: 12_000, started: now - 90_000, lastHeartbeat: now - 2,
                    leaseUntil: now + 58, leaseExpired: false, claims: 1_040),
            ])
    }

    func testTextNamesEveryCountAndTheWorkers() {
        let text = QueueStatusText.render(status())
        XCTAssertEqual(
            text,
            """
            List urls.txt (sha256 1a2b1a2b1a2b): loaded, 61,234 lines, 50,000 URLs (1,200 listed twice or queued by another list)
            12,345 of 50,000 done (24.6%), 120 claimed by 2 workers, 40 failed, 36,595 waiting, 900 waiting for retry (next in 42 s)
            10 of the waiting were held by a worker whose lease ran out

            WORKER               HOST                PID  CLAIMS  LEASE              HEARTBEAT  STARTED
            box1-811-0a1b2c3d    box1                811      80  29 s left          1 s ago    12 min ago
            box2-97-99aa01ff     box2.example.org     97      10  ran out 3 min ago  3 min ago  20 min ago
            box3-12000-00000001  box3              12000   1,040  58 s left          2 s ago    1 d 1 h ago

            """)
    }

    func testTextWhileLoadingAndWhenFinished() {
        let loading = QueueStatusText.render(status(loaded: false, loaderActive: true, workers: [], nextRetry: nil))
        XCTAssertTrue(
            loading.hasPrefix("List urls.txt (sha256 1a2b1a2b1a2b): loading, 50,000 URLs queued so far, through line 61,234"),
            loading)
        let stopped = QueueStatusText.render(status(loaded: false, loaderActive: false))
        XCTAssertTrue(
            stopped.hasPrefix(
                "List urls.txt (sha256 1a2b1a2b1a2b): loading stopped at line 61,234 with 50,000 URLs queued "
                    + "(1,200 listed twice or queued by another list); the next fetch of this list continues it\n"),
            stopped)
        XCTAssertTrue(loading.contains("900 waiting for retry\n"), "no next time without one: \(loading)")
        XCTAssertFalse(loading.contains("WORKER"), loading)

        let finished = QueueStatus(
            list: ListIdentity(sha256: String(repeating: "0", count: 64), name: "one.txt"), loaded: true, linesLoaded: 1,
            urlsOffered: 1, total: 1, done: 1, failed: 0, claimed: 0, waiting: 0, abandoned: 0, waitingForRetry: 0,
            nextRetry: nil, serverTime: now, workers: [])
        let text = QueueStatusText.render(finished)
        XCTAssertTrue(text.contains("1 of 1 done (100.0%), 0 claimed by 0 workers"), text)
        XCTAssertTrue(text.contains("1 URL\n"), text)
        XCTAssertTrue(text.hasSuffix("Finished: every URL is done or failed.\n"), text)
    }

    func testNumbersAndDurations() {
        XCTAssertEqual(QueueStatusText.grouped(0), "0")
        XCTAssertEqual(QueueStatusText.grouped(999), "999")
        XCTAssertEqual(QueueStatusText.grouped(1_000), "1,000")
        XCTAssertEqual(QueueStatusText.grouped(50_000_000), "50,000,000")
        XCTAssertEqual(QueueStatusText.grouped(-1_234), "-1,234")
        let almost = QueueStatus(
            list: ListIdentity(sha256: String(repeating: "0", count: 64), name: "x"), loaded: true, linesLoaded: 0,
            urlsOffered: 50_000, total: 50_000, done: 49_999, failed: 0, claimed: 1, waiting: 0, abandoned: 0,
            waitingForRetry: 0, nextRetry: nil, serverTime: now, workers: [])
        XCTAssertTrue(QueueStatusText.render(almost).contains("(99.9%)"), "rounded down, never 100% before the end")
    }

    func testJSONHasStableKeysAndServerTimes() throws {
        let json = QueueStatusJSON.render(status())
        XCTAssertFalse(json.contains("\n"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(
            object.keys.sorted(),
            [
                "abandoned", "claimed", "done", "failed", "finished", "list", "next_retry_at", "next_retry_in_seconds",
                "server_time", "total", "waiting", "waiting_for_retry", "workers",
            ])
        XCTAssertEqual(object["total"] as? Int, 50_000)
        XCTAssertEqual(object["done"] as? Int, 12_345)
        XCTAssertEqual(object["failed"] as? Int, 40)
        XCTAssertEqual(object["claimed"] as? Int, 120)
        XCTAssertEqual(object["waiting"] as? Int, 36_595)
        XCTAssertEqual(object["abandoned"] as? Int, 10)
        XCTAssertEqual(object["waiting_for_retry"] as? Int, 900)
        XCTAssertEqual(object["finished"] as? Bool, false)
        XCTAssertEqual(object["server_time"] as? String, "2026-12-02T03:10:00.250Z")
        XCTAssertEqual(object["next_retry_at"] as? String, "2026-12-02T03:10:42.250Z")
        XCTAssertEqual(object["next_retry_in_seconds"] as? Double, 42)
        let list = try XCTUnwrap(object["list"] as? [String: Any])
        XCTAssertEqual(list.keys.sorted(), ["lines_loaded", "loaded", "loader_active", "name", "sha256", "urls_offered"])
        XCTAssertEqual(list["sha256"] as? String, String(repeating: "1a2b", count: 16))
        XCTAssertEqual(list["loaded"] as? Bool, true)
        let workers = try XCTUnwrap(object["workers"] as? [[String: Any]])
        XCTAssertEqual(workers.count, 3)
        XCTAssertEqual(
            workers[1].keys.sorted(),
            ["claims", "host", "id", "last_heartbeat", "lease_expired", "lease_until", "pid", "started"])
        XCTAssertEqual(workers[1]["id"] as? String, "box2-97-99aa01ff")
        XCTAssertEqual(workers[1]["lease_expired"] as? Bool, true)
        XCTAssertEqual(workers[1]["lease_until"] as? String, "2026-12-02T03:06:55.250Z")
        XCTAssertEqual(workers[2]["pid"] as? Int, 12_000)

        let none = QueueStatusJSON.render(status(nextRetry: nil))
        XCTAssertTrue(none.contains("\"next_retry_at\":null"), none)
        XCTAssertTrue(none.contains("\"next_retry_in_seconds\":null"), none)
    }

    func testIdentities() throws {
        let me = WorkerIdentity.current()
        XCTAssertEqual(me.pid, Int(getpid()))
        XCTAssertFalse(me.host.isEmpty)
        XCTAssertTrue(me.id.hasPrefix("\(me.host)-\(me.pid)-"), me.id)
        XCTAssertNotEqual(WorkerIdentity.current().id, me.id, "a new id per call")

        let bytes = Array("http://h/a.jpg\n".utf8)
        let inMemory = ListIdentity.ofBytes(bytes, name: "a.txt")
        XCTAssertEqual(inMemory.sha256, "dc22f0b8b6e6dcf61590eda315669e52e26b9ab49c1f831a2ebc71b267734e4e", "sha256sum's")
        let path = NSTemporaryDirectory() + "list-\(UUID().uuidString).txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try ListIdentity.ofFile(atPath: path)
        XCTAssertEqual(fromFile, inMemory, "same bytes, same list, whatever the name")
        XCTAssertTrue(fromFile.name.hasPrefix("list-"))
        XCTAssertNotEqual(ListIdentity.ofBytes(bytes + [10], name: "a.txt"), inMemory)
    }
}
