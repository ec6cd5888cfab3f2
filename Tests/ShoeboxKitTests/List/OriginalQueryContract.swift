import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `Catalog.originals(matching:limit:_:)` as every catalog owes it (SQLite, PostgreSQL, and
/// the in-memory reference that evaluates `OriginalQuery` in Swift), on a catalog of odd
/// values: no capture date, a position at exactly 0,0, dates before 1970 and at its first
/// second, a latitude without a longitude, a host name inside another, lower-case make.
struct OriginalQueryContract {
    let open: () throws -> Catalog

    /// Short names of the originals, by path.
    static let paths: [String: String] = [
        "old": "originals/1965/03/04/old.jpg",
        "six": "originals/1969/12/31/six.jpg",
        "five": "originals/1970/01/01/five.png",
        "paris": "originals/2024/05/01/paris.jpg",
        "fiji": "originals/2024/05/02/fiji.heic",
        "undated": "originals/undated/x.png",
    ]

    static func record(_ name: String, bytes: Int64, type: String, taken: String?, dated: CaptureDateSource?, make: String?,
                       model: String?, gps: (Double?, Double?), added: String, lens: String? = "") -> OriginalRecord {
        OriginalRecord(sha256: String(repeating: "0", count: 64 - name.utf8.count * 2) + name.utf8.map { String(format: "%02x", $0) }.joined(),
                       path: paths[name]!, bytes: bytes, contentType: type, width: 640, height: 480, takenAt: taken,
                       datedBy: dated, make: make, model: model, lens: lens, gpsLatitude: gps.0, gpsLongitude: gps.1, addedAt: added)
    }

    static let records: [OriginalRecord] = [
        record("old", bytes: 300, type: "image/jpeg", taken: "1965:03:04 10:00:00", dated: .exif, make: "Canon", model: "Canon EOS R5",
               gps: (0, 0), added: "2026-12-01T10:00:00Z", lens: "RF24-105mm F4 L IS USM"),
        record("six", bytes: 600, type: "image/jpeg", taken: "1969:12:31 23:59:59", dated: .fileTime, make: "canon", model: "Canon EOS 5D",
               gps: (0.0001, -0.0001), added: "2026-12-02T10:00:00Z", lens: "EF24-105mm f/4L IS USM"),
        record("five", bytes: 500, type: "image/png", taken: "1970:01:01 00:00:00", dated: .fetchTime, make: nil, model: nil,
               gps: (10, nil), added: "2026-12-03T00:00:00Z"),
        record("paris", bytes: 3_000_000, type: "image/jpeg", taken: "2024:05:01 12:00:00", dated: .exif, make: "NIKON CORPORATION",
               model: "NIKON D850", gps: (48.8584, 2.2945), added: "2026-12-02T11:00:00Z", lens: nil),
        record("fiji", bytes: 100, type: "image/heic", taken: "2024:05:02 00:00:00", dated: .lastModified, make: "Apple",
               model: "iPhone 12", gps: (-17.7, 179.9), added: "2026-12-02T12:00:00Z",
               lens: "iPhone 12 back dual wide camera 4.2mm f/1.6 \u{00C9}"),
        record("undated", bytes: 200, type: "image/png", taken: nil, dated: nil, make: nil, model: nil,
               gps: (nil, nil), added: "2026-12-02T10:00:00Z"),
    ]

    static func sha(_ name: String) -> String { records.first { $0.path == paths[name] }!.sha256 }

    static let sources: [SourceRecord] = [
        SourceRecord(url: "https://photos.example.com/a/old.jpg", sha256: sha("old"), fetchedAt: "2026-12-01T10:00:00Z", outcome: .stored),
        SourceRecord(url: "http://photos.example.com:8080/p.jpg", sha256: sha("paris"), fetchedAt: "2026-12-02T11:00:00Z", outcome: .stored),
        SourceRecord(url: "http://photos.example.com.evil.net/y.png", sha256: sha("five"), fetchedAt: "2026-12-03T00:00:00Z", outcome: .stored),
        SourceRecord(url: "https://other.org/x.png", sha256: sha("undated"), fetchedAt: "2026-12-02T10:00:00Z", outcome: .stored),
        SourceRecord(url: "https://photos.example.com/gone.jpg", sha256: nil, fetchedAt: "2026-12-02T10:00:00Z", outcome: .failed),
    ]

    /// A catalog holding `records` and `sources`.
    func filled() throws -> Catalog {
        let catalog = try open()
        try catalog.transaction {
            for record in Self.records { try catalog.insertOriginal(record) }
            for source in Self.sources { try catalog.upsertSource(source) }
        }
        return catalog
    }

    /// The short names `query` lists, in order.
    static func names(_ catalog: Catalog, _ query: OriginalQuery, limit: Int? = nil) throws -> [String] {
        var names: [String] = []
        try catalog.originals(matching: query, limit: limit) { record in
            names.append(paths.first { $0.value == record.path }!.key)
            return true
        }
        return names
    }

    private func query(_ change: (inout OriginalQuery) throws -> Void) rethrows -> OriginalQuery {
        var query = OriginalQuery()
        try change(&query)
        return query
    }

    func checkOrders() throws {
        let catalog = try filled()
        defer { catalog.close() }
        XCTAssertEqual(try Self.names(catalog, OriginalQuery()), ["old", "six", "five", "paris", "fiji", "undated"], "undated last")
        XCTAssertEqual(try Self.names(catalog, query { $0.descending = true }), ["fiji", "paris", "five", "six", "old", "undated"],
                       "newest first, undated still last")
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .added }), ["old", "six", "undated", "paris", "fiji", "five"],
                       "ties (six and undated at 10:00) by path")
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .size }), ["fiji", "undated", "old", "five", "six", "paris"])
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .size; $0.descending = true }).first, "paris")
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .path }), ["old", "six", "five", "paris", "fiji", "undated"])
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .path; $0.descending = true }), ["undated", "fiji", "paris", "five", "six", "old"])
    }

    func checkCaptureDates() throws {
        let catalog = try filled()
        defer { catalog.close() }
        func taken(_ since: String?, _ until: String?) throws -> [String] {
            try Self.names(catalog, query { try $0.setTaken(since: since, until: until) })
        }
        XCTAssertEqual(try taken("1969-12-31", "1970"), ["six", "five"], "a day and a whole year; before and at 1970's first second")
        XCTAssertEqual(try taken(nil, "1969-12-31"), ["old", "six"])
        XCTAssertEqual(try taken(nil, "1969-12-31T23:59:58"), ["old"], "an --until to the second includes that second only")
        XCTAssertEqual(try taken(nil, "1969-12-31T23:59:59"), ["old", "six"])
        XCTAssertEqual(try taken("1970-01-01", nil), ["five", "paris", "fiji"], "no undated original matches a bound")
        XCTAssertEqual(try taken("2024-05", "2024-05"), ["paris", "fiji"], "a month given is the whole month")
        XCTAssertEqual(try taken("1900", "2100"), ["old", "six", "five", "paris", "fiji"])
        XCTAssertEqual(try Self.names(catalog, query { try $0.setTaken(since: "1900", until: nil); $0.descending = true }),
                       ["fiji", "paris", "five", "six", "old"])
        XCTAssertEqual(try Self.names(catalog, query { try $0.setAdded(since: "2026-12-02", until: "2026-12-02") }),
                       ["six", "paris", "fiji", "undated"], "added on 2 December (UTC), sorted by capture time")
        XCTAssertEqual(try Self.names(catalog, query { try $0.setAdded(since: "2026-12-02T11:00:00", until: nil) }), ["five", "paris", "fiji"])
    }

    func checkPlaces() throws {
        let catalog = try filled()
        defer { catalog.close() }
        XCTAssertEqual(try Self.names(catalog, query { $0.hasGPS = true }), ["old", "six", "paris", "fiji"],
                       "0,0 is a position; a latitude without a longitude is not")
        XCTAssertEqual(try Self.names(catalog, query { $0.hasGPS = false }), ["five", "undated"])
        XCTAssertEqual(try Self.names(catalog, query { $0.box = try GeoBox(parsing: "-1,-1,1,1") }), ["old", "six"])
        XCTAssertEqual(try Self.names(catalog, query { $0.box = try GeoBox(parsing: "0,0,0,0") }), ["old"], "edges are inside")
        XCTAssertEqual(try Self.names(catalog, query { $0.box = try GeoBox(parsing: "-20,170,-10,-170") }), ["fiji"], "across longitude 180")
        XCTAssertEqual(try Self.names(catalog, query { $0.box = try GeoBox(parsing: "-20,-170,-10,170") }), [], "the other way round: not across")
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "0,0,10m") }), ["old"], "six is 15.7 m away")
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "0,0,20m") }), ["old", "six"])
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "48.85,2.29,2km") }), ["paris"])
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "-17.7,-179.9,25km") }), ["fiji"],
                       "a circle across longitude 180 (21 km away)")
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "0,0,20m") }, limit: 1), ["old"],
                       "the limit counts what passes the exact distance")
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "0.0001,-0.0001,1m") }, limit: 1), ["six"])
    }

    func checkCameraFormatDatingAndSources() throws {
        let catalog = try filled()
        defer { catalog.close() }
        XCTAssertEqual(try Self.names(catalog, query { $0.make = "CANON" }), ["old", "six"], "case ignored both ways")
        XCTAssertEqual(try Self.names(catalog, query { $0.make = "nikon" }), ["paris"], "a make's first word finds it")
        XCTAssertEqual(try Self.names(catalog, query { $0.make = "nikon corporation" }), ["paris"])
        XCTAssertEqual(try Self.names(catalog, query { $0.make = "nikon corporationx" }), [])
        XCTAssertEqual(try Self.names(catalog, query { $0.model = "canon eos 5" }), ["six"])
        XCTAssertEqual(try Self.names(catalog, query { $0.model = "EOS" }), [], "a model matches from its start")
        XCTAssertEqual(try Self.names(catalog, query { $0.model = "iphone 12"; $0.make = "apple" }), ["fiji"])
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "24-105" }), ["old", "six"], "anywhere in the name")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "ef24-105MM F/4L" }), ["six"], "ASCII case ignored")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "f/1.6 \u{00C9}" }), ["fiji"], "non-ASCII compared as written")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "f/1.6 \u{00E9}" }), [], "non-ASCII case is not folded")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "%" }), [], "no wildcard")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "USM"; $0.make = "canon"; $0.sort = .size }), ["old", "six"])
        XCTAssertEqual(try Self.names(catalog, query { $0.lensUnknown = true }), ["paris"], "the lens not known: not catalogued")
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "x"; $0.make = "nikon" }.lensNotJudged!), ["paris"])
        XCTAssertEqual(try Self.names(catalog, query { $0.lens = "x"; $0.make = "apple" }.lensNotJudged!), [])
        XCTAssertEqual(try catalog.countOriginals(matching: query { $0.sort = .path }, upTo: 4), 4)
        XCTAssertEqual(try Self.names(catalog, query { $0.contentTypes = ["image/png"] }), ["five", "undated"])
        XCTAssertEqual(try Self.names(catalog, query { $0.contentTypes = ["image/jpeg", "image/heic"] }), ["old", "six", "paris", "fiji"])
        XCTAssertEqual(try Self.names(catalog, query { $0.datedBy = [.exif] }), ["old", "paris"])
        XCTAssertEqual(try Self.names(catalog, query { $0.datedBy = [.lastModified] }), ["fiji"])
        XCTAssertEqual(try Self.names(catalog, query { $0.datedBy = [.fileTime, .fetchTime] }), ["six", "five"])
        XCTAssertEqual(try Self.names(catalog, query { $0.sourceHost = "photos.example.com" }), ["old", "paris"],
                       "any scheme and port; not photos.example.com.evil.net")
        XCTAssertEqual(try Self.names(catalog, query { $0.sourceHost = "example.com" }), [])
        XCTAssertEqual(try Self.names(catalog, query { $0.urlPrefix = "https://photos.example.com/a/" }), ["old"])
        XCTAssertEqual(try Self.names(catalog, query { $0.urlPrefix = "http" }), ["old", "five", "paris", "undated"])
        XCTAssertEqual(try Self.names(catalog, query { $0.urlPrefix = "https://other.org/x.png" }), ["undated"], "a whole URL is a prefix")
        XCTAssertEqual(try Self.names(catalog, query {
            $0.hasGPS = true
            try $0.setTaken(since: "1969", until: nil)
            $0.make = "canon"
        }), ["six"], "filters combine")
    }

    func checkLimitsAndStopping() throws {
        let catalog = try filled()
        defer { catalog.close() }
        XCTAssertEqual(try Self.names(catalog, OriginalQuery(), limit: 2), ["old", "six"])
        XCTAssertEqual(try Self.names(catalog, OriginalQuery(), limit: 6), ["old", "six", "five", "paris", "fiji", "undated"],
                       "the limit goes on into the undated originals")
        XCTAssertEqual(try Self.names(catalog, query { $0.hasGPS = false }, limit: 2), ["five", "undated"])
        var seen = 0
        try catalog.originals(matching: OriginalQuery(), limit: nil) { _ in
            seen += 1
            return false
        }
        XCTAssertEqual(seen, 1, "stopped after the first")
        // The catalog answers again after a stop (a PostgreSQL query cancelled mid-stream).
        XCTAssertEqual(try Self.names(catalog, query { $0.near = try GeoCircle(parsing: "0,0,20000km") }, limit: 1), ["old"])
        XCTAssertEqual(try catalog.countOriginals(), 6)
        XCTAssertEqual(try Self.names(catalog, query { $0.sort = .path }, limit: 1), ["old"])
    }

    /// The catalog's SQL agrees with the Swift definition (`OriginalQuery.matches`, `precedes`)
    /// over many combinations of filters.
    func checkAgreesWithTheDefinition() throws {
        let catalog = try filled()
        defer { catalog.close() }
        // The protocol's default answer: Swift over whole tables.
        let reference = try OriginalQueryContract(open: { InMemoryCatalog() }).filled()
        var generator = SystemRandomNumberGenerator()
        let dates = [nil, "1965", "1969-12-31T23:59:59", "1970-01-01", "2024-05-01T12:00:00", "2030"]
        let boxes = [nil, "-1,-1,1,1", "-90,-180,90,180", "-20,170,-10,-170", "40,0,50,10"]
        for round in 0..<150 {
            var query = OriginalQuery()
            let since = dates.randomElement(using: &generator)!, until = dates.randomElement(using: &generator)!
            try? query.setTaken(since: since, until: until)
            query.make = [nil, "canon", "NIKON", "a"].randomElement(using: &generator)!
            query.lens = [nil, nil, "24-105", "USM", "f/"].randomElement(using: &generator)!
            query.lensUnknown = round % 10 == 0
            query.hasGPS = [nil, true, false].randomElement(using: &generator)!
            query.box = try boxes.randomElement(using: &generator)!.map { try GeoBox(parsing: $0) }
            query.contentTypes = [[], ["image/png"], ["image/jpeg", "image/heic"]].randomElement(using: &generator)!
            query.datedBy = [[], [.exif], [.fetchTime, .lastModified]].randomElement(using: &generator)!
            query.sourceHost = [nil, nil, "photos.example.com"].randomElement(using: &generator)!
            query.sort = OriginalSort.allCases.randomElement(using: &generator)!
            query.descending = Bool.random(using: &generator)
            let limit = [nil, 1, 3].randomElement(using: &generator)!
            XCTAssertEqual(try Self.names(catalog, query, limit: limit), try Self.names(reference, query, limit: limit),
                           "round \(round): \(query), limit \(String(describing: limit))")
            var paths: [String] = []
            try catalog.originalPaths(matching: query, limit: limit) { paths.append($0); return true }
            XCTAssertEqual(paths.map { path in Self.paths.first { $0.value == path }!.key }, try Self.names(reference, query, limit: limit),
                           "paths alone, round \(round): \(query), limit \(String(describing: limit))")
        }
    }
}
