import Foundation
import ShoeboxKit

/// `shoebox reindex --library DIR [--force]`.
public enum ReindexCommand: Command {
    public static let spec = CommandSpec(
        name: "reindex",
        abstract: "Rebuild the catalog from originals/ and the journal.",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("force", help: "Rebuild even when the current catalog is healthy (it is kept beside the new one)."),
            OptionSpec("json", help: "Print the report as one JSON object on stdout."),
            OptionSpec("jobs", short: "j", .value("N"), help: "Files hashed at once.", default: "the number of cores"),
            OptionSpec("wait", help: "Wait for a running fetch, thumbs or verify --wait to finish instead of failing."),
        ],
        discussion: """
        Every file under originals/ is hashed; originals known to journal.jsonl get their journaled record back (sources,
        ETags, metadata, thumbnails), other image files are recorded from their own bytes and EXIF and journaled. A file
        whose bytes changed keeps its journaled record (verify reports it); a file that is no image is left out. With
        --force, rows of the healthy catalog the journal lacks are journaled first. The new catalog is built aside and
        moved into place when complete; a previous catalog.sqlite (corrupt, or replaced with --force) is kept as
        catalog.sqlite.corrupt-TIME or catalog.sqlite.replaced-TIME.
        Ctrl-C or SIGTERM stops it before the new catalog is put in place: the previous one is left as it was.
        Exit status: 0 rebuilt, 1 rebuilt but some files or folders were unreadable, changed or no image, 2 usage or healthy
        catalog without --force, 3 library locked by another process, 4 library unusable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let configuration = try LibraryOption.configuration(arguments, console: console)
        let layout = configuration.layout
        var reindexer = LibraryReindexer(
            configuration: configuration, force: arguments.flag("force"),
            jobs: try arguments.integer("jobs", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...256))
        reindexer.waitForLock = arguments.flag("wait")
        let stopper = reindexer
        let trap = SignalTrap { _ in stopper.cancel() }
        defer { withExtendedLifetime(trap) {} }
        console.progress("reindex: hashing \(layout.originals)…")
        let report: ReindexReport
        do {
            report = try reindexer.run()
        } catch LibraryError.waitInterrupted(let path) {
            console.clearProgress()
            console.error("reindex: interrupted while waiting for the lock of \(path); nothing was done")
            return ExitStatus.interrupted
        } catch {
            console.clearProgress()
            return LibraryFailure.status(for: error, command: "reindex", console: console)
        }
        console.clearProgress()
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase  // as every other --json
            console.out((try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
        } else {
            let shown = configuration.catalog.isShared ? sharedLines(report, configuration: configuration) : lines(report, layout: layout)
            for line in shown { console.out(TerminalText.oneLine(line)) }
        }
        let clean = report.unreadableFiles.isEmpty && report.unreadableFolders.isEmpty && report.changedFiles.isEmpty && report.notImages.isEmpty
            && report.notRegularFiles.isEmpty && report.nonUTF8Names.isEmpty
        return clean ? ExitStatus.success : ExitStatus.someFailed
    }

    /// On a shared catalog reindex adopts what the store holds and the catalog lacks.
    static func sharedLines(_ report: ReindexReport, configuration: LibraryConfiguration) -> [String] {
        var lines = [String(format: "reindex: checked the originals against %@ in %.2f s", configuration.catalog.description, report.seconds)]
        lines.append("originals: \(report.originals) (\(report.originalsFromJournal) catalogued already, "
            + "\(report.originalsFromFiles) recorded from their files or objects)")
        if report.tempFilesRemoved > 0 {
            lines.append("interrupted writers: \(Counted.text(report.tempFilesRemoved, "uncommitted object or partial download")) removed")
        }
        for path in report.duplicateFiles { lines.append("duplicate \(path): same bytes as another original; left out of the catalog") }
        for path in report.unreadableFiles { lines.append("unreadable \(path): could not be hashed; left out of the catalog") }
        for path in report.notImages { lines.append("not-an-image \(path): no image format; left out of the catalog, move it out of originals/") }
        for path in report.notRegularFiles { lines.append("not-a-file \(path): not a regular file; left out of the catalog, move it out of originals/") }
        return lines
    }

    static func lines(_ report: ReindexReport, layout: LibraryLayout) -> [String] {
        var lines = [String(format: "reindex: rebuilt %@ in %.2f s", layout.catalog, report.seconds)]
        lines.append("originals: \(report.originals) (\(report.originalsFromJournal) from the journal, "
            + "\(report.originalsFromFiles) recorded from their files and journaled)")
        lines.append("sources: \(report.sources)" + (report.sourcesDropped > 0
            ? " (\(Counted.text(report.sourcesDropped, "journaled source")) left out: "
                + (report.sourcesDropped == 1 ? "its" : "their") + " original is not in the library)" : ""))
        lines.append("thumbnails: \(report.thumbnails)" + (report.thumbnailsDropped > 0
            ? " (\(report.thumbnailsDropped) left out: file or original gone)" : ""))
        if let previous = report.previousCatalog {
            lines.append("previous catalog (\(report.previousCatalogState ?? "orphaned write-ahead log")) kept as \(previous)")
        }
        if report.stagedPublished > 0 || report.tempFilesRemoved > 0 {
            lines.append("interrupted run: \(Counted.text(report.stagedPublished, "staged original")) moved into place, "
                + "\(Counted.text(report.tempFilesRemoved, "temp file")) removed")
        }
        if report.entriesFromCatalog > 0 {
            lines.append("journal: \(Counted.text(report.entriesFromCatalog, "row")) of the replaced catalog it lacked "
                + (report.entriesFromCatalog == 1 ? "was" : "were") + " journaled first")
        }
        if report.journaledOriginalsWithoutFile > 0 {
            lines.append("left out: \(Counted.text(report.journaledOriginalsWithoutFile, "journaled original")) whose file is not in originals/")
        }
        if !report.damagedJournalLines.isEmpty {
            let shown = report.damagedJournalLines.prefix(10).map(String.init).joined(separator: ", ")
            lines.append("journal: \(Counted.text(report.damagedJournalLines.count, "damaged line")) skipped (line \(shown)"
                + (report.damagedJournalLines.count > 10 ? ", …" : "") + "); originals they described were recorded from their own bytes"
                + (report.damagedJournalKept.map { "; removed from the journal, whose damaged copy is kept as \($0)" } ?? ""))
        }
        for path in report.duplicateFiles { lines.append("duplicate \(path): same bytes as another original; left out of the catalog") }
        for path in report.unreadableFiles { lines.append("unreadable \(path): could not be hashed; left out of the catalog") }
        for folder in report.unreadableFolders {
            lines.append("unreadable \(folder.path)/: folder could not be listed (\(folder.reason)); the originals in it are left "
                + "out of the catalog (the journal keeps them): \(folder.advice) and run reindex again")
        }
        for path in report.changedFiles {
            lines.append("changed \(path): its bytes are not the ones stored; kept with its journaled record "
                + "(verify reports the mismatch): restore it from a backup")
        }
        for path in report.notImages { lines.append("not-an-image \(path): no image format; left out of the catalog, move it out of originals/") }
        for path in report.notRegularFiles { lines.append("not-a-file \(path): not a regular file; left out of the catalog, move it out of originals/") }
        for path in report.nonUTF8Names {
            lines.append("not-utf8-name \(path): the name is not UTF-8 (stray bytes shown as \\xNN); left out of the catalog, "
                + "rename it to UTF-8 (e.g. `convmv`) and run reindex again")
        }
        return lines
    }
}
