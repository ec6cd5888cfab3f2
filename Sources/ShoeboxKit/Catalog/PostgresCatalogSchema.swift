/// The catalog schema in PostgreSQL: the tables and columns of `CatalogSchema` (same
/// version number), with PostgreSQL types.
///
/// Differences from the SQLite file, all deliberate:
/// - integers are BIGINT (SQLite's INTEGER is 64-bit), reals DOUBLE PRECISION;
/// - keys and paths are `COLLATE "C"`: ordering (`ORDER BY path`, `path > $1`) is byte
///   order, as SQLite's BINARY, whatever the database's default collation;
/// - `originals.folded_path` is NOT NULL with a UNIQUE index: two writers on two machines
///   cannot record IMG.jpg and img.JPG (SQLite's index is not unique; fetch checks first);
/// - the first PostgreSQL catalog was version 3: `upgrades` start there.
///
/// Creation runs in one transaction under a transaction-level advisory lock, with
/// `CREATE … IF NOT EXISTS` and `INSERT … ON CONFLICT DO NOTHING` for the meta rows: two
/// processes opening a new database at once both succeed and create it once.
enum PostgresCatalogSchema {
    static let version = CatalogSchema.version

    /// Key of the advisory lock held while the schema is created ("SHOEBOX" in ASCII).
    static let creationLockKey: Int64 = 0x53_48_4F_45_42_4F_58

    static let createStatements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS meta (
            key TEXT COLLATE "C" PRIMARY KEY,
            value TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS originals (
            sha256 TEXT COLLATE "C" PRIMARY KEY,
            path TEXT COLLATE "C" NOT NULL UNIQUE,
            bytes BIGINT NOT NULL,
            content_type TEXT NOT NULL,
            width BIGINT,
            height BIGINT,
            taken_at TEXT,
            make TEXT,
            model TEXT,
            gps_latitude DOUBLE PRECISION,
            gps_longitude DOUBLE PRECISION,
            gps_altitude DOUBLE PRECISION,
            orientation BIGINT,
            added_at TEXT NOT NULL,
            dated_by TEXT,
            folded_path TEXT COLLATE "C" NOT NULL,
            lens TEXT,
            exposure TEXT
        )
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS originals_folded_path ON originals (folded_path)",
        """
        CREATE TABLE IF NOT EXISTS sources (
            url TEXT COLLATE "C" PRIMARY KEY,
            final_url TEXT,
            sha256 TEXT COLLATE "C" REFERENCES originals (sha256) DEFERRABLE INITIALLY DEFERRED,
            etag TEXT,
            last_modified TEXT,
            http_status BIGINT,
            fetched_at TEXT NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS sources_sha256 ON sources (sha256)",
        """
        CREATE TABLE IF NOT EXISTS thumbnails (
            path TEXT COLLATE "C" PRIMARY KEY,
            original_sha256 TEXT COLLATE "C" NOT NULL REFERENCES originals (sha256) DEFERRABLE INITIALLY DEFERRED,
            size TEXT NOT NULL,
            format TEXT NOT NULL,
            width BIGINT NOT NULL,
            height BIGINT NOT NULL,
            bytes BIGINT NOT NULL,
            created_at TEXT NOT NULL,
            settings TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS thumbnails_original ON thumbnails (original_sha256)",
        sourceVersionsTable,
        sourceVersionsIndex,
        lensUnknownIndex,
        // A library path promised to one writer's content before its bytes are stored; holder
        // is the writing connection's id, released after its batch (`Catalog.reservePath`).
        """
        CREATE TABLE IF NOT EXISTS path_reservations (
            folded_path TEXT COLLATE "C" PRIMARY KEY,
            path TEXT COLLATE "C" NOT NULL,
            sha256 TEXT COLLATE "C" NOT NULL,
            holder TEXT NOT NULL,
            reserved_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )
        """,
    ] + listIndexes  // `shoebox list`'s, below

    static let sourceVersionsIndex = "CREATE INDEX IF NOT EXISTS source_versions_sha256 ON source_versions (sha256)"
    /// The originals whose lens is not known (catalogued before version 5).
    static let lensUnknownIndex = "CREATE INDEX IF NOT EXISTS originals_lens_unknown ON originals (path) WHERE lens IS NULL"

    /// The statements that bring a catalog of version `key - 1` to version `key` (as
    /// `CatalogSchema.upgrades`; a PostgreSQL catalog starts at version 3).
    static let upgrades: [Int: [String]] = [
        4: [sourceVersionsTable, sourceVersionsIndex, fillSourceVersions],
        5: ["ALTER TABLE originals ADD COLUMN IF NOT EXISTS lens TEXT", lensUnknownIndex],
        6: ["ALTER TABLE originals ADD COLUMN IF NOT EXISTS exposure TEXT"],
    ]

    /// The indexes `shoebox list` relies on (`OriginalQuerySQL`): text in byte order, as the
    /// queries compare it; make and model lower-cased in ASCII only (collation "C"), as SQLite's
    /// NOCASE. Created with the schema, and added by the first process to open a catalog
    /// made before them (a plain CREATE INDEX: writers wait while a large table is indexed).
    static let listIndexes: [String] = [
        "CREATE INDEX IF NOT EXISTS originals_taken_at ON originals (taken_at COLLATE \"C\", path)",
        "CREATE INDEX IF NOT EXISTS originals_added_at ON originals (added_at COLLATE \"C\", path)",
        "CREATE INDEX IF NOT EXISTS originals_make ON originals (lower(make COLLATE \"C\"))",
        "CREATE INDEX IF NOT EXISTS originals_model ON originals (lower(model COLLATE \"C\"))",
        "CREATE INDEX IF NOT EXISTS originals_position ON originals (gps_latitude, gps_longitude) WHERE gps_latitude IS NOT NULL",
    ]
    /// Whether the last of `listIndexes` exists (they are made together).
    static let hasListIndexes = "SELECT to_regclass('originals_position') IS NOT NULL"

    static let insertMeta = "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING"
    static let schemaVersion = "SELECT value FROM meta WHERE key = 'schema_version'"
    static let hasMetaTable = "SELECT to_regclass('meta') IS NOT NULL"

    // Originals: parameters in `CatalogSchema.originalColumns` order, then folded_path.
    static let originalValues = "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18"
    static let insertOriginal =
        "INSERT INTO originals (\(CatalogSchema.originalColumns), folded_path) VALUES (\(originalValues))"
    static let insertOriginalIfAbsent =
        "INSERT INTO originals (\(CatalogSchema.originalColumns), folded_path) VALUES (\(originalValues)) "
        + "ON CONFLICT (sha256) DO NOTHING RETURNING 1"
    /// `insertOriginalIfAbsent` for many rows: one array per column, in `originalColumns` order
    /// then folded_path; the hashes of the rows inserted. Rows go in in one order (by hash, as
    /// reservations by folded path and sources by URL) so that two writers' batches wait on
    /// each other's rows in turn instead of deadlocking.
    static let insertOriginalsIfAbsent =
        "INSERT INTO originals (\(CatalogSchema.originalColumns), folded_path) SELECT * FROM unnest("
        + "$1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], "
        + "$9::text[], $10::float8[], $11::float8[], $12::float8[], $13::bigint[], $14::text[], $15::text[], $16::text[], "
        + "$17::text[], $18::text[]) "
        + "AS r (k) ORDER BY k COLLATE \"C\" ON CONFLICT (sha256) DO NOTHING RETURNING sha256"
    static let originalsBySHAs = "SELECT \(CatalogSchema.originalColumns) FROM originals WHERE sha256 = ANY($1::text[])"
    static let originalBySHA = "SELECT \(CatalogSchema.originalColumns) FROM originals WHERE sha256 = $1"
    static let originalByPath = "SELECT \(CatalogSchema.originalColumns) FROM originals WHERE path = $1"
    static let originalByFoldedPath = "SELECT 1 FROM originals WHERE folded_path = $1 LIMIT 1"
    static let originalsAfter =
        "SELECT \(CatalogSchema.originalColumns) FROM originals WHERE path > $1 ORDER BY path COLLATE \"C\" LIMIT $2"
    static let originalsFromStart =
        "SELECT \(CatalogSchema.originalColumns) FROM originals ORDER BY path COLLATE \"C\" LIMIT $1"
    static let allOriginals = "SELECT \(CatalogSchema.originalColumns) FROM originals ORDER BY path COLLATE \"C\""
    static let countOriginals = "SELECT count(*) FROM originals"
    static let recordMetadata = "UPDATE originals SET lens = coalesce(lens, $1), exposure = coalesce(exposure, $2) "
        + "WHERE sha256 = $3 AND (lens IS NULL OR exposure IS NULL)"

    // Path reservations.
    static let reservePath =
        "INSERT INTO path_reservations (folded_path, path, sha256, holder) SELECT $1, $2, $3, $4 "
        + "WHERE NOT EXISTS (SELECT 1 FROM originals WHERE folded_path = $1) ON CONFLICT (folded_path) DO NOTHING RETURNING 1"
    /// `reservePath` for many paths (folded paths $1, paths $2, hashes $3, all different folded
    /// paths; holder $4): the paths reserved.
    static let reservePaths =
        "INSERT INTO path_reservations (folded_path, path, sha256, holder) "
        + "SELECT w.folded_path, w.path, w.sha256, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS w(folded_path, path, sha256) "
        + "WHERE NOT EXISTS (SELECT 1 FROM originals o WHERE o.folded_path = w.folded_path) "
        + "ORDER BY w.folded_path COLLATE \"C\" ON CONFLICT (folded_path) DO NOTHING RETURNING path"
    /// The folded paths among $1 reserved by holder $2, with the content each is reserved for.
    static let reservationsOfHolder =
        "SELECT folded_path, sha256 FROM path_reservations WHERE folded_path = ANY($1::text[]) AND holder = $2"
    /// The content a path is reserved for by holder $2 (another holder's reservation is never ours,
    /// even for the same bytes: its release, staleness and clean-up are that holder's).
    static let reservationHolder = "SELECT sha256 FROM path_reservations WHERE folded_path = $1 AND holder = $2"
    static let releaseReservations = "DELETE FROM path_reservations WHERE holder = $1"
    static let isReserved = "SELECT 1 FROM path_reservations WHERE folded_path = $1"
    /// A holder's session-level advisory lock, held while its connection lives: a holder whose
    /// lock can be taken is gone (`staleReservations`).
    static let holdLiveness = "SELECT pg_advisory_lock($1)"
    static let tryLiveness = "SELECT pg_try_advisory_lock($1)"
    static let dropLiveness = "SELECT pg_advisory_unlock($1)"
    static let oldReservations =
        "SELECT folded_path, path, sha256, holder FROM path_reservations "
        + "WHERE reserved_at < now() - make_interval(secs => $1) AND holder <> $2 ORDER BY folded_path COLLATE \"C\""
    static let dropReservation = "DELETE FROM path_reservations WHERE folded_path = $1 AND holder = $2"
    /// A dead holder's ($2) reservation of folded path $1 taken over by holder $3: one
    /// recoverer gets it (the row is then its own), the others nothing.
    static let takeOverReservation =
        "UPDATE path_reservations SET holder = $3 WHERE folded_path = $1 AND holder = $2 RETURNING 1"
    // What the library is bound to (its store), one row in meta.
    static let boundStore = "SELECT value FROM meta WHERE key = 'store'"

    // Sources.
    static let sourcesByURLs = "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE url = ANY($1::text[])"
    static let sourceByURL = "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE url = $1"
    static let upsertSource =
        "INSERT INTO sources (\(CatalogSchema.sourceColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
        + replaceSource
    /// How an upsert replaces the row of a URL already recorded.
    static let replaceSource =
        "ON CONFLICT (url) DO UPDATE SET final_url = EXCLUDED.final_url, sha256 = EXCLUDED.sha256, "
        + "etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, http_status = EXCLUDED.http_status, "
        + "fetched_at = EXCLUDED.fetched_at, outcome = EXCLUDED.outcome, reason = EXCLUDED.reason"
    /// `upsertSource` for many rows (all different URLs): one array per column, in `sourceColumns` order.
    static let upsertSources =
        "INSERT INTO sources (\(CatalogSchema.sourceColumns)) SELECT * FROM unnest("
        + "$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[]) "
        + "AS r (k) ORDER BY k COLLATE \"C\" " + replaceSource
    static let sourceVersionsTable = """
        CREATE TABLE IF NOT EXISTS source_versions (
            url TEXT COLLATE "C" NOT NULL,
            sha256 TEXT COLLATE "C" NOT NULL,
            final_url TEXT,
            etag TEXT,
            last_modified TEXT,
            http_status BIGINT,
            first_fetched_at TEXT COLLATE "C" NOT NULL,
            last_fetched_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (url, sha256)
        )
        """
    /// Version 3 to 4: the history table, filled with each URL's latest content (all a
    /// version-3 catalog knows).
    static let fillSourceVersions = "INSERT INTO source_versions (\(CatalogSchema.sourceVersionColumns)) "
        + "SELECT url, sha256, final_url, etag, last_modified, http_status, fetched_at, fetched_at FROM sources "
        + "WHERE sha256 IS NOT NULL ON CONFLICT DO NOTHING"
    static let replaceSourceVersion =
        "ON CONFLICT (url, sha256) DO UPDATE SET final_url = EXCLUDED.final_url, etag = EXCLUDED.etag, "
        + "last_modified = EXCLUDED.last_modified, http_status = EXCLUDED.http_status, "
        + "first_fetched_at = LEAST(source_versions.first_fetched_at, EXCLUDED.first_fetched_at), "
        + "last_fetched_at = GREATEST(source_versions.last_fetched_at, EXCLUDED.last_fetched_at)"
    static let upsertSourceVersion =
        "INSERT INTO source_versions (\(CatalogSchema.sourceVersionColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        + replaceSourceVersion
    /// `upsertSourceVersion` for many (all different URL and content pairs): one array per column.
    static let upsertSourceVersions =
        "INSERT INTO source_versions (\(CatalogSchema.sourceVersionColumns)) SELECT * FROM unnest("
        + "$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[]) "
        + replaceSourceVersion
    static let sourceVersionsBySHA = "SELECT \(CatalogSchema.sourceVersionColumns) FROM source_versions WHERE sha256 = $1 "
        + "ORDER BY last_fetched_at DESC, url COLLATE \"C\""
    static let sourceVersionsByURL = "SELECT \(CatalogSchema.sourceVersionColumns) FROM source_versions WHERE url = $1 "
        + "ORDER BY last_fetched_at DESC, sha256 COLLATE \"C\""
    static let sourcesBySHA =
        "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE sha256 = $1 ORDER BY url COLLATE \"C\""
    static let allSources = "SELECT \(CatalogSchema.sourceColumns) FROM sources ORDER BY url COLLATE \"C\""
    static let hasSources = "SELECT 1 FROM sources LIMIT 1"
    static let countSources = "SELECT count(*) FROM sources"

    // Thumbnails.
    static let thumbnailsBySHA =
        "SELECT \(CatalogSchema.thumbnailColumns) FROM thumbnails WHERE original_sha256 = $1 ORDER BY path COLLATE \"C\""
    static let allThumbnails = "SELECT \(CatalogSchema.thumbnailColumns) FROM thumbnails ORDER BY path COLLATE \"C\""
    static let upsertThumbnail =
        "INSERT INTO thumbnails (\(CatalogSchema.thumbnailColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
        + "ON CONFLICT (path) DO UPDATE SET original_sha256 = EXCLUDED.original_sha256, size = EXCLUDED.size, "
        + "format = EXCLUDED.format, width = EXCLUDED.width, height = EXCLUDED.height, bytes = EXCLUDED.bytes, "
        + "created_at = EXCLUDED.created_at, settings = EXCLUDED.settings"
    static let removeThumbnail = "DELETE FROM thumbnails WHERE path = $1"
}
