@testable import ShoeboxKit
import XCTest

/// S3Location parsing, S3Configuration from the environment, SigV4 encoding: no server needed.
final class S3LocationTests: XCTestCase {
    func testParsesBucketAndPrefix() throws {
        let location = try S3Location(parsing: "s3://my-photos/library/2024/")
        XCTAssertEqual(location.bucket, "my-photos")
        XCTAssertEqual(location.prefix, "library/2024")
        XCTAssertEqual(location.key(for: "originals/a b.jpg"), "library/2024/originals/a b.jpg")
        XCTAssertEqual(location.key(for: "/originals/x.jpg"), "library/2024/originals/x.jpg")
        XCTAssertEqual(location.description, "s3://my-photos/library/2024")
        let root = try S3Location(parsing: "s3://my.photos")
        XCTAssertEqual(root.prefix, "")
        XCTAssertEqual(root.key(for: "x.jpg"), "x.jpg")
        XCTAssertEqual(root.listingPrefix, "")
        XCTAssertEqual(try S3Location(parsing: "s3://abc/").prefix, "")
    }

    func testRefusesBadLocationsWithReasons() {
        let cases: [(String, String)] = [
            ("my-photos/library", "expected s3://BUCKET"),
            ("https://my-photos", "expected s3://BUCKET"),
            ("s3://", "names no bucket"),
            ("s3:///prefix", "names no bucket"),
            ("s3://ab", "too short"),
            ("s3://" + String(repeating: "a", count: 64), "too long"),
            ("s3://My_Photos", "characters S3 refuses"),
            ("s3://-photos", "start and end with a letter or digit"),
            ("s3://photos..x", "no '..'"),
            ("s3://photos/a//b", "empty path segment"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try S3Location(parsing: text), text) { error in
                guard case S3Error.invalidLocation(let message) = error else { return XCTFail("\(text): \(error)") }
                XCTAssertTrue(message.contains(reason), "\(text): \(message)")
            }
        }
    }

    func testConfigurationFollowsTheAWSVariables() throws {
        var environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s3cr3t"]
        var configuration = try S3Configuration.fromEnvironment(environment)
        XCTAssertEqual(configuration.region, "us-east-1")
        XCTAssertNil(configuration.endpoint)
        XCTAssertFalse(configuration.usesPathStyle)
        XCTAssertEqual(configuration.url(bucket: "photos", key: "a b/c.jpg", query: ""),
                       "https://photos.s3.us-east-1.amazonaws.com/a%20b/c.jpg")
        environment["AWS_DEFAULT_REGION"] = "eu-west-1"
        XCTAssertEqual(try S3Configuration.fromEnvironment(environment).region, "eu-west-1")
        environment["AWS_REGION"] = "eu-central-1"
        environment["AWS_SESSION_TOKEN"] = "token-value"
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000/"
        configuration = try S3Configuration.fromEnvironment(environment)
        XCTAssertEqual(configuration.region, "eu-central-1")
        XCTAssertEqual(configuration.sessionToken, "token-value")
        XCTAssertEqual(configuration.endpoint, "http://127.0.0.1:9000")
        XCTAssertTrue(configuration.usesPathStyle)
        XCTAssertEqual(configuration.url(bucket: "photos", key: "日本/é+x.jpg", query: "list-type=2"),
                       "http://127.0.0.1:9000/photos/%E6%97%A5%E6%9C%AC/%C3%A9%2Bx.jpg?list-type=2")
        environment["AWS_ENDPOINT_URL_S3"] = "https://s3.example.test"
        XCTAssertEqual(try S3Configuration.fromEnvironment(environment).endpoint, "https://s3.example.test")
        XCTAssertFalse("\(configuration)".contains("s3cr3t"))
        XCTAssertFalse("\(configuration)".contains("token-value"))
        var dumped = ""
        dump(configuration, to: &dumped)
        XCTAssertFalse(dumped.contains("s3cr3t") || dumped.contains("token-value"), dumped)
        XCTAssertTrue(dumped.contains("AKID"))

        XCTAssertThrowsError(try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": ""])) { error in
            guard case S3Error.missingCredentials(let missing) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(missing, ["AWS_SECRET_ACCESS_KEY"])
            XCTAssertTrue("\(error)".contains("set AWS_SECRET_ACCESS_KEY"))
        }
        XCTAssertThrowsError(try S3Configuration.fromEnvironment([:])) { error in
            XCTAssertTrue("\(error)".contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"), "\(error)")
        }
        environment["AWS_ENDPOINT_URL_S3"] = "ftp://files.example"
        XCTAssertThrowsError(try S3Configuration.fromEnvironment(environment))
    }

    func testQueryIsSortedAndEncodedAsSigV4Wants() {
        XCTAssertEqual(S3URIEncoding.encode("a b+c=d&e%f/g~h_i-j.k é日", keepSlash: false),
                       "a%20b%2Bc%3Dd%26e%25f%2Fg~h_i-j.k%20%C3%A9%E6%97%A5")
        XCTAssertEqual(S3URIEncoding.encode("dir/a b", keepSlash: true), "dir/a%20b")
        XCTAssertEqual(
            S3URIEncoding.canonicalQuery([("prefix", "x/y z"), ("max-keys", "2"), ("list-type", "2"),
                                          ("continuation-token", "a+b/c=="), ("uploads", "")]),
            "continuation-token=a%2Bb%2Fc%3D%3D&list-type=2&max-keys=2&prefix=x%2Fy%20z&uploads=")
        XCTAssertEqual(S3URIEncoding.decodeListingValue("a+b%2Bc%20%C3%A9%zz"), "a b+c é%zz")
    }
}

/// SHOEBOX_STREAM_ABOVE: where a library's S3 store starts streaming bodies into uploads.
final class StreamingThresholdTests: XCTestCase {
    private func threshold(_ value: String?) throws -> Int64? {
        var environment = ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL": "http://127.0.0.1:9"]
        environment["SHOEBOX_STREAM_ABOVE"] = value
        let layout = LibraryLayout(root: try makeTemporaryDirectory(self).path + "/library")
        let configuration = LibraryConfiguration(layout: layout, store: .objectStore(url: "s3://bucket/prefix"), environment: environment)
        let store = try XCTUnwrap(try Library.unchecked(configuration).store() as? S3OriginalStore)
        XCTAssertEqual(store.streamingThreshold, configuration.streamingThreshold)
        return store.streamingThreshold
    }

    func testTheThresholdComesFromTheEnvironmentWithItsFloor() throws {
        XCTAssertEqual(try threshold(nil), 8 << 20, "8 MiB by default")
        XCTAssertEqual(try threshold("64M"), 64 << 20)
        XCTAssertEqual(try threshold("1M"), 5 << 20, "never below S3's smallest part")
        XCTAssertEqual(try threshold("lots"), 8 << 20, "not a size: the default")
    }
}
