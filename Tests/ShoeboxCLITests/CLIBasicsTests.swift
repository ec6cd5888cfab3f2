import XCTest

final class CLIBasicsTests: XCTestCase {
    func testVersionPrintsOnStdout() throws {
        let result = try ShoeboxProcess.run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.hasPrefix("shoebox "), result.stdout)
    }

    func testUnknownCommandIsUsageError() throws {
        let result = try ShoeboxProcess.run(["frobnicate"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("unknown command 'frobnicate'"), result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testHelpListsCommands() throws {
        let result = try ShoeboxProcess.run(["help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("help"))
    }
}
