import Foundation
import ShoeboxKit

/// `shoebox thumbs --library DIR [--size SPEC ...] ...`.
public enum ThumbsCommand: Command {
    public static let spec = CommandSpec(
        name: "thumbs",
        abstract: "Make thumbnail sets of the originals (libvips shrink-on-load).",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("size", short: "s", .values("SPEC"),
                       help: "N bounds the longer side, WxH a box; also comma-separated lists.", default: "256,1024"),
            OptionSpec("format", .value("jpeg|webp|avif"), help: "Thumbnail encoding.", default: "jpeg"),
            OptionSpec("quality", short: "q", .value("Q"), help: "Encoder quality, 1 to 100.", default: "80"),
            OptionSpec("fit", .value("inside|cover|attention"),
                       help: "inside: whole image in the box; cover: fill the box, crop centred; attention: crop by interest.",
                       default: "inside"),
            OptionSpec("keep-metadata", help: "Keep EXIF/XMP/ICC in thumbnails (GPS included)."),
            OptionSpec("force", help: "Remake every thumbnail, even up-to-date ones."),
            OptionSpec("prune", help: "Remove thumbnails whose original is no longer in the catalog."),
            OptionSpec("max-pixels", .value("N"), help: "Refuse images declaring more pixels (K/M/G suffixes).", default: "250M"),
            OptionSpec("max-memory", .value("SIZE"),
                       help: "Memory all decodes at once may take, estimated from the headers; an image needing more is refused (K, M or G suffix).",
                       default: "512M"),
            OptionSpec("jobs", short: "j", .value("N"), help: "Images at once.", default: "number of cores"),
            OptionSpec("lease", .value("SECONDS"),
                       help: "With a shared catalog: how long an original claimed by this worker stays its own unless renewed.",
                       default: "60"),
            OptionSpec("wait", help: "Wait for another writer to finish instead of failing."),
            OptionSpec("json", help: "Print one JSON object per thumbnail made on stdout."),
        ],
        discussion: """
        Thumbnails go beside the originals: LIBRARY/thumbnails/SIZE/<path under originals/>.<ext>, a folder tagged with
        CACHEDIR.TAG, or PREFIX/thumbnails/... in the bucket of an s3:// store. With a shared catalog (--catalog postgres://),
        thumbs on several machines share the work: each claims originals in batches under a lease it renews, a killed
        worker's claims return when the lease runs out, and each original is made by one worker.
        Each original is decoded once for all its sizes; EXIF orientation is applied, colour converted to sRGB through
        an embedded ICC profile, and metadata (GPS included) stripped unless --keep-metadata. A thumbnail newer than its
        original and made with the same format, quality, fit and metadata choice is kept unless --force; others are remade.
        Exit status: 0 all made or up to date, 1 some originals failed, 2 usage error, 3 library locked,
        4 library unusable or disk full, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let configuration = try LibraryOption.configuration(arguments, console: console)
        let options = try options(from: arguments)
        let lease = try arguments.seconds("lease", default: 60, in: 3...3600)
        let json = arguments.flag("json")
        let library: Library
        let catalog: Catalog
        do {
            library = try Library.openForWriting(configuration, creating: false, waiting: Library.Waiting(wait: arguments.flag("wait")))
            catalog = try library.openCatalog()
        } catch {
            return LibraryFailure.status(for: error, command: "thumbs", console: console)
        }
        defer { withExtendedLifetime(library) {} }
        let updater: ThumbnailUpdater
        do {
            updater = try ThumbnailUpdater(library: library, catalog: catalog, options: options, lease: lease) { error, wait in
                console.clearProgress()
                console.note("thumbs: the shared catalog did not answer (\(error)); trying again in \(String(format: "%.2g", wait)) s\n")
            }
        } catch {
            return LibraryFailure.status(for: error, command: "thumbs", console: console)
        }
        let trap = SignalTrap { _ in updater.cancel() }
        defer { withExtendedLifetime(trap) {} }
        var total = 0
        var done = 0
        let started = Date()
        if let count = try? catalog.countOriginals() { total = count }
        let summary: ThumbnailSummary
        do {
            summary = try updater.run(prune: arguments.flag("prune")) { event in
                switch event {
                case .made(let record, let original, let milliseconds):
                    if json { console.out(ThumbnailJSON.line(record, original: original, milliseconds: milliseconds)) }
                case .failed(_, let error):
                    console.clearProgress()
                    console.error(TerminalText.oneLine("thumbs: \(error)"))  // one line per original, whatever its name
                case .finished:
                    done += 1
                    console.progress(progressLine(done: done, total: total, elapsed: Date().timeIntervalSince(started)))
                case .found, .upToDate, .waitingForOthers:
                    break
                }
            }
        } catch {
            console.clearProgress()
            return LibraryFailure.status(for: error, command: "thumbs", console: console)
        }
        console.clearProgress()
        console.note("thumbs: \(Counted.text(summary.originals, "original")): \(summary.upToDate) up to date, \(summary.failed) failed; "
            + "\(Counted.text(summary.made, "thumbnail")) made" + (arguments.flag("prune") ? ", \(summary.pruned) pruned" : "")
            + (summary.elsewhere > 0 ? ", \(Counted.text(summary.elsewhere, "original")) taken by other workers" : "")
            + (summary.leftoversRemoved > 0 ? ", \(Counted.text(summary.leftoversRemoved, "temp file")) of an interrupted run removed" : "")
            + (summary.cancelled ? " (interrupted)" : "") + "\n")
        if summary.cancelled { return ExitStatus.interrupted }
        return summary.failed == 0 ? ExitStatus.success : ExitStatus.someFailed
    }

    /// "thumbs: 12/40 originals  ETA 1m05s": the time left at the pace so far.
    static func progressLine(done: Int, total: Int, elapsed: Double) -> String {
        var line = "thumbs: \(done)/\(Counted.text(total, "original"))"
        if done > 0, done < total, elapsed > 0 {
            line += "  ETA " + FetchReporter.duration(elapsed / Double(done) * Double(total - done))
        }
        return line
    }

    static func options(from arguments: ParsedArguments) throws -> ThumbnailOptions {
        var options = ThumbnailOptions()
        let specs = arguments.values("size")
        if !specs.isEmpty {
            do {
                options = ThumbnailOptions(sizes: try specs.flatMap { try ThumbnailSize.parseList($0) })
            } catch {
                throw UsageError.invalidValue(option: "size", value: specs.joined(separator: ","),
                                              expected: "N (longer side) or WxH (box), comma-separated, each 1 to \(ThumbnailSize.maximumSide)")
            }
        }
        if let text = arguments.value("format") {
            guard let format = ThumbnailFormat(rawValue: text.lowercased()) else {
                throw UsageError.invalidValue(option: "format", value: text, expected: "jpeg, webp or avif")
            }
            options.format = format
        }
        if let text = arguments.value("fit") {
            guard let fit = ThumbnailFit(rawValue: text.lowercased()) else {
                throw UsageError.invalidValue(option: "fit", value: text, expected: "inside, cover or attention")
            }
            options.fit = fit
        }
        options.quality = try arguments.integer("quality", default: options.quality, in: 1...100)
        options.jobs = try arguments.integer("jobs", default: options.jobs, in: 1...256)
        if let text = arguments.value("max-pixels") {
            guard let pixels = parseCount(text), pixels > 0 else {
                throw UsageError.invalidValue(option: "max-pixels", value: text, expected: "a pixel count such as 250M or 40000000")
            }
            options.maxPixels = pixels
        }
        if let text = arguments.value("max-memory") {
            guard let bytes = ByteSize.parse(text), bytes > 0 else {
                throw UsageError.invalidValue(option: "max-memory", value: text, expected: "a size such as 512M or 2G")
            }
            options.maxMemory = bytes
        }
        options.keepMetadata = arguments.flag("keep-metadata")
        options.force = arguments.flag("force")
        return options
    }

    /// "250M" -> 250_000_000 (decimal K/M/G suffixes).
    static func parseCount(_ text: String) -> Int? {
        let multipliers: [Character: Int] = ["k": 1_000, "m": 1_000_000, "g": 1_000_000_000]
        let lower = text.lowercased()
        if let last = lower.last, let multiplier = multipliers[last] {
            return Int(lower.dropLast()).flatMap { $0.multipliedReportingOverflow(by: multiplier).overflow ? nil : $0 * multiplier }
        }
        return Int(lower)
    }
}
