/// The SQL that answers an `OriginalQuery` in either catalog, every value a bound parameter
/// (never text spliced into the statement). The statement text depends only on which
/// filters are set, so each shape is prepared once and reused.
///
/// Sorting by capture time takes two statements: the dated originals in order, then the
/// undated ones by path. One `ORDER BY taken_at IS NULL, taken_at` would put them last
/// too, but no index can answer it, and SQLite would sort the whole table for a LIMIT 10.
///
/// The indexes it is written for (`CatalogSchema.listIndexes`, `PostgresCatalogSchema`):
/// capture time and added time (each with path, for the order and its ties), make, model,
/// and the position; source hosts and URL prefixes are ranges of `source_versions.url` (every
/// URL that ever gave an original, its key's first column), or of `sources.url` in a catalog
/// too old to have that table.
struct OriginalQuerySQL {
    enum Dialect { case sqlite, postgres }

    enum Parameter: Equatable {
        case text(String)
        case real(Double)
        case integer(Int64)
    }

    struct Statement: Equatable {
        var sql: String
        var parameters: [Parameter]
        /// Whether `sql` ends in `LIMIT` and a placeholder for it (bound after `parameters`).
        var limited: Bool
    }

    /// The statements to run in turn. `limited`: end each with a LIMIT to bind (not when rows
    /// are still checked one by one: a limit counts only those that pass). `columns`: the
    /// columns selected; `missingColumns`: those a catalog too old lacks (tested as NULL).
    static func statements(for query: OriginalQuery, columns: String, dialect: Dialect, limited: Bool,
                           missingColumns: Set<String> = [], sourceTable: String = "source_versions") -> [Statement] {
        var builder = OriginalQuerySQL(dialect: dialect)
        builder.sourceTable = sourceTable
        builder.missingColumns = missingColumns
        let conditions = builder.conditions(for: query)
        let direction = query.descending ? " DESC" : ""
        let path = "path" + direction
        var passes: [(extra: String?, order: String)] = []
        switch query.sort {
        case .taken:
            let byTime = "taken_at\(builder.byteOrder)\(direction), \(path)"
            if query.takenFrom != nil || query.takenBefore != nil {
                passes = [(nil, byTime)]  // the bounds already leave the undated out
            } else {
                // SQLite, which plans without the bound values, took the capture-time index to find
                // the undated rows even beside a narrow filter with its own index (a box: 0.3 s
                // of 0.4 on a million rows); a unary + keeps it to that filter's index then.
                let narrow = query.box != nil || query.near != nil || query.make != nil || query.model != nil
                    || query.sourceHost != nil || query.urlPrefix != nil || query.addedFrom != nil || query.addedBefore != nil
                let undated = dialect == .sqlite && narrow ? "+taken_at IS NULL" : "taken_at IS NULL"
                passes = [("taken_at IS NOT NULL", byTime), (undated, path)]
            }
        case .added: passes = [(nil, "added_at\(builder.byteOrder)\(direction), \(path)")]
        case .path: passes = [(nil, path)]
        case .size: passes = [(nil, "bytes\(direction), \(path)")]
        }
        return passes.map { pass in
            var limitBuilder = builder
            let all = conditions + (pass.extra.map { [$0] } ?? [])
            var sql = "SELECT \(columns) FROM originals"
            if !all.isEmpty { sql += " WHERE " + all.joined(separator: " AND ") }
            sql += " ORDER BY " + pass.order
            if limited { sql += " LIMIT " + limitBuilder.placeholder(for: .integer(0), type: "bigint") }
            return Statement(sql: sql, parameters: builder.parameters, limited: limited)
        }
    }

    private let dialect: Dialect
    /// Where the URLs are looked up: `source_versions`, or `sources` in a version-3 catalog.
    private var sourceTable = "source_versions"
    private var missingColumns: Set<String> = []
    private(set) var parameters: [Parameter] = []

    private init(dialect: Dialect) {
        self.dialect = dialect
    }

    /// Byte order for text compared and sorted: SQLite's default (BINARY) already is; a
    /// PostgreSQL database's default collation may not be.
    private var byteOrder: String { dialect == .postgres ? " COLLATE \"C\"" : "" }

    /// Binds `value`, giving its placeholder (`?`, or `$n::type` so PostgreSQL knows its type).
    private mutating func placeholder(for value: Parameter, type: String) -> String {
        parameters.append(value)
        switch dialect {
        case .sqlite: return "?"
        case .postgres: return "$\(parameters.count)::\(type)"
        }
    }

    private mutating func text(_ value: String) -> String { placeholder(for: .text(value), type: "text") }
    private mutating func real(_ value: Double) -> String { placeholder(for: .real(value), type: "float8") }

    /// `column` starting with `prefix` ignoring ASCII case: a range of its case-folded index
    /// (from the lower-cased prefix up to its successor), which both catalogs can seek.
    private mutating func startsIgnoringCase(_ column: String, _ prefix: String) -> String {
        let lower = OriginalQuery.asciiLowercased(prefix)
        let upper = Self.successor(of: lower, folded: true)
        switch dialect {
        case .sqlite:
            let from = "\(column) >= \(text(lower)) COLLATE NOCASE"
            return upper.map { "\(from) AND \(column) < \(text($0)) COLLATE NOCASE" } ?? from
        case .postgres:
            let folded = "lower(\(column) COLLATE \"C\")"
            let from = "\(folded) >= \(text(lower))"
            return upper.map { "\(from) AND \(folded) < \(text($0))" } ?? from
        }
    }

    /// A column, or NULL in a catalog too old to have it.
    private func column(_ name: String) -> String { missingColumns.contains(name) ? "NULL" : name }

    private mutating func conditions(for query: OriginalQuery) -> [String] {
        var conditions: [String] = []
        if let from = query.takenFrom { conditions.append("taken_at\(byteOrder) >= \(text(from))") }
        if let before = query.takenBefore { conditions.append("taken_at\(byteOrder) < \(text(before))") }
        if let from = query.addedFrom { conditions.append("added_at\(byteOrder) >= \(text(from))") }
        if let before = query.addedBefore { conditions.append("added_at\(byteOrder) < \(text(before))") }
        if let make = query.make { conditions.append(startsIgnoringCase("make", make)) }
        if let model = query.model { conditions.append(startsIgnoringCase("model", model)) }
        if let lens = query.lens {
            // Anywhere in the name ("24-105", "f/2.8"), ASCII case ignored: no index can seek
            // that; a scan of the rows the other filters leave.
            let needle = text(OriginalQuery.asciiLowercased(lens))
            switch dialect {
            case .sqlite: conditions.append("instr(lower(\(column("lens"))), \(needle)) > 0")
            case .postgres: conditions.append("strpos(lower(\(column("lens")) COLLATE \"C\"), \(needle)) > 0")
            }
        }
        if query.lensUnknown { conditions.append("\(column("lens")) IS NULL") }
        switch query.hasGPS {
        case true?: conditions.append("gps_latitude IS NOT NULL AND gps_longitude IS NOT NULL")
        case false?: conditions.append("(gps_latitude IS NULL OR gps_longitude IS NULL)")
        case nil: break
        }
        for box in [query.box, query.near?.boundingBox].compactMap({ $0 }) {
            var condition = "gps_latitude >= \(real(box.south)) AND gps_latitude <= \(real(box.north)) AND "
            if box.crossesAntimeridian {
                condition += "(gps_longitude >= \(real(box.west)) OR gps_longitude <= \(real(box.east)))"
            } else {
                condition += "gps_longitude >= \(real(box.west)) AND gps_longitude <= \(real(box.east))"
            }
            conditions.append(condition)
        }
        if !query.contentTypes.isEmpty {
            conditions.append("content_type IN (" + query.contentTypes.map { text($0) }.joined(separator: ", ") + ")")
        }
        if !query.datedBy.isEmpty {
            conditions.append("\(column("dated_by")) IN (" + query.datedBy.map { text($0.rawValue) }.joined(separator: ", ") + ")")
        }
        if query.sourceHost != nil {
            let exact = query.hostExactURLs.map { "url = \(text($0))" }
            let ranges = query.hostPrefixes.map { urlRange($0) }
            conditions.append("sha256 IN (SELECT sha256 FROM \(sourceTable) WHERE " + (exact + ranges).joined(separator: " OR ") + ")")
        }
        if let prefix = query.urlPrefix {
            conditions.append("sha256 IN (SELECT sha256 FROM \(sourceTable) WHERE " + urlRange(prefix) + ")")
        }
        return conditions
    }

    /// The URLs starting with `prefix`, as a range of the `sources.url` key: from the prefix
    /// up to the prefix with its last character one higher (byte order is code point order).
    private mutating func urlRange(_ prefix: String) -> String {
        guard let upper = Self.successor(of: prefix) else { return "url >= \(text(prefix))" }
        return "(url >= \(text(prefix)) AND url < \(text(upper)))"
    }

    /// The least string greater than every string starting with `prefix`; nil when there is
    /// none (a prefix of U+10FFFF alone). `folded`: among ASCII-lower-cased strings, which
    /// hold no A-Z (after "@" comes "[").
    static func successor(of prefix: String, folded: Bool = false) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var value = last.value + 1
            if (0xD800...0xDFFF).contains(value) { value = 0xE000 }
            if folded && (0x41...0x5A).contains(value) { value = 0x5B }
            if let next = Unicode.Scalar(value) {
                var result = String.UnicodeScalarView()
                result.append(contentsOf: scalars)
                result.append(next)
                return String(result)
            }
        }
        return nil
    }
}

extension SQLiteValue {
    init(_ parameter: OriginalQuerySQL.Parameter) {
        switch parameter {
        case .text(let text): self = .text(text)
        case .real(let number): self = .real(number)
        case .integer(let number): self = .integer(number)
        }
    }
}

extension PostgresValue {
    init(_ parameter: OriginalQuerySQL.Parameter) {
        switch parameter {
        case .text(let text): self = .text(text)
        case .real(let number): self = .double(number)
        case .integer(let number): self = .integer(number)
        }
    }
}
