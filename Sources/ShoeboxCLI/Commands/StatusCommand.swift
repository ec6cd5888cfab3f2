import Foundation
import ShoeboxKit

/// `shoebox status LIST ... --catalog URI [--json] [--exact]`: how far a shared list has come.
public enum StatusCommand: Command {
    public static let spec = CommandSpec(
        name: "status",
        abstract: "Show how far the workers sharing a list have come (with --catalog).",
        arguments: "LIST ...",
        options: [
            LibraryOption.catalogSpec,
            OptionSpec("exact", help: "Count every item of the list (a full scan of its rows) instead of the running tallies."),
            OptionSpec("json", help: "Print one JSON object per list on stdout."),
        ],
        discussion: """
        LIST is the same list file the workers were started with (it is known by the SHA-256 of its bytes,
        wherever it lies). For each list: URLs done, failed, claimed by workers under a lease, waiting, waiting
        for a retry time, and the workers that hold claims, with their hosts, process ids and leases.
        Times come from the database server's clock. The catalog is read only.
        Exit status: 0 shown, 1 a list was never loaded, 2 usage error, 5 shared catalog unreachable.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let catalog = try LibraryOption.catalogLocation(arguments, console: console)
        guard case .postgres = catalog else {
            throw UsageError.missingArgument("catalog: status reads a shared list: pass --catalog postgres://… (or set SHOEBOX_CATALOG)")
        }
        let lists = arguments.positionals
        guard !lists.isEmpty else { throw UsageError.missingArgument("LIST: name the list file the workers were started with") }
        var missing = 0
        do {
            let library = Library.unchecked(LibraryConfiguration(layout: LibraryLayout(root: "/"), catalog: catalog))
            guard let queue = try library.openWorkQueue() else { return ExitStatus.usage }
            defer { queue.close() }
            for path in lists {
                let expanded = try HomeFolderPath.expand(path, option: "LIST", environment: console.environment)
                let identity: ListIdentity
                do {
                    identity = try ListIdentity.ofFile(atPath: expanded)
                } catch {
                    throw URLListReader.ReadError.cannotOpen(path: path, reason: "\(error)")
                }
                guard let status = try queue.status(list: identity, exact: arguments.flag("exact")) else {
                    console.error("status: \(path): this list was never loaded into \(catalog) (no worker has started with it)")
                    missing += 1
                    continue
                }
                console.out(arguments.flag("json") ? QueueStatusJSON.render(status) : QueueStatusText.render(status))
            }
        } catch {
            return LibraryFailure.status(for: error, command: "status", console: console)
        }
        return missing > 0 ? ExitStatus.someFailed : ExitStatus.success
    }
}
