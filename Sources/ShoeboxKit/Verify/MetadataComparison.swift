import Foundation

/// Compares the EXIF summary read from a stored original with what the catalog
/// recorded when it was stored: capture time, make, model, lens and GPS position.
enum MetadataComparison {
    /// Human-readable differences, empty when the summaries agree.
    static func differences(recorded: OriginalRecord, read metadata: PhotoMetadata) -> [String] {
        var differences: [String] = []
        // takenAt may be a fallback (Last-Modified, download time) when the file has no
        // plausible EXIF date, so only such a date in the file is compared, chosen as
        // fetch chose it (CaptureDate.exif). Compared in EXIF's form; a date recorded as
        // written before dates were checked against the calendar (2021:02:30) still
        // matches its file.
        if let date = CaptureDate.exif(metadata), date != recorded.takenAt.flatMap(CaptureDate.canonical) ?? recorded.takenAt,
           !(recorded.takenAt.map(CaptureDate.written(in: metadata).contains) ?? false) {
            differences.append("capture time \(quoted(date)) but recorded \(quoted(recorded.takenAt))")
        }
        if normalized(metadata.make) != normalized(recorded.make) {
            differences.append("make \(quoted(metadata.make)) but recorded \(quoted(recorded.make))")
        }
        if normalized(metadata.model) != normalized(recorded.model) {
            differences.append("model \(quoted(metadata.model)) but recorded \(quoted(recorded.model))")
        }
        // A lens not known (catalogued before lenses were) is not a difference.
        if let lens = recorded.lens, OriginalRecord.lens(of: metadata) != lens {
            differences.append("lens \(quoted(normalized(metadata.lensModel))) but recorded \(quoted(recorded.namedLens))")
        }
        if !sameGPS(metadata.gps, recorded) {
            differences.append("GPS \(describe(metadata.gps)) but recorded \(describe(recorded))")
        }
        return differences
    }

    private static func normalized(_ text: String?) -> String? {
        let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed?.isEmpty == false ? trimmed : nil
    }

    private static func sameGPS(_ gps: GPSPosition?, _ recorded: OriginalRecord) -> Bool {
        guard let gps else { return recorded.gpsLatitude == nil && recorded.gpsLongitude == nil }
        guard let latitude = recorded.gpsLatitude, let longitude = recorded.gpsLongitude else { return false }
        guard abs(gps.latitude - latitude) < 1e-7, abs(gps.longitude - longitude) < 1e-7 else { return false }
        switch (gps.altitude, recorded.gpsAltitude) {
        case (nil, nil): return true
        case let (read?, stored?): return abs(read - stored) < 1e-3
        default: return false
        }
    }

    private static func quoted(_ text: String?) -> String { text.map { "'\($0)'" } ?? "none" }

    private static func describe(_ gps: GPSPosition?) -> String {
        guard let gps else { return "none" }
        return String(format: "%.7f,%.7f", gps.latitude, gps.longitude) + (gps.altitude.map { String(format: " %.1fm", $0) } ?? "")
    }

    private static func describe(_ record: OriginalRecord) -> String {
        guard let latitude = record.gpsLatitude, let longitude = record.gpsLongitude else { return "none" }
        return describe(GPSPosition(latitude: latitude, longitude: longitude, altitude: record.gpsAltitude))
    }
}
