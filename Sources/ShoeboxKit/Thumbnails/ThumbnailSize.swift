import Foundation

/// One requested thumbnail size: `N` bounds the longer side, `WxH` a box.
public struct ThumbnailSize: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// The spec as written in folder names and the catalog: "256" or "300x200".
    public let name: String

    public static let maximumSide = 16_384

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        name = width == height ? "\(width)" : "\(width)x\(height)"
    }

    public var description: String { name }

    /// Parses "256", "300x200", or comma-separated lists of them.
    public static func parseList(_ text: String) throws -> [ThumbnailSize] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { try parse(String($0)) }
    }

    public static func parse(_ spec: String) throws -> ThumbnailSize {
        let parts = spec.trimmingCharacters(in: .whitespaces).lowercased()
            .split(separator: "x", omittingEmptySubsequences: false)
        let numbers = parts.map { Int($0) }
        guard (1...2).contains(numbers.count),
              numbers.allSatisfy({ $0 != nil && (1...maximumSide).contains($0!) }) else {
            throw ThumbnailError.invalidSize(spec)
        }
        let width = numbers[0]!
        return ThumbnailSize(width: width, height: numbers.count == 2 ? numbers[1]! : width)
    }
}
