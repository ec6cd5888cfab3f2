/// A position read from the EXIF GPS IFD: signed decimal degrees (south and
/// west negative) and metres (negative below sea level).
public struct GPSPosition: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// One EXIF tag as read from a file, for `inspect --all`.
public struct ExifTag: Sendable, Equatable {
    /// "IFD0", "ExifIFD", "GPS", "Interop", "IFD1".
    public var group: String
    /// The tag name as in the EXIF specification, e.g. "DateTimeOriginal".
    public var name: String
    public var id: UInt16
    /// Display text of the value.
    public var value: String
    /// The value as numbers (rationals divided out), empty for text and binary values.
    public var numbers: [Double]

    public init(group: String, name: String, id: UInt16, value: String, numbers: [Double] = []) {
        self.group = group
        self.name = name
        self.id = id
        self.value = value
        self.numbers = numbers
    }
}

/// What Shoebox knows about a photo without decoding its pixels.
public struct PhotoMetadata: Sendable, Equatable {
    public var format: ImageFormat?
    /// Pixel size of the image itself (not of an embedded preview).
    public var width: Int?
    public var height: Int?
    public var make: String?
    public var model: String?
    public var lensModel: String?
    public var software: String?
    /// EXIF dates, as written: "YYYY:MM:DD HH:MM:SS".
    public var dateTimeOriginal: String?
    public var createDate: String?
    public var modifyDate: String?
    /// XMP photoshop:DateCreated, else IPTC DateCreated (exiftool's DateCreated), in exiftool's form.
    public var dateCreated: String?
    /// IPTC TimeCreated, "HH:MM:SS+HH:MM" as exiftool prints it.
    public var timeCreated: String?
    /// "+HH:MM" as in OffsetTimeOriginal.
    public var offsetTimeOriginal: String?
    /// EXIF orientation 1...8.
    public var orientation: Int?
    /// Seconds.
    public var exposureTime: Double?
    public var fNumber: Double?
    public var iso: Int?
    /// ISO as `exiftool -n` prints it when that is not `iso` itself: Canon's computed ISO with
    /// its fraction (147.68…), Nikon's maker-note pair ("0 200").
    public var isoAsWritten: MetadataValue?
    /// Millimetres.
    public var focalLength: Double?
    public var gps: GPSPosition?
    /// GPSAltitude of a file without a usable latitude and longitude (then `gps` is nil):
    /// exiftool reports an altitude on its own. With a position it is `gps.altitude`, and
    /// only a position is catalogued.
    public var altitudeWithoutPosition: Double?
    /// Values taken from somewhere other than EXIF, by exiftool key ("DateTimeOriginal": .xmp);
    /// a key not here came from EXIF (or the container, for the pixel size).
    public var sources: [String: MetadataSource] = [:]
    /// Every tag read, in file order; filled only when asked for.
    public var tags: [ExifTag]
    /// Problems met while reading (broken offsets, truncation…); fields that
    /// could be read are still filled.
    public var warnings: [String]

    public init() {
        tags = []
        warnings = []
    }

    /// GPSAltitude in metres (negative below sea level), with or without a position.
    public var gpsAltitude: Double? {
        gps?.altitude ?? altitudeWithoutPosition
    }

    /// The first capture time written (EXIF's, then the maker notes', XMP's, IPTC's, a camera
    /// header's: `CaptureDate`'s order), as written, in `CaptureDate`'s
    /// order, for display (`inspect`); it may not be plausible. What dates an original is
    /// `CaptureDate.forDownload` / `forFile`.
    public var bestCaptureDate: String? {
        CaptureDate.written(in: self).first ?? (sources["DateTimeOriginal"] == .makerNotes ? dateTimeOriginal : nil)
            ?? CaptureDate.writtenInXMP(self).first ?? CaptureDate.writtenInIPTC(self)
            ?? ([.rawHeader, .pictureInfo].contains(sources["DateTimeOriginal"]) ? dateTimeOriginal : nil)
    }

    /// Where `bestCaptureDate` came from: nil for EXIF (or when there is none).
    public var bestCaptureDateSource: MetadataSource? {
        if !CaptureDate.written(in: self).isEmpty { return nil }
        if sources["DateTimeOriginal"] == .makerNotes, dateTimeOriginal != nil { return .makerNotes }
        if !CaptureDate.writtenInXMP(self).isEmpty { return .xmp }
        if CaptureDate.writtenInIPTC(self) != nil { return .iptc }
        return dateTimeOriginal == nil ? nil : sources["DateTimeOriginal"]
    }
}

extension PhotoMetadata {
    /// Takes from `other` every value this one lacks, marking each taken value's exiftool key
    /// with `source` (a raw header's values, after the EXIF).
    mutating func fillGaps(from other: PhotoMetadata, source: MetadataSource) {
        func take<Value>(_ key: String, _ field: WritableKeyPath<PhotoMetadata, Value?>) {
            guard self[keyPath: field] == nil, let value = other[keyPath: field] else { return }
            self[keyPath: field] = value
            sources[key] = source
        }
        take("Make", \.make)
        take("Model", \.model)
        take("LensModel", \.lensModel)
        take("Software", \.software)
        take("DateTimeOriginal", \.dateTimeOriginal)
        take("CreateDate", \.createDate)
        take("Orientation", \.orientation)
        take("ExposureTime", \.exposureTime)
        take("FNumber", \.fNumber)
        take("FocalLength", \.focalLength)
        if iso == nil, isoAsWritten == nil, other.iso != nil || other.isoAsWritten != nil {
            iso = other.iso
            isoAsWritten = other.isoAsWritten
            sources["ISO"] = source
        }
        if width == nil, height == nil, let width = other.width, let height = other.height {
            self.width = width
            self.height = height
        }
    }
}
