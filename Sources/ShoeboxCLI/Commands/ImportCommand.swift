import Foundation
import ShoeboxKit

/// `shoebox import PATH ... --library DIR`.
public enum ImportCommand: Command {
    public static let spec = CommandSpec(
        name: "import",
        abstract: "Archive photos from local folders, memory cards or phone dumps into the library.",
        arguments: "PATH ...",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("dry-run", short: "n", help: "Show where each file would go; change nothing."),
            OptionSpec("move", help: "Remove each source file once its original is durable and catalogued."),
            OptionSpec("link", help: "Hard-link originals to the source files instead of copying (same file system; the sources become read-only too)."),
            OptionSpec("follow-links", help: "Follow symbolic links to files (never to folders)."),
            OptionSpec("json", help: "Print one JSON object per file on stdout (fetch's keys; url is the file:// URL)."),
            OptionSpec("verbose", short: "v", help: "Print where each file went (a dry run always does)."),
        ],
        discussion: """
        Each file is archived under fetch's rules: copied byte for byte into the staging area with its SHA-256, checked to be
        an image by its bytes, dated by EXIF (else its modification time), named after its own name, kept once per content
        (a photo already fetched or imported is a duplicate), journalled and catalogued, then put in place read-only; a
        kill at any moment leaves nothing half-made. Its source is recorded as its file:// URL with its size and
        modification time: a second import of an unchanged tree reads no file's bytes. Failures are printed on stderr, the
        summary too; with --verbose (and always with --dry-run) one line per file on stdout says where it went. Folders are walked recursively
        without following symbolic links (counted as skipped); videos, sidecars (.xmp, .aae, .thm…), system files
        (.DS_Store, Thumbs.db, ._*) and other files that are not images are skipped and counted. The library folder is
        never imported into itself.
        --move removes a source only after its original is durable and catalogued (or the library had its bytes already),
        and only if it is still the file that was read. --link needs the library folder on the same file system: the
        original is then the source file itself, made read-only (the source shares its mode; edit a copy, never the file).
        Exit status: 0 all imported (or skipped as unchanged or not photos), 1 some files failed, 2 usage (a path that does
        not exist, a path inside the library), 3 library locked, 4 library unusable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let paths = arguments.positionals
        guard !paths.isEmpty else { throw UsageError.missingArgument("PATH: the files or folders to import") }
        let configuration = try LibraryOption.configuration(arguments, console: console)
        var options = ImportOptions(paths: paths)
        options.dryRun = arguments.flag("dry-run")
        options.move = arguments.flag("move")
        options.link = arguments.flag("link")
        options.followLinks = arguments.flag("follow-links")
        if options.dryRun && options.move { throw UsageError.conflicting("--dry-run and --move contradict each other: give one") }
        let json = arguments.flag("json"), quiet = !arguments.flag("verbose") && !options.dryRun
        let run = ImportRun(configuration: configuration, options: options)
        let trap = SignalTrap { _ in run.cancel() }
        console.whenOutputFails { run.cancel() }
        defer { withExtendedLifetime(trap) {} }
        let start = Date()
        let verb = options.dryRun ? "would " : ""
        run.onResult = { result in
            if json { return console.out(ImportResultLine.json(result, dryRun: options.dryRun)) }
            let line = ImportResultLine.text(result, dryRun: options.dryRun)
            if result.outcome.isSuccess {
                if !quiet { console.out(line) }
            } else {
                console.clearProgress()
                console.note(line + "\n")
            }
        }
        run.onSkip = { path, what in
            if json { return console.out(ImportResultLine.skippedJSON(path: path, what: what)) }
            if !quiet { console.out("\(verb)skip \(TerminalText.visible(path)): \(what)") }
        }
        run.onNotice = { text in
            console.clearProgress()
            console.note("import: \(TerminalText.visible(text))\n")
        }
        if console.stderrIsTerminal {
            let last = LastShown()
            run.onProgress = { files, bytes in
                let elapsed = Date().timeIntervalSince(start)
                guard last.claim(at: elapsed) else { return }
                console.progress("import: \(files) files, \(ByteSize.format(bytes)) read, \(Counted.rate(bytes: bytes, seconds: elapsed))")
            }
        }
        let summary: ImportSummary
        do {
            summary = try run.run()
        } catch {
            console.clearProgress()
            return LibraryFailure.status(for: error, command: "import", console: console)
        }
        console.clearProgress()
        console.note(summaryLine(summary, dryRun: options.dryRun) + "\n")
        if let error = run.stopError {
            console.error("import: stopped: \(error)")
            return ExitStatus.of(error) == ExitStatus.usage ? ExitStatus.libraryUnusable : ExitStatus.of(error)
        }
        if console.outputFailure != nil { return ExitStatus.someFailed }
        if summary.cancelled { return ExitStatus.interrupted }
        return summary.failed == 0 ? ExitStatus.success : ExitStatus.someFailed
    }

    static func summaryLine(_ summary: ImportSummary, dryRun: Bool) -> String {
        var parts: [String] = []
        parts.append((dryRun ? "would store " : "") + Counted.text(summary.stored, "new original"))
        if summary.duplicates > 0 { parts.append(Counted.text(summary.duplicates, "duplicate")) }
        if summary.unchanged > 0 { parts.append("\(summary.unchanged) unchanged") }
        if summary.restored > 0 { parts.append("\(summary.restored) restored") }
        let notPhotos = summary.notPhotos.values.reduce(0, +)
        if notPhotos > 0 {
            parts.append("\(notPhotos) not photos (" + summary.notPhotos.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")")
        }
        if summary.linksSkipped > 0 { parts.append(Counted.text(summary.linksSkipped, "symbolic link") + " not followed") }
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        if summary.moved > 0 { parts.append("\(summary.moved) sources removed (--move)") }
        return "import: \(Counted.text(summary.total, "file")): " + parts.joined(separator: ", ") + "; "
            + "\(ByteSize.format(summary.bytesStored)) \(dryRun ? "to store" : "stored") in " + String(format: "%.1fs", summary.elapsed)
            + " (\(Counted.rate(bytes: summary.bytesStored, seconds: summary.elapsed)))"
            + (summary.cancelled ? "; interrupted" : "")
    }
}
