import Foundation
import XCTest
@testable import ShoeboxKit

/// Publishing walks the library's folders by descriptor and never through a link.
final class LocalOriginalStoreTests: XCTestCase {
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testARefusedLinkCostsNoDescriptorHoweverOftenItIsTried() throws {
        let root = try makeTemporaryDirectory(self).path
        let outside = try makeTemporaryDirectory(self).path
        let layout = LibraryLayout(root: root + "/library")
        let store = try LocalOriginalStore(layout: layout)
        try FileManager.default.createSymbolicLink(atPath: layout.originals + "/2020", withDestinationPath: outside)
        let before = try openDescriptors()
        for index in 0..<200 {
            XCTAssertThrowsError(try store.publish(sha256: String(repeating: "a", count: 64), to: "originals/2020/01/02/\(index).jpg")) { error in
                XCTAssertEqual(error as? LibraryError, .symbolicLinkInside(path: layout.originals + "/2020"))
            }
        }
        XCTAssertEqual(try openDescriptors(), before, "each refused publish left a folder descriptor open")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
    }
}
