import XCTest
@testable import ShoeboxCLI
@testable import ShoeboxKit

/// man/shoebox.1 against the code: every option each registered command's spec
/// declares is documented, with its short form, value name and default, and no
/// option the parser does not know; and the page passes mandoc's lint and renders with man.
final class ManualTests: XCTestCase {
    let pagePath = ManualTool.path("man/shoebox.1")
    var registered: [CommandSpec] { CommandRegistry.commands.map { $0.spec } }

    private func page() throws -> ManualPage { try ManualPage(path: pagePath) }

    func testEveryOptionOfEveryRegisteredCommandIsDocumentedWithItsShortFormValueAndDefault() throws {
        let page = try page()
        for spec in registered {
            XCTAssertTrue(page.commandNames.contains(spec.name), "COMMANDS has no '.SS \(spec.name)'")
            let documented = page.options(of: spec.name)
            for option in spec.options where option.long != "help" {
                guard let entry = documented.first(where: { $0.long == option.long }) else {
                    XCTFail("shoebox \(spec.name) --\(option.long) is not documented in man/shoebox.1")
                    continue
                }
                XCTAssertEqual(entry.short, option.short, "short form of \(spec.name) --\(option.long)")
                XCTAssertEqual(entry.valueName, option.valueName, "value name of \(spec.name) --\(option.long)")
                if let value = option.defaultValue {
                    XCTAssertTrue(entry.text.contains("(default: \(value))"),
                                  "\(spec.name) --\(option.long): the page should say (default: \(value)); it says: \(entry.text)")
                }
                if case .values = option.kind {
                    XCTAssertTrue(entry.text.contains("Repeatable"), "\(spec.name) --\(option.long) is repeatable: say so")
                }
            }
        }
    }

    func testManualDocumentsNoOptionOrCommandTheParserDoesNotKnow() throws {
        let page = try page()
        let names = Set(registered.map(\.name))
        for command in page.commandNames {
            XCTAssertTrue(names.contains(command), "the page documents 'shoebox \(command)', which is not a registered command")
            guard let spec = registered.first(where: { $0.name == command }) else { continue }
            for entry in page.options(of: command) {
                XCTAssertNotNil(spec.option(named: entry.long), "the page documents 'shoebox \(command) --\(entry.long)', which its parser does not know")
            }
            XCTAssertEqual(page.options(of: command).count, Set(page.options(of: command).map(\.long)).count, "\(command): an option documented twice")
        }
        let known = Set(registered.flatMap { $0.options.map(\.long) }).union(["help", "version"])
        XCTAssertEqual(page.longOptionsMentioned.subtracting(known), [], "options written in the page that no command accepts")
    }

    func testCommonOptionsAndEveryExitStatusAndTheEnvironmentAreDocumented() throws {
        let page = try page()
        let common = ManualPage.options(in: page.section("COMMON OPTIONS"))
        XCTAssertEqual(common.map(\.long), ["help", "version"])
        XCTAssertEqual(common.map(\.short), ["h", "V"])
        let exitLines = page.section("EXIT STATUS")
        let statuses = exitLines.indices.dropLast().filter { exitLines[$0] == ".TP" }.map { exitLines[$0 + 1] }
            .filter { $0.hasPrefix(".B ") }.map { String($0.dropFirst(3)) }
        let code: [Int32] = [ExitStatus.success, ExitStatus.someFailed, ExitStatus.usage, ExitStatus.libraryLocked,
                             ExitStatus.libraryUnusable, ExitStatus.catalogUnreachable, ExitStatus.interrupted,
                             ExitStatus.outputClosed]
        XCTAssertEqual(statuses, code.map(String.init))
        let environment = page.text(ofSection: "ENVIRONMENT")
        XCTAssertTrue(environment.contains("SHOEBOX_LIBRARY") && environment.contains("NO_COLOR"), environment)
    }

    func testCatalogSchemaAndJournalAreDocumented() throws {
        let page = try page()
        let catalog = page.text(ofSection: "CATALOG")
        let table = try NSRegularExpression(pattern: #"CREATE TABLE (\w+) \(([^)]*(?:\([^)]*\)[^)]*)*)\)"#)
        var tables = 0
        for statement in CatalogSchema.createStatements {
            guard let match = table.firstMatch(in: statement, range: NSRange(statement.startIndex..., in: statement)) else { continue }
            tables += 1
            let name = String(statement[Range(match.range(at: 1), in: statement)!])
            XCTAssertTrue(page.section("CATALOG").contains(".B \(name)"), "table \(name) is not described")
            for column in statement[Range(match.range(at: 2), in: statement)!].split(separator: "\n") {
                guard let word = column.split(separator: " ").first else { continue }
                XCTAssertTrue(catalog.contains(String(word)), "column \(name).\(word) is not described")
            }
        }
        XCTAssertGreaterThanOrEqual(tables, 4)
        XCTAssertTrue(catalog.contains("Schema version \(CatalogSchema.version)"), "the page names another schema version")
        let journal = page.text(ofSection: "JOURNAL")
        XCTAssertTrue(journal.contains(Journal.fileName))
        for kind in [JournalEntry.Kind.originalStored, .sourceRecorded, .thumbnailRecorded, .thumbnailRemoved] {
            XCTAssertTrue(journal.contains("\"kind\":\"\(kind.rawValue)\""), "journal entry kind \(kind.rawValue) is not shown")
        }
    }

    func testEveryKindOfProblemVerifyReportsIsExplained() throws {
        let verify = ManualPage.plain(try page().subsection("verify"))
        XCTAssertFalse(verify.isEmpty, "no .SS verify")
        for kind in VerifyProblem.Kind.allCases {
            XCTAssertTrue(verify.contains(kind.rawValue), "verify's problem kind \(kind.rawValue) is not explained")
        }
    }

    func testTitleCarriesTheVersion() throws {
        let title = try page().lines.first { $0.hasPrefix(".TH ") }
        XCTAssertEqual(title?.contains("\"shoebox \(Shoebox.version)\""), true, title ?? "no .TH")
    }

    func testMandocLintFindsNothing() throws {
        let result = try ManualTool.run("mandoc", ["-T", "lint", "-W", "warning", pagePath])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout + result.stderr, "")
    }

    func testManRendersThePageWithoutWarnings() throws {
        let result = try ManualTool.run("man", ["-l", pagePath], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "man/groff warnings")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "LIBRARY LAYOUT", "CATALOG", "JOURNAL", "EXIT STATUS",
                        "ENVIRONMENT", "FILES", "EXAMPLES"] {
            XCTAssertTrue(result.stdout.contains("\n\(heading)\n"), "no \(heading) section in the rendered page")
        }
        for spec in registered {
            XCTAssertTrue(result.stdout.contains("shoebox \(spec.name)"), "the rendered page never shows 'shoebox \(spec.name)'")
        }
    }

    func testHelpAndDashDashHelpPrintEveryOptionWithItsDefault() throws {
        for spec in registered {
            let help = try ShoeboxProcess.run(["help", spec.name])
            XCTAssertEqual(help.status, 0, help.stderr)
            let dashHelp = try ShoeboxProcess.run([spec.name, "--help"])
            XCTAssertEqual(dashHelp.status, 0, dashHelp.stderr)
            XCTAssertEqual(help.stdout, dashHelp.stdout)
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: shoebox \(spec.name)"), help.stdout)
            for option in spec.options {
                XCTAssertTrue(help.stdout.contains("--\(option.long)"), "\(spec.name) --help lacks --\(option.long)")
                if let short = option.short {
                    XCTAssertTrue(help.stdout.contains("-\(short), --\(option.long)"), "\(spec.name) --help lacks -\(short)")
                }
                if let value = option.defaultValue {
                    XCTAssertTrue(help.stdout.contains("(default: \(value))"), "\(spec.name) --help lacks the default of --\(option.long)")
                }
            }
            // Every option's text starts in one column, after at least two spaces.
            let optionLines = help.stdout.split(separator: "\n").drop { $0 != "OPTIONS:" }.dropFirst().prefix { $0.hasPrefix("  ") }
            let columns = Set(optionLines.compactMap { line in line.range(of: #"\S  +\S"#, options: .regularExpression).map { line.distance(from: line.startIndex, to: $0.upperBound) } })
            XCTAssertEqual(columns.count, 1, "\(spec.name) --help: option texts start in columns \(columns.sorted())")
        }
        let unknown = try ShoeboxProcess.run(["help", "frobnicate"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown command 'frobnicate'"), unknown.stderr)
    }
}
