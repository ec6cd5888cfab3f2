/// The decoded entries of one EXIF block, keyed by IFD and tag, and how they
/// map onto `PhotoMetadata`'s fields.
struct ExifFields {
    struct Key: Hashable {
        var group: String
        var tag: UInt16
    }

    var values: [Key: ExifValue] = [:]

    func value(_ group: String, _ tag: UInt16) -> ExifValue? { values[Key(group: group, tag: tag)] }

    func text(_ group: String, _ tag: UInt16) -> String? {
        guard let text = value(group, tag)?.string, !text.isEmpty else { return nil }
        return text
    }

    func number(_ group: String, _ tag: UInt16) -> Double? { value(group, tag)?.firstNumber }

    /// Some writers put a tag in the other main IFD (DateTimeOriginal in IFD0, Orientation in
    /// ExifIFD); exiftool reads it there too. Its own IFD wins when both have it.
    private static let otherMainIFD = ["IFD0": "ExifIFD", "ExifIFD": "IFD0"]

    private func mainText(_ group: String, _ tag: UInt16) -> String? {
        text(group, tag) ?? Self.otherMainIFD[group].flatMap { text($0, tag) }
    }

    private func mainNumber(_ group: String, _ tag: UInt16) -> Double? {
        number(group, tag) ?? Self.otherMainIFD[group].flatMap { number($0, tag) }
    }

    func apply(to metadata: inout PhotoMetadata) {
        metadata.make = mainText("IFD0", 0x010F)
        metadata.model = mainText("IFD0", 0x0110)
        metadata.software = mainText("IFD0", 0x0131)
        metadata.modifyDate = mainText("IFD0", 0x0132)
        metadata.lensModel = mainText("ExifIFD", 0xA434)
        metadata.dateTimeOriginal = mainText("ExifIFD", 0x9003)
        metadata.createDate = mainText("ExifIFD", 0x9004)
        metadata.offsetTimeOriginal = mainText("ExifIFD", 0x9011)
        // IFD1 (the thumbnail's IFD) last: some writers put Orientation only there, and exiftool reports it then.
        if let orientation = mainNumber("IFD0", 0x0112) ?? number("IFD1", 0x0112) {
            if (1...8).contains(orientation) {
                metadata.orientation = Int(orientation)
            } else {
                metadata.warnings.append("EXIF: Orientation \(NumberText.format(orientation)) is not one of 1...8; ignored")
            }
        }
        metadata.exposureTime = mainNumber("ExifIFD", 0x829A)
        metadata.fNumber = mainNumber("ExifIFD", 0x829D)
        metadata.iso = mainNumber("ExifIFD", 0x8827).flatMap { Int(exactly: $0.rounded()) }
        metadata.focalLength = mainNumber("ExifIFD", 0x920A)
        let altitude = gpsAltitude()
        metadata.gps = gpsPosition(altitude: altitude, warnings: &metadata.warnings)
        // An altitude is a value of its own (exiftool reports it without a position too).
        metadata.altitudeWithoutPosition = metadata.gps == nil ? altitude : nil
        if metadata.format == .rw2 { applyPanasonicRaw(to: &metadata) }
    }

    /// Signed decimal degrees from the GPS IFD (south and west negative), with `altitude`.
    private func gpsPosition(altitude: Double?, warnings: inout [String]) -> GPSPosition? {
        guard let latitudeValue = value("GPS", 0x0002), let longitudeValue = value("GPS", 0x0004) else { return nil }
        guard let latitude = degrees(latitudeValue), let longitude = degrees(longitudeValue),
              abs(latitude) <= 90, abs(longitude) <= 180 else {
            warnings.append("EXIF: GPS latitude/longitude are malformed; position ignored")
            return nil
        }
        let south = text("GPS", 0x0001)?.uppercased().hasPrefix("S") ?? false
        let west = text("GPS", 0x0003)?.uppercased().hasPrefix("W") ?? false
        return GPSPosition(latitude: south ? -abs(latitude) : latitude, longitude: west ? -abs(longitude) : longitude, altitude: altitude)
    }

    /// GPSAltitude in metres, negative below sea level.
    private func gpsAltitude() -> Double? {
        guard let metres = number("GPS", 0x0006) else { return nil }
        // The reference decides the sign, also for a value some writer stored signed already
        // (SRATIONAL -50 with "below sea level" is 50 m below, not 50 m above).
        // The reference is a BYTE; some writers store it as the text "1".
        let belowSeaLevel = number("GPS", 0x0005) == 1 || text("GPS", 0x0005) == "1"
        return belowSeaLevel ? -abs(metres) : metres
    }

    /// Degrees, minutes, seconds (any of them may be fractional) to decimal degrees.
    private func degrees(_ value: ExifValue) -> Double? {
        let parts = value.numbers
        guard !parts.isEmpty else { return nil }
        var total = 0.0
        for (index, part) in parts.prefix(3).enumerated() {
            guard let part else { return nil }
            total += part / [1.0, 60.0, 3600.0][index]
        }
        return total
    }

    /// Panasonic RW2's own IFD0 tags, as exiftool reads them: ISO at 0x0017 (the camera's EXIF
    /// sits in an embedded JPEG), and the image's size from the sensor borders (0x0004 top,
    /// 0x0005 left, 0x0006 bottom, 0x0007 right: exiftool's Composite ImageWidth/Height).
    private func applyPanasonicRaw(to metadata: inout PhotoMetadata) {
        if metadata.iso == nil, let iso = number("IFD0", 0x0017), iso > 0, iso < 10_000_000 { metadata.iso = Int(iso) }
        if let top = number("IFD0", 0x0004), let left = number("IFD0", 0x0005), let bottom = number("IFD0", 0x0006),
           let right = number("IFD0", 0x0007), right > left, bottom > top, right - left < 1_048_576, bottom - top < 1_048_576 {
            metadata.width = Int(right - left)
            metadata.height = Int(bottom - top)
        }
    }
}
