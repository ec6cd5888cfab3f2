import XCTest
import ShoeboxKit
@testable import ShoeboxCLI

final class ArgumentParserTests: XCTestCase {
    let spec = CommandSpec(name: "demo", abstract: "demo", arguments: "[FILE ...]", options: [
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

    func testEveryCommandWithoutArgumentsRefusesAStrayWord() throws {
        let bare = CommandSpec(name: "bare", abstract: "bare", options: [OptionSpec("json", help: "json")])
        XCTAssertThrowsError(try ArgumentParser.parse(["--json", "elsewhere"], for: bare)) {
            XCTAssertEqual($0 as? UsageError, .unexpectedArgument("elsewhere"))
        }
        for command in ["verify", "reindex", "thumbs", "gallery"] {
            let result = try ShoeboxProcess.run([command, "some-other-library"], environment: ["SHOEBOX_LIBRARY": "/nonexistent"])
            XCTAssertEqual(result.status, 2, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("unexpected argument 'some-other-library'"), result.stderr)
        }
    }

    func testResolveEntries() {
        for good in ["h.example:80:127.0.0.1", "h.example:443:[::1]", "h:8080:127.0.0.1,127.0.0.2",
                     "xn--bcher-kva.example:443:[2001:db8::7],192.0.2.1"] {
            XCTAssertTrue(FetchOptions.isResolveEntry(good), good)
        }
        for bad in ["h:80", "h:80:", ":80:127.0.0.1", "h:65536:127.0.0.1", "h:80:localhost", "h:80:::1", "h:80:[::1",
                    "h:80:127.0.0.1,", "h:80:1.2.3", "bücher.example:80:127.0.0.1", "h x:80:127.0.0.1"] {
            XCTAssertFalse(FetchOptions.isResolveEntry(bad), bad)
        }
    }
}
