import ShoeboxKit

extension OriginalRecord {
    /// A JPEG original with only its hash, path and size known (the shared-catalog recovery tests).
    static func minimal(_ sha256: String, _ path: String, bytes: Int) -> OriginalRecord {
        OriginalRecord(sha256: sha256, path: path, bytes: Int64(bytes), contentType: "image/jpeg", width: nil, height: nil,
                       takenAt: nil, datedBy: nil, make: nil, model: nil, gpsLatitude: nil, gpsLongitude: nil,
                       gpsAltitude: nil, orientation: nil, addedAt: "2026-12-02T06:00:00Z")
    }
}
