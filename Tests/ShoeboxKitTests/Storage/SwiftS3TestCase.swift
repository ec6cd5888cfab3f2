import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// A test class whose tests share one Swift S3 server (a `SwiftS3Fixture`, started for the
/// class and stopped after it) and one bucket, `bucket`, named by the subclass. Each test
/// gets the server and a client of its own; a server that did not start fails every test of
/// the class with the reason. Declares no test itself (Linux finds only a class's own).
class SwiftS3TestCase: XCTestCase {
    /// The bucket the class's tests share.
    class var bucketName: String { "shoebox-test" }

    /// The running class's fixture (XCTest runs one class at a time; each has its own server).
    nonisolated(unsafe) private static var fixtures: [ObjectIdentifier: SwiftS3Fixture] = [:]

    override class func setUp() {
        super.setUp()
        let fixture = SwiftS3Fixture(buckets: [bucketName])
        fixtures[ObjectIdentifier(self)] = fixture
        fixture.start()
    }

    override class func tearDown() {
        fixtures.removeValue(forKey: ObjectIdentifier(self))?.stop()
        super.tearDown()
    }

    private(set) var server: SwiftS3Server!
    private(set) var client: S3Client!
    var bucket: String { Self.bucketName }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let fixture = try XCTUnwrap(Self.fixtures[ObjectIdentifier(type(of: self))], "the class's setUp started no server")
        server = try fixture.running()
        client = try fixture.client()
    }
}
