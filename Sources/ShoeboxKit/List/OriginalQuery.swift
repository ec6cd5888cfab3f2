/// Which originals `shoebox list` shows, and in what order: every filter set must hold
/// (AND). Answered by the catalog alone (`Catalog.originals(matching:limit:_:)`), never by
/// reading files.
///
/// Values as the catalog has them: capture times are compared as written
/// ("YYYY:MM:DD HH:MM:SS", the camera's clock, no zone); `added_at` is UTC. An original
/// without a capture time matches no `taken` bound; one without a position matches no
/// place filter; a position of exactly 0,0 is a position like any other.
public struct OriginalQuery: Sendable, Equatable {
    /// Capture time at or after, catalog text ("YYYY:MM:DD HH:MM:SS").
    public var takenFrom: String?
    /// Capture time before (exclusive), catalog text.
    public var takenBefore: String?
    /// Stored at or after, catalog text ("YYYY-MM-DDTHH:MM:SSZ").
    public var addedFrom: String?
    /// Stored before (exclusive), catalog text.
    public var addedBefore: String?
    /// Camera make starting with this, ignoring ASCII case (EXIF Make: "nikon" is "NIKON CORPORATION").
    public var make: String?
    /// Camera model starting with this, ignoring ASCII case (EXIF Model: "canon eos" is "Canon EOS R5").
    public var model: String?
    /// Lens name containing this, ignoring ASCII case ("24-105" is "EF24-105mm f/4L IS USM").
    /// An original whose lens is not known (catalogued before lenses were) never matches.
    public var lens: String?
    /// Only originals whose lens is not known (catalogued before schema 5): what `reindex` would fill.
    public var lensUnknown = false
    /// true: only originals with a position; false: only those without one.
    public var hasGPS: Bool?
    /// Only positions inside this box.
    public var box: GeoBox?
    /// Only positions within this distance of a point (checked exactly after the catalog's
    /// coarse box, so a limit is counted after it).
    public var near: GeoCircle?
    /// Only these MIME types (`content_type`), when not empty.
    public var contentTypes: [String] = []
    /// Only originals dated this way, when not empty.
    public var datedBy: [CaptureDateSource] = []
    /// Only originals with a source URL (as listed) on this host, http or https, any port.
    public var sourceHost: String?
    /// Only originals with a source URL (as listed) starting with this text.
    public var urlPrefix: String?
    public var sort: OriginalSort = .taken
    /// Largest, newest, last path first; originals without a capture time still come last.
    public var descending = false

    public init() {}

    /// Sets the capture-time bounds from `--since` and `--until` as typed (each whole: `--until
    /// 2024-05` includes all of May).
    public mutating func setTaken(since: String?, until: String?) throws(OriginalQueryError) {
        (takenFrom, takenBefore) = try Self.bounds(since: since, until: until, names: ("since", "until"), text: \.exifText)
    }

    /// Sets the added-time bounds (UTC) from `--added-since` and `--added-until` as typed.
    public mutating func setAdded(since: String?, until: String?) throws(OriginalQueryError) {
        (addedFrom, addedBefore) = try Self.bounds(since: since, until: until, names: ("added-since", "added-until"), text: \.isoText)
    }

    private static func bounds(since: String?, until: String?, names: (String, String),
                               text: (CalendarMoment) -> String) throws(OriginalQueryError) -> (String?, String?) {
        var from: CalendarMoment?, to: CalendarMoment?
        if let since { from = try CalendarMoment.parse(since, option: names.0) }
        if let until { to = try CalendarMoment.parse(until, option: names.1) }
        let before = to?.end
        if let from, let before, from >= before {
            throw .conflicting("--\(names.0) \(since!) is after --\(names.1) \(until!): nothing can match; give the earlier date to --\(names.0)")
        }
        // An --until in the year 9999 leaves no upper bound.
        return (from.map(text), before.map(text))
    }

    /// The MIME type of a format named as `--format` takes it: a format or its library
    /// extension (`jpeg`, `jpg`, `png`, `heic`, `cr3`…, any case) or a MIME type (`image/png`).
    public static func contentType(forFormat text: String) throws(OriginalQueryError) -> String {
        let name = text.lowercased()
        if name.contains("/") {
            guard name.hasPrefix("image/"), name.count > 6 else {
                throw .invalid(option: "format", value: text, expected: "not an image MIME type; use e.g. image/jpeg, or a format name")
            }
            return name
        }
        if let format = ImageFormat.allCases.first(where: { $0.rawValue == name || $0.fileExtension == name }) {
            return format.mimeType
        }
        let names = ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")
        throw .invalid(option: "format", value: text, expected: "not a format shoebox stores; use one of \(names), or a MIME type")
    }

    /// How an original was dated, as `--dated-by` takes it: the catalog's words (`exif`, `maker-notes`, `xmp`, `iptc`,
    /// `raw-header`, `last-modified`, `fetch-time`, `file-time`) or `camera`, `server`, `download`, `file`.
    public static func captureDateSource(named text: String) throws(OriginalQueryError) -> CaptureDateSource {
        let aliases: [String: CaptureDateSource] = ["camera": .exif, "server": .lastModified, "download": .fetchTime, "file": .fileTime]
        let name = text.lowercased()
        if let source = CaptureDateSource(rawValue: name) ?? aliases[name] { return source }
        throw .invalid(option: "dated-by", value: text,
                       expected: "not a dating; use exif (camera), maker-notes, xmp, iptc, raw-header, last-modified (server), fetch-time (download) or file-time (file)")
    }

    /// With a `lens` filter: the same filters, lens aside, for the originals whose lens is not
    /// known, those the filter cannot judge (`Catalog.countOriginals(matching:upTo:)` counts them).
    /// How far the originals of `lensNotJudged` are counted.
    public static let lensNotJudgedBound = 10_000

    public var lensNotJudged: OriginalQuery? {
        guard lens != nil else { return nil }
        var query = self
        query.lens = nil
        query.lensUnknown = true
        query.sort = .path
        return query
    }

    /// Whether the catalog's answer must still be checked row by row (`matchesExactly`).
    public var needsExactCheck: Bool { near != nil }

    /// The check SQL leaves to Swift: the exact distance for `near`.
    public func matchesExactly(_ record: OriginalRecord) -> Bool {
        guard let near else { return true }
        guard let latitude = record.gpsLatitude, let longitude = record.gpsLongitude else { return false }
        return near.contains(latitude: latitude, longitude: longitude)
    }

    /// The source URL prefixes that `sourceHost` stands for: `http[s]://HOST` followed by
    /// `/`, `:` (a port), `?` or nothing.
    public var hostPrefixes: [String] {
        guard let host = sourceHost?.lowercased() else { return [] }
        return ["http://", "https://"].flatMap { scheme in ["/", ":", "?"].map { scheme + host + $0 } }
    }

    /// The host URLs written without even a path (`http://HOST`).
    public var hostExactURLs: [String] {
        guard let host = sourceHost?.lowercased() else { return [] }
        return ["http://" + host, "https://" + host]
    }

    /// Whether `record` (with the URLs of its sources) passes every filter: the definition
    /// the catalogs' SQL answers must agree with (and what an in-memory catalog uses).
    public func matches(_ record: OriginalRecord, sourceURLs: [String]) -> Bool {
        if takenFrom != nil || takenBefore != nil {
            guard let taken = record.takenAt else { return false }
            if let takenFrom, taken < takenFrom { return false }
            if let takenBefore, taken >= takenBefore { return false }
        }
        if let addedFrom, record.addedAt < addedFrom { return false }
        if let addedBefore, record.addedAt >= addedBefore { return false }
        if let make, record.make.map({ Self.startsIgnoringASCIICase($0, make) }) != true { return false }
        if let model, record.model.map({ Self.startsIgnoringASCIICase($0, model) }) != true { return false }
        if let lens, record.lens.map({ Self.containsIgnoringASCIICase($0, lens) }) != true { return false }
        if lensUnknown, record.lens != nil { return false }
        let position = record.gpsLatitude.flatMap { latitude in record.gpsLongitude.map { (latitude, $0) } }
        if let hasGPS, hasGPS != (position != nil) { return false }
        if let box {
            guard let position, box.contains(latitude: position.0, longitude: position.1) else { return false }
        }
        if near != nil, !matchesExactly(record) { return false }
        if !contentTypes.isEmpty, !contentTypes.contains(record.contentType) { return false }
        if !datedBy.isEmpty, !record.datedBy.map(datedBy.contains).orFalse { return false }
        if sourceHost != nil {
            let prefixes = hostPrefixes, exact = hostExactURLs
            guard sourceURLs.contains(where: { url in exact.contains(url) || prefixes.contains { url.hasPrefix($0) } }) else { return false }
        }
        if let urlPrefix, !sourceURLs.contains(where: { $0.utf8.starts(with: urlPrefix.utf8) }) { return false }
        return true
    }

    /// Whether `a` comes before `b` in this query's order (undated last for `.taken`).
    public func precedes(_ a: OriginalRecord, _ b: OriginalRecord) -> Bool {
        func ordered<T: Comparable>(_ x: T, _ y: T) -> Bool? {
            if x == y { return nil }
            return descending ? x > y : x < y
        }
        switch sort {
        case .taken:
            switch (a.takenAt, b.takenAt) {
            case let (x?, y?): if let answer = ordered(x, y) { return answer }
            case (nil, _?): return false
            case (_?, nil): return true
            case (nil, nil): break
            }
        case .added:
            if let answer = ordered(a.addedAt, b.addedAt) { return answer }
        case .size:
            if let answer = ordered(a.bytes, b.bytes) { return answer }
        case .path:
            break
        }
        // Ties by path, byte order (as SQLite's BINARY and PostgreSQL's "C").
        let before = a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
        let after = b.path.utf8.lexicographicallyPrecedes(a.path.utf8)
        return descending ? after : before
    }

    static func startsIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
        asciiLowercased(text).utf8.starts(with: asciiLowercased(prefix).utf8)
    }

    /// Whether `part` occurs in `text` ignoring ASCII case, byte for byte (as SQL's instr/strpos
    /// on lower-cased text); an empty `part` occurs in every text.
    static func containsIgnoringASCIICase(_ text: String, _ part: String) -> Bool {
        let haystack = Array(asciiLowercased(text).utf8), needle = Array(asciiLowercased(part).utf8)
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }

    /// A-Z lowered, every other character kept (as SQLite's NOCASE and PostgreSQL's lower() in "C").
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

private extension Optional where Wrapped == Bool {
    var orFalse: Bool { self ?? false }
}
