import Foundation

/// A latitude/longitude rectangle, `--bbox SOUTH,WEST,NORTH,EAST` in decimal degrees.
/// A box whose west edge is east of its east edge crosses the antimeridian (170,-170 is
/// the 20° around longitude 180). Edges are inclusive: a position on the edge is inside.
public struct GeoBox: Sendable, Equatable {
    public var south: Double, west: Double, north: Double, east: Double

    public init(south: Double, west: Double, north: Double, east: Double) {
        (self.south, self.west, self.north, self.east) = (south, west, north, east)
    }

    /// Parses "SOUTH,WEST,NORTH,EAST" for the option `option` (for its message).
    public init(parsing text: String, option: String = "bbox") throws(OriginalQueryError) {
        let expected = "not a box; use SOUTH,WEST,NORTH,EAST in decimal degrees (latitudes -90 to 90, longitudes -180 to 180), e.g. 45.8,5.9,47.8,10.5"
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { GeoBox.degrees(String($0)) }
        guard numbers.count == 4, let south = numbers[0], let west = numbers[1], let north = numbers[2], let east = numbers[3],
              (-90...90).contains(south), (-90...90).contains(north), (-180...180).contains(west), (-180...180).contains(east)
        else { throw .invalid(option: option, value: text, expected: expected) }
        guard south <= north else {
            throw .invalid(option: option, value: text, expected: "its south edge (\(numbers[0]!)) is north of its north edge (\(numbers[2]!)); use SOUTH,WEST,NORTH,EAST")
        }
        self.init(south: south, west: west, north: north, east: east)
    }

    /// Whether the box crosses longitude 180 (its west edge is east of its east edge).
    public var crossesAntimeridian: Bool { west > east }

    public func contains(latitude: Double, longitude: Double) -> Bool {
        guard latitude >= south, latitude <= north else { return false }
        return crossesAntimeridian ? (longitude >= west || longitude <= east) : (longitude >= west && longitude <= east)
    }

    /// A decimal number of degrees, plain notation only ("1e3", "inf" and "nan" are no degrees).
    static func degrees(_ text: String) -> Double? {
        let body = text.trimmingCharacters(in: .whitespaces)
        let digits = body.drop { $0 == "-" || $0 == "+" }
        guard body.count - digits.count <= 1, !digits.isEmpty, digits.filter({ $0 == "." }).count <= 1,
              digits.allSatisfy({ $0 == "." || ("0"..."9").contains($0) }), digits != "." else { return nil }
        return Double(body)
    }
}
