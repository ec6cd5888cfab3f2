import Foundation
import ShoeboxKit

/// `shoebox export --to DIR [--library DIR] [filters] [--link] [--json]`.
public enum ExportCommand: Command {
    public static let spec = CommandSpec(
        name: "export",
        abstract: "Copy the originals that match filters into a folder, with a manifest, to hand a set to someone.",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("to", .value("DIR"), help: "The folder to export into (made when missing; outside the library)."),
        ] + ListCommand.filterOptions + [
            OptionSpec("limit", short: "n", .value("N"), help: "Export at most N originals."),
            OptionSpec("link", help: "Hard-link instead of copying (a library folder on the same file system): the files are the originals themselves."),
            OptionSpec("json", help: "Print one JSON object per original on stdout: outcome, path in DIR, library path, sha256, reason."),
        ],
        discussion: """
        Takes the filters and order of `shoebox list`. Each original goes to DIR/YYYY/MM/DD/NAME.EXT (its library path
        without originals/), copied through a temporary name, checked against its catalogued SHA-256 as it is read (a damaged
        original is reported, never exported; `shoebox verify --repair` mends it), synced and given its file time. A file
        already there with the same bytes is left (an export run again adds what is new); one with other bytes is never
        replaced. DIR/manifest.sha256 lists every exported file for `sha256sum -c`; DIR/manifest.jsonl has each one's
        catalog record and the URLs it came from (no GPS is removed: the originals carry theirs). --link makes hard links:
        read-only, and any change to them changes the library's originals.
        Exit status: 0 all exported, 1 some failed, 2 usage (no --to, a folder inside the library, a bad filter),
        4 library unusable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let given = arguments.value("to") else { throw UsageError.missingArgument("--to DIR: the folder to export into") }
        let folder = try HomeFolderPath.expand(given, option: "to", environment: console.environment)
        let query = try ListCommand.query(arguments)
        let limit: Int? = try arguments.value("limit").map { _ in try arguments.integer("limit", default: 0, in: 1...Int(Int32.max)) }
        let configuration = try LibraryOption.configuration(arguments, console: console)
        let json = arguments.flag("json")
        let run = ExportRun(configuration: configuration, query: query, folder: folder, link: arguments.flag("link"), limit: limit)
        let trap = SignalTrap { _ in run.cancel() }
        defer { withExtendedLifetime(trap) {} }
        run.onOutcome = { outcome in
            if json {
                console.out(JSONText.line([
                    ("library_path", JSONText.string(outcome.original.path)),
                    ("outcome", JSONText.string(outcome.kind.rawValue)),
                    ("path", JSONText.string(outcome.target)),
                    ("reason", outcome.reason.map(JSONText.string) ?? "null"),
                    ("sha256", JSONText.string(outcome.original.sha256)),
                ]))
            }
            if outcome.kind == .failed {
                console.note("failed \(TerminalText.visible(outcome.original.path)): \(TerminalText.visible(outcome.reason ?? "unknown reason"))\n")
            }
        }
        let summary: ExportRun.Summary
        do {
            summary = try run.run()
        } catch {
            return LibraryFailure.status(for: error, command: "export", console: console)
        }
        console.note("export: \(summary.exported) exported, \(summary.unchanged) already there, \(summary.failed) failed; "
            + "\(ByteSize.format(summary.bytes)) into \(folder) (manifest.sha256, manifest.jsonl)"
            + (summary.cancelled ? "; interrupted" : "") + "\n")
        ListCommand.noteLensNotJudged(summary.lensNotJudged, command: "export", console: console)
        if summary.cancelled { return ExitStatus.interrupted }
        return summary.failed == 0 ? ExitStatus.success : ExitStatus.someFailed
    }
}
