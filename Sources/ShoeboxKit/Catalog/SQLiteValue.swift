/// A value bound to a `?` parameter of a statement.
enum SQLiteValue {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null

    static func of(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    static func of(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
    static func of(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    static func of(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
}
