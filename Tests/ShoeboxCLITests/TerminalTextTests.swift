import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxCLI

/// Text from a list, a server or a file reaches the terminal with its control
/// characters shown, not obeyed: an escape sequence in a hostile URL list or
/// EXIF string could otherwise recolour, retitle or rewrite the user's terminal.
final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreShownAndLineBreaksAndTabsKept() {
        XCTAssertEqual(TerminalText.visible("a\u{1B}[31mb\u{07}\tc\nd\r\u{9B}e\u{7F}é"),
                       "a\\x1B[31mb\\x07\tc\nd\\x0D\\x9Be\\x7Fé")
        XCTAssertEqual(TerminalText.visible("plain text, ünïcode ✓"), "plain text, ünïcode ✓")
    }

    func testOneLineTextEscapesLineBreaksAndTabsToo() {
        XCTAssertEqual(TerminalText.oneLine("a\tb\nc\r\u{1B}d é"), "a\\x09b\\x0Ac\\x0D\\x1Bd é")
    }

    func testALineBreakInAnEXIFStringOrAFileNameForgesNoLine() throws {
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self)
        let library = folder.appendingPathComponent("lib").path
        let fetch = try ShoeboxProcess.run(["fetch", "--library", library,
                                            "--url", server.url("/photo/liar?seed=liar&make=Evil%0A%20%20GPS%20%20%2048.8584%20N")])
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let inspect = try ShoeboxProcess.run(["inspect", "--library", library])
        XCTAssertFalse(inspect.stdout.split(separator: "\n").contains { $0.hasPrefix("  GPS") }, inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("Evil\\x0A  GPS"), inspect.stdout)

        let forged = "originals/evil\nmissing originals-x.jpg: the catalog has this original but the file is gone"
        XCTAssertTrue(FileManager.default.createFile(atPath: library + "/" + forged, contents: Data("x".utf8)))
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 1, verify.stderr)
        XCTAssertEqual(verify.stdout.split(separator: "\n").filter { $0.hasPrefix("missing") }, [], verify.stdout)
        XCTAssertTrue(verify.stdout.contains("unknown-file originals/evil\\x0Amissing originals-x.jpg"), verify.stdout)
    }

    func testAnEscapeInAListLineIsNotSentToTheTerminal() throws {
        let folder = try makeTemporaryDirectory(self)
        let list = folder.appendingPathComponent("list.txt")
        try Data("http://127.0.0.1:9/a b\u{1B}]0;owned\u{07}\u{1B}[31mred\n".utf8).write(to: list)
        let result = try ShoeboxProcess.run(["fetch", list.path, "--library", folder.appendingPathComponent("lib").path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertFalse(result.stderr.contains("\u{1B}") || result.stderr.contains("\u{07}"), result.stderr)
        XCTAssertTrue(result.stderr.contains("b\\x1B]0;owned\\x07\\x1B[31mred"), result.stderr)
    }

    func testAnEscapeInAnEXIFStringIsNotSentToTheTerminal() throws {
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self)
        let library = folder.appendingPathComponent("lib").path
        let fetch = try ShoeboxProcess.run(["fetch", "--library", library,
                                            "--url", server.url("/photo/evil?seed=evil&make=Evil%1B%5B31mRed%07")])
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let inspect = try ShoeboxProcess.run(["inspect", "--library", library])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertFalse(inspect.stdout.contains("\u{1B}") || inspect.stdout.contains("\u{07}"), inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("Evil\\x1B[31mRed\\x07"), inspect.stdout)
    }
}
