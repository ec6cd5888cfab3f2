import Foundation

/// A point and a distance, `--near LAT,LON,DISTANCE`: the originals taken within DISTANCE
/// (great-circle, on a sphere of the Earth's mean radius) of the point.
///
/// The catalog is asked for the positions inside `boundingBox` (an index range); the
/// exact distance is then checked for each (`contains`), so the SQL needs no trigonometry.
public struct GeoCircle: Sendable, Equatable {
    public var latitude: Double, longitude: Double
    /// Metres.
    public var radius: Double

    /// The mean radius of the Earth (IUGG), metres.
    public static let earthRadius = 6_371_008.8

    public init(latitude: Double, longitude: Double, radius: Double) {
        (self.latitude, self.longitude, self.radius) = (latitude, longitude, radius)
    }

    /// Parses "LAT,LON,DISTANCE", the distance in km (`5`, `5km`) or metres (`500m`).
    public init(parsing text: String, option: String = "near") throws(OriginalQueryError) {
        let expected = "not a place and distance; use LAT,LON,DISTANCE in decimal degrees and km or m, e.g. 48.858,2.294,2km or 48.858,2.294,500m"
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let latitude = GeoBox.degrees(parts[0]), let longitude = GeoBox.degrees(parts[1]),
              (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .invalid(option: option, value: text, expected: expected)
        }
        var distance = parts[2].trimmingCharacters(in: .whitespaces).lowercased()
        var metresPerUnit = 1000.0
        if distance.hasSuffix("km") {
            distance.removeLast(2)
        } else if distance.hasSuffix("m") {
            distance.removeLast()
            metresPerUnit = 1
        }
        guard !distance.hasPrefix("-"), !distance.hasPrefix("+"), let amount = GeoBox.degrees(distance) else {
            throw .invalid(option: option, value: text, expected: expected)
        }
        self.init(latitude: latitude, longitude: longitude, radius: amount * metresPerUnit)
    }

    /// Great-circle distance in metres from the centre (haversine).
    public func distance(latitude: Double, longitude: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (latitude - self.latitude) * radians, dLon = (longitude - self.longitude) * radians
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(self.latitude * radians) * cos(latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }

    public func contains(latitude: Double, longitude: Double) -> Bool {
        distance(latitude: latitude, longitude: longitude) <= radius
    }

    /// A box holding the whole circle (a little more near the poles): a pole inside the
    /// circle, or a radius past a quarter of the globe, takes every longitude.
    public var boundingBox: GeoBox {
        let degrees = radius / Self.earthRadius * 180 / Double.pi + 1e-9  // a hair wider: rounding never cuts the edge
        let south = max(-90, latitude - degrees), north = min(90, latitude + degrees)
        guard south > -90, north < 90, degrees < 90 else { return GeoBox(south: south, west: -180, north: north, east: 180) }
        // The widest longitude span of the circle is at the latitude where it touches its meridians.
        let ratio = sin(degrees * Double.pi / 180) / cos(latitude * Double.pi / 180)
        guard ratio < 1 else { return GeoBox(south: south, west: -180, north: north, east: 180) }
        let span = asin(ratio) * 180 / Double.pi + 1e-9
        var west = longitude - span, east = longitude + span
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        if span >= 180 { (west, east) = (-180, 180) }
        return GeoBox(south: south, west: west, north: north, east: east)
    }
}
