import Foundation
import ShoeboxKit
import ShoeboxTestSupport

/// A database of its own on a real PostgreSQL server that a test's runs share as their catalog
/// (`--catalog postgres://…`): the argument that points shoebox at it, a catalog client of its
/// own to read what was recorded, and psql for what the catalog does not show (the writers'
/// path reservations).
struct SharedCatalogBackend {
    let server: PostgresServer
    let uri: String

    /// Makes a fresh database on `server`: no other test sees its rows or its work queue.
    init(server: PostgresServer) throws {
        self.server = server
        uri = try server.makeDatabase()
    }

    var arguments: [String] { ["--catalog", uri] }

    private var database: String { String(uri.split(separator: "/").last ?? "") }

    func open() throws -> PostgresCatalog { try PostgresCatalog(uri: uri) }

    /// The paths writers hold reserved, each with the SHA-256 it is reserved for (none before
    /// a first writer made the tables).
    func reservations() throws -> [String: String] {
        guard try server.psql("SELECT to_regclass('path_reservations') IS NOT NULL", database: database) == "t" else { return [:] }
        var reserved: [String: String] = [:]
        for row in try server.psql("SELECT sha256 || ' ' || path FROM path_reservations", database: database)
            .split(separator: "\n") {
            let fields = row.split(separator: " ", maxSplits: 1)
            if fields.count == 2 { reserved[String(fields[1])] = String(fields[0]) }
        }
        return reserved
    }

    /// Makes every reservation `seconds` older, as if that long had passed since it was taken.
    func ageReservations(by seconds: Double) throws {
        try server.psql("UPDATE path_reservations SET reserved_at = reserved_at - make_interval(secs => \(seconds))",
                        database: database)
    }
}
