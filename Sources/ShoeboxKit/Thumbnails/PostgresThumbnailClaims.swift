import Foundation

/// `ThumbnailClaims` in the shared catalog's PostgreSQL database: one row per (job, original
/// path) in `thumbnail_claims` (created when missing, under the catalog's creation lock), with
/// its state (`claimed`, `done` or `failed`), the worker, when it last changed and, while
/// claimed, when its lease runs out.
///
/// A claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE` over the offered paths: a path with
/// no row, an expired claim (or one of this worker's own), or a row finished before this worker
/// began is taken; the server
/// serialises two workers inserting the same path (the second waits for the first's commit and
/// then finds a live claim), so an original is never held by two workers at once.
/// Rows are locked in (job, path) order by every statement (claims, renewals, finishes,
/// releases), so two workers wait for each other rather than deadlock; a claim leaves alone the
/// rows it sees held by live others (no lock taken on them: a worker offering again what others
/// hold costs a read). A deadlock victim all the same is run again.
/// Times are the server's (`now()`), so machines' clocks do not matter.
public final class PostgresThumbnailClaims: ThumbnailClaims, @unchecked Sendable {
    public let job: String
    public let worker: WorkerIdentity
    private let connection: PostgresConnection
    private let lock = NSLock()
    /// How a lost connection is ridden out (every statement here is safe to run twice).
    public let retry: ConnectionRetry
    /// Server time (epoch seconds) at `begin`.
    private var began: Double = 0

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS thumbnail_claims (
            job TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            worker TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('claimed', 'done', 'failed')),
            changed TIMESTAMPTZ NOT NULL,
            lease_until TIMESTAMPTZ,
            PRIMARY KEY (job, path)
        )
        """,
        "CREATE INDEX IF NOT EXISTS thumbnail_claims_holder ON thumbnail_claims (worker) WHERE state = 'claimed'",
    ]

    static let claimStatement = """
        WITH offered AS (SELECT DISTINCT unnest($2::text[]) COLLATE "C" AS path),
        free AS (
            SELECT o.path FROM offered o WHERE NOT EXISTS (
                SELECT 1 FROM thumbnail_claims h
                WHERE h.job = $1 AND h.path = o.path AND h.state = 'claimed' AND h.lease_until >= now() AND h.worker <> $3)),
        taken AS (
            INSERT INTO thumbnail_claims (job, path, worker, state, changed, lease_until)
            SELECT $1, path, $3, 'claimed', now(), now() + make_interval(secs => $4) FROM free ORDER BY path
            ON CONFLICT (job, path) DO UPDATE
                SET worker = EXCLUDED.worker, state = 'claimed', changed = now(), lease_until = EXCLUDED.lease_until
                WHERE (thumbnail_claims.state = 'claimed' AND (thumbnail_claims.lease_until < now() OR thumbnail_claims.worker = EXCLUDED.worker))
                   OR (thumbnail_claims.state <> 'claimed' AND thumbnail_claims.changed < to_timestamp($5))
            RETURNING path)
        SELECT o.path, (t.path IS NOT NULL), (c.state IS NOT NULL AND c.state <> 'claimed' AND c.changed >= to_timestamp($5))
        FROM offered o LEFT JOIN taken t ON t.path = o.path
            LEFT JOIN thumbnail_claims c ON c.job = $1 AND c.path = o.path
        """

    /// Connects to the catalog's database (`uri`, as `--catalog` takes it) for `job`.
    public init(uri: String, job: String, worker: WorkerIdentity, retry: ConnectionRetry = ConnectionRetry()) throws {
        self.job = job
        self.worker = worker
        self.retry = retry
        connection = try PostgresConnection(uri: try PostgresURI(uri))
        do {
            try connection.execute("BEGIN")
            try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresCatalogSchema.creationLockKey)])
            for statement in Self.createStatements { try connection.execute(statement) }
            try connection.execute("COMMIT")
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { connection.close() }

    /// Runs a statement under the lock, reconnecting first if the connection broke; a lost
    /// connection is tried again for `retry.bound` seconds (a claim whose answer was lost grants
    /// again what it granted: a worker's own claims are its to take). A deadlock victim (two
    /// workers locking the same rows: a claim waits on every conflicting row) changed nothing and
    /// is run again.
    private func call<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try retry.run {
            if connection.isBroken { try connection.reconnectIfBroken() }
            var tries = 0
            while true {
                do {
                    return try body()
                } catch let PostgresError.server(_, sqlState, _) where sqlState == "40P01" && tries < 20 {
                    tries += 1
                    usleep(useconds_t(Int.random(in: 1_000...(20_000 * tries))))
                }
            }
        }
    }

    public func begin() throws {
        let now = try call { try connection.query("SELECT extract(epoch FROM clock_timestamp())::float8") { $0.double(0) }.first ?? nil }
        lock.withLock { began = now ?? 0 }
    }

    public func claim(_ paths: [String], lease: Double) throws -> (granted: [String], settled: [String]) {
        guard !paths.isEmpty else { return ([], []) }
        let rows = try call {
            try connection.query(Self.claimStatement, [.text(job), .textArray(paths), .text(worker.id), .double(lease), .double(began)]) {
                ($0.string(0) ?? "", $0.string(1) == "t", $0.string(2) == "t")
            }
        }
        return (rows.filter { $0.1 }.map(\.0), rows.filter { !$0.1 && $0.2 }.map(\.0))
    }

    public func renew(lease: Double) throws {
        try call {
            try connection.run("""
                WITH mine AS (
                    SELECT job, path FROM thumbnail_claims WHERE worker = $1 AND state = 'claimed' ORDER BY job, path FOR UPDATE)
                UPDATE thumbnail_claims c SET lease_until = now() + make_interval(secs => $2)
                FROM mine WHERE c.job = mine.job AND c.path = mine.path
                """, [.text(worker.id), .double(lease)])
        }
    }

    public func finish(done: [String], failed: [String]) throws {
        for (state, paths) in [("done", done), ("failed", failed)] where !paths.isEmpty {
            try call {
                try connection.run("""
                    WITH mine AS (
                        SELECT path FROM thumbnail_claims
                        WHERE job = $1 AND worker = $2 AND state = 'claimed' AND path = ANY($4::text[])
                        ORDER BY path FOR UPDATE)
                    UPDATE thumbnail_claims c SET state = $3, changed = now(), lease_until = NULL
                    FROM mine WHERE c.job = $1 AND c.path = mine.path
                    """, [.text(job), .text(worker.id), .text(state), .textArray(paths)])
            }
        }
    }

    public func release() throws {
        try call {
            try connection.run("""
                WITH mine AS (
                    SELECT job, path FROM thumbnail_claims WHERE worker = $1 AND state = 'claimed' ORDER BY job, path FOR UPDATE)
                DELETE FROM thumbnail_claims c USING mine WHERE c.job = mine.job AND c.path = mine.path
                """, [.text(worker.id)])
        }
    }

    /// Ends the connection.
    public func close() {
        lock.withLock { connection.close() }
    }
}
