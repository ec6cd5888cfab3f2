import Foundation

/// What the catalog knows about one stored original (one row of `originals`).
public struct OriginalRecord: Sendable, Equatable, Codable {
    /// Lower-case hex SHA-256 of the file's bytes; the original's identity.
    public var sha256: String
    /// Path relative to the library root, e.g. "originals/2024/05/01/IMG_0001.jpg".
    public var path: String
    public var bytes: Int64
    /// MIME type of the stored format (from the bytes, not the server's claim).
    public var contentType: String
    public var width: Int?
    public var height: Int?
    /// Capture time as in EXIF ("YYYY:MM:DD HH:MM:SS"), or the fallback used to date the file.
    public var takenAt: String?
    /// Where `takenAt` came from; nil for originals catalogued before schema 2 recorded it.
    public var datedBy: CaptureDateSource?
    public var make: String?
    public var model: String?
    /// The lens the file names (EXIF LensModel, trimmed); "" when it names none; nil when
    /// not known: catalogued before schema 5 recorded lenses (`shoebox reindex` reads them).
    public var lens: String?
    /// The exposure the file names (`Exposure.catalogText`); "" when it names none; nil when
    /// not known: catalogued before schema 6 recorded exposures (`shoebox reindex` reads them).
    public var exposure: String?
    public var gpsLatitude: Double?
    public var gpsLongitude: Double?
    public var gpsAltitude: Double?
    public var orientation: Int?
    /// When the original was stored, ISO 8601 UTC.
    public var addedAt: String

    public init(
        sha256: String, path: String, bytes: Int64, contentType: String,
        width: Int? = nil, height: Int? = nil, takenAt: String? = nil, datedBy: CaptureDateSource? = nil,
        make: String? = nil, model: String? = nil, lens: String? = nil, exposure: String? = nil,
        gpsLatitude: Double? = nil, gpsLongitude: Double? = nil, gpsAltitude: Double? = nil,
        orientation: Int? = nil, addedAt: String
    ) {
        self.sha256 = sha256
        self.path = path
        self.bytes = bytes
        self.contentType = contentType
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.datedBy = datedBy
        self.make = make
        self.model = model
        self.lens = lens
        self.exposure = exposure
        self.gpsLatitude = gpsLatitude
        self.gpsLongitude = gpsLongitude
        self.gpsAltitude = gpsAltitude
        self.orientation = orientation
        self.addedAt = addedAt
    }
}

extension OriginalRecord {
    /// The `lens` value of an original whose metadata is `metadata`: "" (known, none) when
    /// the file names no lens or has no readable metadata.
    public static func exposure(of metadata: PhotoMetadata?) -> String { Exposure(metadata).catalogText }

    /// The exposure recorded, when one is known and not empty.
    public var exposureValues: Exposure? {
        guard let exposure, !exposure.isEmpty else { return nil }
        let values = Exposure(catalogText: exposure)
        return values.isEmpty ? nil : values
    }

    public static func lens(of metadata: PhotoMetadata?) -> String {
        metadata?.lensModel?.trimmingCharacters(in: lensPadding) ?? ""
    }

    /// What pads a lens name: white space, and the NULs of a fixed-length EXIF field (made
    /// once: building the set cost more than the trimming, per stored file).
    private static let lensPadding = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{0}"))

    /// The lens when one is named (nil for none and for not known).
    public var namedLens: String? { lens.flatMap { $0.isEmpty ? nil : $0 } }
}
