/// One reported value: text or a number, as `exiftool -json -n` would print it.
public enum MetadataValue: Sendable, Equatable {
    case text(String)
    case number(Double)
}

public extension PhotoMetadata {
    /// The fields shared with `exiftool -json -n`, under exiftool's key names and in
    /// its units (seconds, millimetres, signed decimal degrees, metres), in a fixed order.
    /// Absent values are left out, as exiftool does.
    var exiftoolFields: [(key: String, value: MetadataValue)] {
        var fields: [(key: String, value: MetadataValue)] = []
        func add(_ key: String, _ text: String?) { if let text { fields.append((key, .text(text))) } }
        func add(_ key: String, _ number: Double?) { if let number { fields.append((key, .number(number))) } }
        add("Make", make)
        add("Model", model)
        add("LensModel", lensModel)
        add("DateTimeOriginal", dateTimeOriginal)
        add("DateCreated", dateCreated)
        add("TimeCreated", timeCreated)
        add("OffsetTimeOriginal", offsetTimeOriginal)
        add("Orientation", orientation.map(Double.init))
        add("ExposureTime", exposureTime)
        add("FNumber", fNumber)
        if let isoAsWritten { fields.append(("ISO", isoAsWritten)) } else { add("ISO", iso.map(Double.init)) }
        add("FocalLength", focalLength)
        add("GPSLatitude", gps?.latitude)
        add("GPSLongitude", gps?.longitude)
        add("GPSAltitude", gpsAltitude)
        add("ImageWidth", width.map(Double.init))
        add("ImageHeight", height.map(Double.init))
        add("Software", software)
        return fields
    }

    /// Every key `exiftoolFields` may hold: under these names a value is in exiftool's units
    /// or absent, never raw (`"undef undef undef"` for a GPSLatitude with zero denominators).
    static var exiftoolFieldKeys: Set<String> {
        ["Make", "Model", "LensModel", "DateTimeOriginal", "DateCreated", "TimeCreated", "OffsetTimeOriginal", "Orientation", "ExposureTime", "FNumber",
         "ISO", "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude", "ImageWidth", "ImageHeight", "Software"]
    }
}
