import Foundation

/// An S3 answer: status, headers (names lower-cased; the last of repeated ones) and body
/// (empty when it went to a streaming receiver).
struct S3Response {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
