import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxCLI
@testable import ShoeboxKit

/// Where the help text, the manual, the README and the code each say the same thing,
/// they must agree: they did not on --retries (5xx against 500/502/503/504), -V (not in
/// the top-level help), exit status 141 (not in the README), `fetch --json`'s `source`
/// key (not in the manual) and the proxy variables (nowhere).
final class ManualHelpAgreementTests: XCTestCase {
    private func page() throws -> ManualPage { try ManualPage(path: ManualTool.path("man/shoebox.1")) }

    private func numbers(_ text: String) -> Set<Int> {
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w.])\d{3}(?!\w)"#)
        return Set(pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            .compactMap { Int(text[Range($0.range, in: text)!]) })
    }

    func testRetriesNameTheSameStatusesInHelpManualAndCode() throws {
        let help = try XCTUnwrap(FetchCommand.spec.option(named: "retries")).help
        let manual = try XCTUnwrap(try page().options(of: "fetch").first { $0.long == "retries" }).text
        XCTAssertEqual(numbers(help), RetryPolicy.retryableStatuses, help)
        XCTAssertEqual(numbers(manual), RetryPolicy.retryableStatuses, manual)
        XCTAssertFalse(manual.contains("5xx") || help.contains("5xx"), "not every 5xx is retried")
        let printed = try ShoeboxProcess.run(["fetch", "--help"])
        XCTAssertTrue(printed.stdout.contains(help), printed.stdout)
    }

    func testTopLevelHelpListsEveryCommonOption() throws {
        let common = ManualPage.options(in: try page().section("COMMON OPTIONS"))
        XCTAssertFalse(common.isEmpty)
        for arguments in [[], ["help"], ["--help"], ["-h"]] {
            let overview = try ShoeboxProcess.run(arguments)
            let text = overview.stdout + overview.stderr  // alone, shoebox prints the overview as a usage error
            for option in common {
                let name = (option.short.map { "-\($0), " } ?? "") + "--\(option.long)"
                XCTAssertTrue(text.contains(name), "shoebox \(arguments) lacks \(name): \(text)")
            }
        }
        let version = try ShoeboxProcess.run(["-V"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.stdout, "shoebox \(Shoebox.version)\n")
    }

    func testEveryFetchJSONKeyIsDocumented() throws {
        let line = FetchResultJSON.line(for: FetchResult(url: "http://h/x.jpg", origin: "list.txt:1", outcome: .stored))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let manual = try XCTUnwrap(try page().options(of: "fetch").first { $0.long == "json" }).text
        let words = Set(manual.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
        XCTAssertGreaterThanOrEqual(object.count, 14)
        for key in object.keys.sorted() {
            XCTAssertTrue(words.contains(key), "fetch --json key '\(key)' is not in the manual's --json entry: \(manual)")
        }
    }

    func testREADMEListsEveryExitStatus() throws {
        let readme = try String(contentsOfFile: ManualTool.path("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "Exit status:"))
        let rest = readme[start.upperBound...]
        let sentence = String(rest[..<(rest.range(of: ". ")?.lowerBound ?? rest.endIndex)])
        let pattern = try NSRegularExpression(pattern: #"(?<![\w-])(\d+) [a-z]"#)
        let listed = pattern.matches(in: sentence, range: NSRange(sentence.startIndex..., in: sentence))
            .compactMap { Int32(sentence[Range($0.range(at: 1), in: sentence)!]) }
        XCTAssertEqual(listed, [ExitStatus.success, ExitStatus.someFailed, ExitStatus.usage, ExitStatus.libraryLocked,
                                ExitStatus.libraryUnusable, ExitStatus.interrupted, ExitStatus.outputClosed], sentence)
    }

    func testProxyVariablesAreDocumented() throws {
        let environment = try page().text(ofSection: "ENVIRONMENT")
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "no_proxy", "NO_PROXY"] {
            XCTAssertTrue(environment.contains(name), "ENVIRONMENT does not name \(name)")
        }
    }

    /// What the manual says of http_proxy holds: the request goes to the proxy, which
    /// here is the fixture server itself (it answers absolute-form requests by their path).
    func testFetchGoesThroughHTTPProxy() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let url = "http://photos.invalid/photo/proxied?seed=proxied"
        let output = try runner.fetch([url], environment: ["http_proxy": server.url(""), "no_proxy": "", "NO_PROXY": "",
                                                            "all_proxy": "", "ALL_PROXY": ""])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", output.stderr)
        XCTAssertEqual(try server.requestTimes("proxied").count, 1, "the proxy saw the request")
    }
}
