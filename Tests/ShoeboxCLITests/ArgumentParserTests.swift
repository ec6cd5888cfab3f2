import XCTest
@testable import ShoeboxCLI

final class ArgumentParserTests: XCTestCase {
    let spec = CommandSpec(name: "demo", abstract: "demo", options: [
        OptionSpec("jobs", short: "j", .value("N"), help: "jobs"),
        OptionSpec("header", .values("H"), help: "header"),
        OptionSpec("json", help: "json"),
        OptionSpec("quiet", short: "q", help: "quiet"),
    ])

    func testLongShortAndEqualsForms() throws {
        let parsed = try ArgumentParser.parse(["-j", "4", "--header=A: b", "--header", "C: d", "--json", "x", "-", "-qj8"], for: spec)
        XCTAssertEqual(parsed.value("jobs"), "8")
        XCTAssertEqual(parsed.values("header"), ["A: b", "C: d"])
        XCTAssertTrue(parsed.flag("json"))
        XCTAssertTrue(parsed.flag("quiet"))
        XCTAssertEqual(parsed.positionals, ["x", "-"])
    }

    func testDoubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--", "--json"], for: spec)
        XCTAssertFalse(parsed.flag("json"))
        XCTAssertEqual(parsed.positionals, ["--json"])
    }

    func testErrors() {
        XCTAssertThrowsError(try ArgumentParser.parse(["--nope"], for: spec)) {
            XCTAssertEqual($0 as? UsageError, .unknownOption("--nope", command: "demo"))
        }
        XCTAssertThrowsError(try ArgumentParser.parse(["--jobs"], for: spec)) {
            XCTAssertEqual($0 as? UsageError, .missingValue(option: "jobs"))
        }
        XCTAssertThrowsError(try ArgumentParser.parse(["--json=1"], for: spec)) {
            XCTAssertEqual($0 as? UsageError, .unexpectedValue(option: "json"))
        }
        XCTAssertThrowsError(try ArgumentParser.parse(["-j", "0"], for: spec).integer("jobs", default: 1, in: 1...10))
    }
}
