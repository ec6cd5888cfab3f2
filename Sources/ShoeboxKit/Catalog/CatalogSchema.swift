/// The catalog schema (version 5), as stored in `LIBRARY/catalog.sqlite`.
///
/// The database runs in WAL mode with `synchronous=FULL` (every commit is on disk
/// when `COMMIT` returns) and `foreign_keys=ON`. Text times are ISO 8601 UTC unless
/// noted; hashes are lower-case hex SHA-256; paths are relative to the library root.
///
/// ```sql
/// -- Key/value facts about the catalog itself.
/// CREATE TABLE meta (
///     key   TEXT PRIMARY KEY,       -- 'schema_version', 'created_at', 'created_by'
///     value TEXT NOT NULL
/// );
///
/// -- One row per stored original (unique content).
/// CREATE TABLE originals (
///     sha256        TEXT PRIMARY KEY,     -- identity of the bytes
///     path          TEXT NOT NULL UNIQUE, -- 'originals/YYYY/MM/DD/NAME.EXT'
///     bytes         INTEGER NOT NULL,
///     content_type  TEXT NOT NULL,        -- MIME type sniffed from the bytes
///     width         INTEGER,
///     height        INTEGER,
///     taken_at      TEXT,                 -- EXIF 'YYYY:MM:DD HH:MM:SS', or the fallback date used
///     make          TEXT,
///     model         TEXT,
///     gps_latitude  REAL,                 -- decimal degrees, north positive
///     gps_longitude REAL,                 -- decimal degrees, east positive
///     gps_altitude  REAL,                 -- metres above sea level
///     orientation   INTEGER,              -- EXIF orientation 1..8
///     added_at      TEXT NOT NULL,
///     dated_by      TEXT,                 -- where taken_at came from: exif|maker-notes|xmp|iptc|raw-header|last-modified|fetch-time|file-time
///                                         --   (NULL: catalogued by schema 1, which did not record it)
///     folded_path   TEXT,                 -- path lower-cased (Unicode), NFC: fetch gives no two originals the
///                                         --   same one, so the library can be copied to a case-insensitive disk
///     lens          TEXT                  -- EXIF LensModel, trimmed; '' when the file names none; NULL when not
///                                         --   known (catalogued before schema 5; reindex reads it)
/// );
///
/// CREATE INDEX originals_folded_path ON originals(folded_path);
/// -- For `shoebox list` (`listIndexes`): its orders and filters, answered without a table scan.
/// CREATE INDEX originals_taken_at ON originals(taken_at, path);
/// CREATE INDEX originals_added_at ON originals(added_at, path);
/// CREATE INDEX originals_make ON originals(make COLLATE NOCASE);
/// CREATE INDEX originals_model ON originals(model COLLATE NOCASE);
/// CREATE INDEX originals_position ON originals(gps_latitude, gps_longitude) WHERE gps_latitude IS NOT NULL;
/// CREATE INDEX originals_lens_unknown ON originals(path) WHERE lens IS NULL;  -- created with version 5
///
/// -- One row per URL ever fetched, keyed by the URL as listed.
/// CREATE TABLE sources (
///     url           TEXT PRIMARY KEY,
///     final_url     TEXT,                 -- after redirects
///     sha256        TEXT REFERENCES originals(sha256) DEFERRABLE INITIALLY DEFERRED,
///     etag          TEXT,
///     last_modified TEXT,                 -- HTTP Last-Modified, verbatim
///     http_status   INTEGER,
///     fetched_at    TEXT NOT NULL,
///     outcome       TEXT NOT NULL,        -- stored|duplicate|unchanged|skipped|failed|rejected
///     reason        TEXT
/// );
/// CREATE INDEX sources_sha256 ON sources(sha256);
///
/// -- Every (URL, content) pair ever recorded: `sources` keeps a URL's latest content only.
/// CREATE TABLE source_versions (
///     url              TEXT NOT NULL,
///     sha256           TEXT NOT NULL,
///     final_url        TEXT,
///     etag             TEXT,
///     last_modified    TEXT,
///     http_status      INTEGER,
///     first_fetched_at TEXT NOT NULL,
///     last_fetched_at  TEXT NOT NULL,
///     PRIMARY KEY (url, sha256)
/// );
/// CREATE INDEX source_versions_sha256 ON source_versions(sha256);
///
/// -- One row per thumbnail file.
/// CREATE TABLE thumbnails (
///     path            TEXT PRIMARY KEY,   -- 'thumbnails/...'
///     original_sha256 TEXT NOT NULL REFERENCES originals(sha256) DEFERRABLE INITIALLY DEFERRED,
///     size            TEXT NOT NULL,      -- size spec, e.g. '256' or '300x200'
///     format          TEXT NOT NULL,
///     width           INTEGER NOT NULL,
///     height          INTEGER NOT NULL,
///     bytes           INTEGER NOT NULL,
///     created_at      TEXT NOT NULL,
///     settings        TEXT                -- encoder settings, e.g. 'jpeg q80 inside stripped r2'
///                                         --   (NULL: made before schema 2; thumbs remakes it)
/// );
/// CREATE INDEX thumbnails_original ON thumbnails(original_sha256);
/// ```
///
/// Foreign keys are checked at commit (`DEFERRABLE INITIALLY DEFERRED`), so within
/// one transaction a source may be written before its original.
///
/// Version history: 2 added `originals.dated_by`, `thumbnails.settings` and the index
/// `originals_path_nocase` (ASCII case only); 3 replaced that index by `folded_path`
/// (`CaseFoldedPath`), which also folds letters outside ASCII (É, Ж); 4 added
/// `source_versions` (filled from `sources`: each URL's latest content); 5 added
/// `originals.lens` (NULL, not known, for the originals already there). A writer upgrades an
/// older catalog when it opens it (`upgrades`, then `SQLiteCatalog` fills `folded_path`);
/// a reader of an older catalog sees NULL for the newer columns. The `list` indexes change
/// no table and so no version: a writer adds those missing when it opens the catalog (a
/// catalog of a million originals takes a few seconds, once); a reader of a catalog no
/// writer has opened since gets the same answers, more slowly.
///
/// The same tables in PostgreSQL (`PostgresCatalog`): `PostgresCatalogSchema`.
enum CatalogSchema {
    /// The version this build writes and understands.
    static let version = 6

    /// The statements that bring a catalog of version `key - 1` to version `key`.
    static let upgrades: [Int: [String]] = [
        2: ["ALTER TABLE originals ADD COLUMN dated_by TEXT", "ALTER TABLE thumbnails ADD COLUMN settings TEXT",
            "CREATE INDEX IF NOT EXISTS originals_path_nocase ON originals(path COLLATE NOCASE)"],
        3: ["ALTER TABLE originals ADD COLUMN folded_path TEXT", "DROP INDEX IF EXISTS originals_path_nocase"],
        4: [sourceVersionsTable, sourceVersionsIndex, fillSourceVersions],
        5: ["ALTER TABLE originals ADD COLUMN lens TEXT", lensUnknownIndex],
        6: ["ALTER TABLE originals ADD COLUMN exposure TEXT"],
    ]
    /// The originals whose lens is not known (catalogued before version 5), found without a
    /// table scan: `list --lens` says how many it could not judge.
    static let lensUnknownIndex = "CREATE INDEX IF NOT EXISTS originals_lens_unknown ON originals(path) WHERE lens IS NULL"
    static let sourceVersionsTable = """
        CREATE TABLE IF NOT EXISTS source_versions (
            url TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            final_url TEXT,
            etag TEXT,
            last_modified TEXT,
            http_status INTEGER,
            first_fetched_at TEXT NOT NULL,
            last_fetched_at TEXT NOT NULL,
            PRIMARY KEY (url, sha256)
        )
        """
    static let sourceVersionsIndex = "CREATE INDEX IF NOT EXISTS source_versions_sha256 ON source_versions(sha256)"
    /// A catalog made before version 4 knows each URL's latest content only: that is its history.
    static let fillSourceVersions = "INSERT OR IGNORE INTO source_versions (\(sourceVersionColumns)) "
        + "SELECT url, sha256, final_url, etag, last_modified, http_status, fetched_at, fetched_at FROM sources WHERE sha256 IS NOT NULL"
    static let sourceVersionColumns =
        "url, sha256, final_url, etag, last_modified, http_status, first_fetched_at, last_fetched_at"
    /// Records a version, or its latest fetch when it is known (the same statement in PostgreSQL).
    static let upsertSourceVersion = "INSERT INTO source_versions (\(sourceVersionColumns)) VALUES (?,?,?,?,?,?,?,?) "
        + "ON CONFLICT (url, sha256) DO UPDATE SET final_url = excluded.final_url, etag = excluded.etag, "
        + "last_modified = excluded.last_modified, http_status = excluded.http_status, "
        + "first_fetched_at = min(source_versions.first_fetched_at, excluded.first_fetched_at), "
        + "last_fetched_at = max(source_versions.last_fetched_at, excluded.last_fetched_at)"
    /// Run after the upgrade to version 3 has filled `folded_path`: indexing the filled
    /// column once is faster than updating the index row by row.
    static let foldedPathIndex = "CREATE INDEX IF NOT EXISTS originals_folded_path ON originals(folded_path)"

    /// The indexes `shoebox list` relies on (`OriginalQuerySQL`), created with the schema and
    /// added by a writer to a catalog made before them.
    static let listIndexes: [String] = [
        "CREATE INDEX IF NOT EXISTS originals_taken_at ON originals(taken_at, path)",
        "CREATE INDEX IF NOT EXISTS originals_added_at ON originals(added_at, path)",
        "CREATE INDEX IF NOT EXISTS originals_make ON originals(make COLLATE NOCASE)",
        "CREATE INDEX IF NOT EXISTS originals_model ON originals(model COLLATE NOCASE)",
        "CREATE INDEX IF NOT EXISTS originals_position ON originals(gps_latitude, gps_longitude) WHERE gps_latitude IS NOT NULL",
    ]

    /// The statements creating the current version, run in one transaction on a new catalog.
    static let createStatements: [String] = [
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE originals (
            sha256 TEXT PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            bytes INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            width INTEGER,
            height INTEGER,
            taken_at TEXT,
            make TEXT,
            model TEXT,
            gps_latitude REAL,
            gps_longitude REAL,
            gps_altitude REAL,
            orientation INTEGER,
            added_at TEXT NOT NULL,
            dated_by TEXT,
            folded_path TEXT,
            lens TEXT,
            exposure TEXT
        )
        """,
        """
        CREATE TABLE sources (
            url TEXT PRIMARY KEY,
            final_url TEXT,
            sha256 TEXT REFERENCES originals(sha256) DEFERRABLE INITIALLY DEFERRED,
            etag TEXT,
            last_modified TEXT,
            http_status INTEGER,
            fetched_at TEXT NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT
        )
        """,
        foldedPathIndex,
        "CREATE INDEX sources_sha256 ON sources(sha256)",
        """
        CREATE TABLE thumbnails (
            path TEXT PRIMARY KEY,
            original_sha256 TEXT NOT NULL REFERENCES originals(sha256) DEFERRABLE INITIALLY DEFERRED,
            size TEXT NOT NULL,
            format TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            settings TEXT
        )
        """,
        "CREATE INDEX thumbnails_original ON thumbnails(original_sha256)",
        sourceVersionsTable,
        sourceVersionsIndex,
        lensUnknownIndex,
    ] + listIndexes

    static let originalColumns =
        "sha256, path, bytes, content_type, width, height, taken_at, make, model, "
        + "gps_latitude, gps_longitude, gps_altitude, orientation, added_at, dated_by, lens, exposure"
    /// The columns of `originalColumns` a catalog of `version` lacks (a reader reads NULL instead).
    static func originalColumnsMissing(inVersion version: Int) -> Set<String> {
        var missing: Set<String> = []
        if version < 2 { missing.insert("dated_by") }
        if version < 5 { missing.insert("lens") }
        if version < 6 { missing.insert("exposure") }
        return missing
    }
    /// `originalColumns` for reading a catalog of `version`: NULL for each column it lacks.
    static func originalColumns(forVersion version: Int) -> String {
        let missing = originalColumnsMissing(inVersion: version)
        return originalColumns.components(separatedBy: ", ").map { missing.contains($0) ? "NULL" : $0 }.joined(separator: ", ")
    }
    static let sourceColumns =
        "url, final_url, sha256, etag, last_modified, http_status, fetched_at, outcome, reason"
    static let thumbnailColumns =
        "original_sha256, size, path, format, width, height, bytes, created_at, settings"
    /// `thumbnailColumns` for reading a version-1 catalog, which has no `settings`.
    static let thumbnailColumnsVersion1 = thumbnailColumns.replacingOccurrences(of: ", settings", with: ", NULL")
}
