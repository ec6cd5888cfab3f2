import Foundation
import ShoeboxKit

/// `shoebox verify --library DIR [--quick] [--json]`.
public enum VerifyCommand: Command {
    public static let spec = CommandSpec(
        name: "verify",
        abstract: "Check that every original is still there, bit for bit, with its metadata.",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("quick", help: "Compare sizes only (no hashing, no EXIF)."),
            OptionSpec("json", help: "Print one JSON object per problem on stdout."),
            OptionSpec("jobs", short: "j", .value("N"), help: "Files checked at once.", default: "the number of cores"),
            OptionSpec("wait", help: "Wait for a running writer to finish, and keep writers out while checking."),
            OptionSpec("repair", help: "Put back originals found missing, cut short or changed, from their recorded sources."),
        ] + FetchCommand.requestOptions,
        discussion: """
        For every original in the catalog: the file exists, is read-only, has the recorded size and SHA-256, and its EXIF
        capture time, make, model, lens and GPS equal what was recorded. Also reported: files under originals/ the catalog does
        not know, originals missing from journal.jsonl, thumbnails missing or older than their original, and (as notices,
        which do not fail the run) temp files left by an interrupted run.
        Problems are printed one per line on stdout as 'KIND PATH: DETAIL'; the summary goes to stderr.
        Verify runs beside a writer (fetch, thumbs, reindex) without taking the library lock: it checks one snapshot of
        the catalog, and says on stderr what it left unchecked (originals added since, the writer's temp files).
        With --repair, each original found missing, cut short or changed is fetched again from its recorded sources
        (newest first, each URL in turn, never a conditional request) and put back only when its SHA-256 is the catalogued
        one: staged and synced first, then moved into place read-only. The damaged file is kept, never deleted, under
        damaged/STAMP/ beside originals/ (in the bucket too); an original that holds its recorded bytes is never
        replaced. An original with a file:// source (imported) is restored from that file when it still holds the same
        bytes. Each repair is printed as a 'repaired' notice saying from where; what could not be repaired stays a
        problem saying why each source failed. --repair takes the writer's lock (with --wait, waits for it). The request
        options (--netrc, --header, --cacert, --cookies, --resolve...) are fetch's, for the sources' servers.
        Exit status: 0 no problems (or all repaired), 1 problems found (or left unrepaired), 2 usage, 3 catalog kept busy,
        4 library or catalog unusable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let trap = InterruptExit.trap("verify", console: console)
        defer { withExtendedLifetime(trap) {} }
        let configuration = try LibraryOption.configuration(arguments, console: console)
        let requests = try requestOptions(arguments, environment: console.environment)
        let layout = configuration.layout
        var verifier = LibraryVerifier(
            configuration: configuration, quick: arguments.flag("quick"),
            jobs: try arguments.integer("jobs", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...256))
        verifier.waitForLock = arguments.flag("wait")
        if console.stderrIsTerminal { verifier.progress = progressLine(console) }
        console.progress("verify: checking \(layout.root)…")
        var report: VerifyReport
        do {
            report = try verifier.run()
            console.clearProgress()
            if arguments.flag("repair") {
                try repair(&report, configuration: configuration, options: requests, wait: arguments.flag("wait"), console: console)
            }
        } catch {
            console.clearProgress()
            return LibraryFailure.status(for: error, command: "verify", console: console)
        }
        console.clearProgress()
        let json = arguments.flag("json")
        for finding in report.findings {
            console.out(json ? jsonLine(finding) : TerminalText.oneLine(finding.line))
        }
        console.note(summary(report) + "\n")
        if arguments.flag("repair") {
            console.note("verify: \(Counted.text(report.repaired, "original")) repaired, \(report.notRepaired) not repaired\n")
        }
        if let note = besideWriter(report) { console.note(note + "\n") }
        return report.isClean ? ExitStatus.success : ExitStatus.someFailed
    }

    /// Puts back what `report` found missing or damaged (`OriginalRepairer`), as a writer.
    private static func repair(_ report: inout VerifyReport, configuration: LibraryConfiguration, options: FetchOptions, wait: Bool,
                               console: Console) throws {
        let broken = report.findings.filter { VerifyReport.repairableKinds.contains($0.kind) }.compactMap(\.sha256)
        guard !broken.isEmpty else { return }
        let library = try Library.openForWriting(configuration, creating: false, waiting: Library.Waiting(wait: wait, onWait: { holder in
            console.note("verify: waiting for \(holder ?? "another writer") to finish before repairing…\n")
        }))
        let catalog = try library.openCatalog()
        defer { catalog.close() }
        try library.recover(catalog: catalog)
        let records = try broken.compactMap { try catalog.original(sha256: $0) }
        var repairer = OriginalRepairer(library: library, catalog: catalog, options: options)
        var done = 0
        repairer.progress = { _ in
            done += 1
            console.progress("verify: repairing \(done)/\(records.count)…")
        }
        console.progress("verify: repairing \(records.count) original(s)…")
        let outcomes = try repairer.run(records)
        console.clearProgress()
        report.apply(outcomes)
    }

    /// How repairs download: fetch's defaults, with the request options given (checked as
    /// fetch checks them, before anything is read). Only those: verify's --jobs is its own.
    private static func requestOptions(_ arguments: ParsedArguments, environment: [String: String]) throws -> FetchOptions {
        let given = try FetchCommand.options(from: arguments, environment: environment)
        var options = FetchOptions()
        options.cookieFile = given.cookieFile
        options.netrc = given.netrc
        options.netrcFile = given.netrcFile
        options.secretHeaders = given.secretHeaders
        options.userAgent = given.userAgent
        options.headers = given.headers
        options.caCertificates = given.caCertificates
        options.resolve = given.resolve
        return options
    }

    /// "verify: 1234/5000 originals, 2.1 GiB hashed, 1.4 GiB/s", at most five times a second.
    private static func progressLine(_ console: Console) -> @Sendable (Int, Int, Int64) -> Void {
        let start = Date()
        let last = LastShown()
        return { checked, total, bytes in
            let elapsed = Date().timeIntervalSince(start)
            guard checked == total || last.claim(at: elapsed) else { return }
            console.progress("verify: \(checked)/\(total) originals, \(ByteSize.format(bytes)) hashed, "
                + Counted.rate(bytes: bytes, seconds: elapsed))
        }
    }

    private static func jsonLine(_ finding: VerifyProblem) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(finding)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// What a writer running beside verify left unchecked; nil when there was nothing of the kind.
    static func besideWriter(_ report: VerifyReport) -> String? {
        var unchecked: [String] = []
        if report.addedSinceSnapshot > 0 {
            unchecked.append(Counted.text(report.addedSinceSnapshot, "original") + " added after the catalog was read")
        }
        if report.writerFilesSkipped > 0 {
            unchecked.append(Counted.text(report.writerFilesSkipped, "file") + " of its work in progress (.tmp/, thumbnails/)")
        }
        if report.thumbnailFindingsWithheld > 0 {
            unchecked.append(Counted.text(report.thumbnailFindingsWithheld, "thumbnail finding")
                + " (thumbnails may be being made or pruned)")
        }
        guard report.writer != nil || !unchecked.isEmpty else { return nil }
        let who = report.writer.map { "a writer (\($0)) was using the library" } ?? "a writer used the library meanwhile"
        let what = unchecked.isEmpty ? "everything in the catalog as read was checked"
            : "not checked: " + unchecked.joined(separator: ", ") + "; the next verify checks them"
        return "verify: \(who); \(what)"
    }

    static func summary(_ report: VerifyReport) -> String {
        let hashing = report.quick
            ? "sizes only"
            : "\(ByteSize.format(report.bytesHashed)) hashed in " + String(format: "%.2f s", report.hashSeconds)
                + ", \(Counted.rate(bytes: report.bytesHashed, seconds: report.hashSeconds)) on "
                + Counted.text(report.hashThreads, "thread")
        return "verify: \(Counted.text(report.originalsChecked, "original")) checked (\(hashing)), "
            + "\(Counted.text(report.filesScanned, "file")) under originals/, \(Counted.text(report.thumbnailsChecked, "thumbnail")): "
            + "\(Counted.text(report.problemCount, "problem")), \(Counted.text(report.noticeCount, "notice"))"
    }
}
