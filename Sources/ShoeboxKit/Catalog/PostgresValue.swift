import CPostgres
import Foundation

/// A statement parameter for PostgreSQL, sent in text format (the server converts it to the
/// column's type). Doubles are written shortest-exact, so they round-trip bit for bit.
enum PostgresValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case double(Double)
    case null

    static func of(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }
    static func of(_ value: Int?) -> PostgresValue { value.map { .integer(Int64($0)) } ?? .null }
    static func of(_ value: Double?) -> PostgresValue { value.map { .double($0) } ?? .null }

    /// A `text[]` parameter as an array literal, every element quoted (`"` and `\` escaped):
    /// send it as `$n::text[]`. The strings must not hold NUL (libpq sends C strings).
    static func textArray(_ values: [String]) -> PostgresValue { array(values.map { .text($0) }) }

    /// An array parameter of any element type: each element as its text, quoted (`"` and `\`
    /// escaped), SQL NULL as an unquoted NULL. Send it cast to the element type's array
    /// (`$n::bigint[]`, `$n::float8[]`…): the server reads each quoted element as that type.
    static func array(_ values: [PostgresValue]) -> PostgresValue {
        // Bytes, not Characters: a quote followed by a combining mark is one Character.
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for (index, value) in values.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            guard let text = value.parameter else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                literal.append(byte)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return .text(String(decoding: literal, as: UTF8.self))
    }

    /// A `bigint[]` parameter (`$n::bigint[]`).
    static func integerArray(_ values: [Int64]) -> PostgresValue {
        .text("{" + values.map(String.init).joined(separator: ",") + "}")
    }

    /// The text sent to the server; nil for SQL NULL.
    var parameter: String? {
        switch self {
        case let .text(text): return text
        case let .integer(number): return String(number)
        case let .double(number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
            return "\(number)"
        case .null: return nil
        }
    }
}

/// One row of a result, read by column index. Values arrive in text format.
struct PostgresRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int32) -> Bool { PQgetisnull(result, row, column) != 0 }

    func string(_ column: Int32) -> String? {
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return nil }
        return String(cString: value)
    }

    func int64(_ column: Int32) -> Int64? { string(column).flatMap { Int64($0) } }
    func int(_ column: Int32) -> Int? { string(column).flatMap { Int($0) } }

    func double(_ column: Int32) -> Double? {
        guard let text = string(column) else { return nil }
        switch text {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }
}
