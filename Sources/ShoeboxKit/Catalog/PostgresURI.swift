import Foundation

/// A libpq connection URI (`postgres://USER:PASSWORD@HOST:PORT/DATABASE?PARAMS`, or
/// `postgresql://…`), checked for its scheme and printable without its password.
///
/// libpq parses the URI itself (and fills in what it leaves out from the PG* environment
/// variables and ~/.pgpass); this type only recognises the scheme and hides passwords.
public struct PostgresURI: Sendable, Equatable, CustomStringConvertible {
    public static let schemes = ["postgres://", "postgresql://"]

    /// The URI as given, password included: only for libpq.
    let text: String

    /// Accepts a `postgres://` or `postgresql://` URI; anything else is `PostgresError.invalidURI`.
    public init(_ text: String) throws {
        guard Self.isPostgresURI(text) else {
            throw PostgresError.invalidURI(
                uri: Self.redacted(text), detail: "it does not start with postgres:// or postgresql://")
        }
        self.text = text
    }

    /// Whether `text` names a PostgreSQL catalog (by its scheme, case-insensitively).
    public static func isPostgresURI(_ text: String) -> Bool {
        let lower = text.lowercased()
        return schemes.contains { lower.hasPrefix($0) }
    }

    /// The URI with any password (`user:PASSWORD@`, `password=` parameter) replaced by `***`.
    public var description: String { Self.redacted(text) }

    /// The passwords `text` carries, as written and percent-decoded: scrubbed from libpq's
    /// messages before they reach a user.
    var passwords: [String] {
        let found = Self.passwordRanges(text).map { String(text[$0]) }.filter { !$0.isEmpty }
        return Array(Set(found + found.compactMap { $0.removingPercentEncoding })).filter { !$0.isEmpty }
    }

    /// Removes every password of this URI from `message`.
    func scrubbed(_ message: String) -> String {
        var message = message
        for password in passwords.sorted(by: { $0.count > $1.count }) {
            message = message.replacingOccurrences(of: password, with: "***")
        }
        return message
    }

    /// `text` with its passwords replaced by `***`.
    public static func redacted(_ text: String) -> String {
        var result = text
        for range in passwordRanges(text).sorted(by: { $0.lowerBound > $1.lowerBound }) {
            result.replaceSubrange(range, with: "***")
        }
        return result
    }

    /// Where the passwords are: after `user:` in the user info (which ends, as libpq reads it,
    /// at the first `@` before any `/`), and the values of `password=` parameters.
    private static func passwordRanges(_ text: String) -> [Range<String.Index>] {
        guard let scheme = text.range(of: "://") else { return [] }
        var ranges: [Range<String.Index>] = []
        var rest = text[scheme.upperBound...]
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), text[at] == "@" {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                ranges.append(text.index(after: colon)..<at)
            }
            rest = text[text.index(after: at)...]
        }
        if let question = rest.firstIndex(of: "?") {
            var start = text.index(after: question)
            while start < text.endIndex {
                let end = text[start...].firstIndex(of: "&") ?? text.endIndex
                let parameter = text[start..<end]
                if let equals = parameter.firstIndex(of: "="),
                   parameter[..<equals].lowercased() == "password" {
                    ranges.append(text.index(after: equals)..<end)
                }
                start = end < text.endIndex ? text.index(after: end) : end
            }
        }
        return ranges
    }
}
