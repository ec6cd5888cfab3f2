import Foundation
import ShoeboxKit

/// `shoebox list [--library DIR] [filters] [--sort KEY] [--limit N] [--json | --paths [-0]]`.
public enum ListCommand: Command {
    public static let spec = CommandSpec(
        name: "list",
        abstract: "List the archived originals that match filters, from the catalog alone.",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
        ] + filterOptions + [
            OptionSpec("limit", short: "n", .value("N"), help: "Show at most N originals."),
            OptionSpec("sources", help: "Also show every URL that gave each original (older versions of a URL included), newest first."),
            OptionSpec("json", help: "Print one JSON object a line per original: fetch's metadata keys and added_at, bytes, content_type, path, sha256."),
            OptionSpec("paths", help: "Print only each original's file (or s3:// object), one a line, for xargs."),
            OptionSpec("null", short: "0", help: "With --paths (implied): end each path with a NUL byte instead of a line break, for xargs -0."),
        ],
        discussion: """
        Filters combine (all must hold); a repeated --format or --dated-by matches any of its values. Only the catalog is
        read, never the files. Capture times are compared as the catalog has them: the camera's clock, no time zone; an
        original without one matches no --since or --until and is listed after the dated ones. --lens matches the lens the
        file names (EXIF LensModel) anywhere in its name; originals catalogued before shoebox recorded lenses (catalog
        schema 5) have none known until 'shoebox reindex' reads them, and the count of those is noted on stderr.
        Without --json or --paths the answer is a table, on a terminal or not (colour only on a terminal, never with NO_COLOR).
        Exit status: 0 listed (also when nothing matches), 2 usage or a bad filter, 4 library or catalog unusable,
        5 shared catalog unreachable, 130 interrupted, 141 output closed by its reader.
        """
    )

    /// The filters and order options, shared with `export` (`query(_:)` reads them).
    static let filterOptions: [OptionSpec] = [
            OptionSpec("since", .value("DATE"), help: "Taken at or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS; YYYY-MM, YYYY), the camera's clock."),
            OptionSpec("until", .value("DATE"), help: "Taken on or before DATE; a day, month or year given counts whole."),
            OptionSpec("make", .value("TEXT"), help: "Camera make starting with TEXT, ignoring case (EXIF Make: nikon finds NIKON CORPORATION)."),
            OptionSpec("model", .value("TEXT"), help: "Camera model starting with TEXT, ignoring case (EXIF Model: 'canon eos' finds Canon EOS R5)."),
            OptionSpec("lens", .value("TEXT"), help: "Lens name containing TEXT, ignoring case (EXIF LensModel: 24-105 finds EF24-105mm f/4L IS USM)."),
            OptionSpec("has-gps", help: "Only originals with a GPS position (0,0 included: it is recorded as a position)."),
            OptionSpec("no-gps", help: "Only originals without a GPS position."),
            OptionSpec("bbox", .value("SOUTH,WEST,NORTH,EAST"), help: "Position inside the box, decimal degrees (WEST > EAST crosses longitude 180)."),
            OptionSpec("near", .value("LAT,LON,DISTANCE"), help: "Position within DISTANCE (km, or m with the suffix m: 2km, 500m) of LAT,LON."),
            OptionSpec("format", .values("FORMAT"), help: "Stored format: a name or extension (jpeg, png, heic, cr3...) or a MIME type."),
            OptionSpec("dated-by", .values("HOW"),
                       help: "How the capture date was found: exif (camera), maker-notes, xmp, iptc, raw-header, last-modified (server), fetch-time (download) or file-time."),
            OptionSpec("added-since", .value("DATE"), help: "Stored at or after DATE (UTC)."),
            OptionSpec("added-until", .value("DATE"), help: "Stored on or before DATE (UTC)."),
            OptionSpec("host", .value("HOST"), help: "Downloaded from a URL on HOST (http or https, any port), as listed."),
            OptionSpec("url-prefix", .value("PREFIX"), help: "Downloaded from a URL starting with PREFIX, as listed."),
            OptionSpec("sort", .value("taken|added|path|size"), help: "Order: capture time (undated last), time stored, library path or size.", default: "taken"),
            OptionSpec("reverse", help: "Newest, largest or last path first (undated originals still last)."),
    ]

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let trap = InterruptExit.trap("list", console: console)
        defer { withExtendedLifetime(trap) {} }
        let query = try query(arguments)
        let limit: Int? = try arguments.value("limit").map { _ in try arguments.integer("limit", default: 0, in: 1...Int(Int32.max)) }
        let nul = arguments.flag("null"), json = arguments.flag("json"), withSources = arguments.flag("sources")
        let paths = arguments.flag("paths") || nul
        if json && paths {
            throw UsageError.conflicting("--json and --paths\(nul ? " (or -0)" : "") print different things: choose one")
        }
        let configuration = try LibraryOption.configuration(arguments, console: console)
        let location = try pathLocation(configuration)
        let table = ListTable(color: console.stdoutColor)
        var output = BufferedOutput(console: console)
        var count = 0
        do {
            let library = try Library.openForReading(configuration)
            let catalog = try library.openCatalog(readOnly: true, checkIntegrity: false)
            defer { catalog.close() }
            // Looked up beside the streamed answer, on a connection of their own.
            let lookups = withSources && !paths ? try library.openCatalog(readOnly: true, checkIntegrity: false) : nil
            defer { lookups?.close() }
            if !json && !paths { output.line(table.header) }
            if paths {
                try catalog.originalPaths(matching: query, limit: limit) { path in
                    count += 1
                    output.text(location(path) + (nul ? "\0" : "\n"))
                    return console.outputFailure == nil
                }
            } else {
                try catalog.originals(matching: query, limit: limit) { original in
                    count += 1
                    let sources = try lookups?.sourceVersions(sha256: original.sha256)
                    if json {
                        output.line(OriginalRecordJSON.listed(original, sources: sources))
                    } else {
                        output.line(table.row(original))
                        for version in sources ?? [] {
                            output.line("    " + TerminalText.oneLine(version.url) + "  (" + version.firstFetchedAt
                                + (version.lastFetchedAt != version.firstFetchedAt ? " .. " + version.lastFetchedAt : "") + ")")
                        }
                    }
                    return console.outputFailure == nil
                }
            }
            if let unjudged = query.lensNotJudged {
                noteLensNotJudged(try catalog.countOriginals(matching: unjudged, upTo: OriginalQuery.lensNotJudgedBound),
                                  command: "list", console: console)
            }
        } catch {
            output.flush()
            return LibraryFailure.status(for: error, command: "list", console: console)
        }
        output.flush()
        if !json && !paths && (console.stdoutIsTerminal || count == 0) {
            console.note(count == 0 ? "list: no original matches\n" : "list: \(Counted.text(count, "original"))\n")
        }
        return ExitStatus.success
    }

    /// The filters and order given, checked: a bad value is an error naming it (exit status 2).
    static func query(_ arguments: ParsedArguments) throws -> OriginalQuery {
        var query = OriginalQuery()
        try query.setTaken(since: arguments.value("since"), until: arguments.value("until"))
        try query.setAdded(since: arguments.value("added-since"), until: arguments.value("added-until"))
        query.make = try nonEmpty(arguments, "make")
        query.model = try nonEmpty(arguments, "model")
        query.lens = try nonEmpty(arguments, "lens")
        if arguments.flag("has-gps") && arguments.flag("no-gps") {
            throw UsageError.conflicting("--has-gps and --no-gps together match nothing: give one")
        }
        if arguments.flag("has-gps") { query.hasGPS = true }
        if arguments.flag("no-gps") { query.hasGPS = false }
        query.box = try arguments.value("bbox").map { try GeoBox(parsing: $0) }
        query.near = try arguments.value("near").map { try GeoCircle(parsing: $0) }
        if query.hasGPS == false, query.box != nil || query.near != nil {
            throw UsageError.conflicting("--no-gps with --\(query.box != nil ? "bbox" : "near") matches nothing: a place needs a position")
        }
        query.contentTypes = try arguments.values("format").map { try OriginalQuery.contentType(forFormat: $0) }
        query.datedBy = try arguments.values("dated-by").map { try OriginalQuery.captureDateSource(named: $0) }
        if let host = try nonEmpty(arguments, "host") {
            guard !host.contains(where: { "/:?#@ ".contains($0) }) else {
                throw OriginalQueryError.invalid(option: "host", value: host, expected: "not a host name; give the name alone, e.g. photos.example.com")
            }
            query.sourceHost = host
        }
        query.urlPrefix = try nonEmpty(arguments, "url-prefix")
        if let sort = arguments.value("sort") {
            guard let order = OriginalSort(rawValue: sort) else {
                throw UsageError.invalidValue(option: "sort", value: sort, expected: "one of taken, added, path, size")
            }
            query.sort = order
        }
        query.descending = arguments.flag("reverse")
        return query
    }

    /// Says on stderr how many originals a --lens filter could not judge (lens not known).
    static func noteLensNotJudged(_ count: Int, command: String, console: Console) {
        guard count > 0 else { return }
        let counted = count >= OriginalQuery.lensNotJudgedBound
            ? "more than \(OriginalQuery.lensNotJudgedBound) originals" : Counted.text(count, "original")
        console.note("\(command): \(counted) matching the other filters \(count == 1 ? "was" : "were") catalogued before shoebox "
            + "recorded lenses and \(count == 1 ? "is" : "are") not matched by --lens; 'shoebox reindex' reads their lenses from the files\n")
    }

    private static func nonEmpty(_ arguments: ParsedArguments, _ option: String) throws -> String? {
        guard let value = arguments.value(option) else { return nil }
        guard !value.isEmpty else { throw UsageError.invalidValue(option: option, value: value, expected: "some text") }
        return value
    }

    /// Where `--paths` says an original is: its file under the library folder, or its object's
    /// s3:// URL (the store's name for it, usable with any S3 client). Worked out without
    /// opening the store: no request, no credentials.
    private static func pathLocation(_ configuration: LibraryConfiguration) throws -> (String) -> String {
        switch configuration.store {
        case .libraryFolder:
            let layout = configuration.layout
            return { layout.absolute($0) }
        case .objectStore(let url):
            let bucket = try S3Location(parsing: url)
            return { "s3://\(bucket.bucket)/\(bucket.key(for: $0))" }
        }
    }
}
