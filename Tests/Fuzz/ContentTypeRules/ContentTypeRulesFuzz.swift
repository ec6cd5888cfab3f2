import Foundation
import ShoeboxKit

/// Where a body that sniffs as TIFF is written, for the IFD0 reading of decide(file:).
private let bodyFile = NSTemporaryDirectory() + "content-type-rules-fuzz-\(getpid())"

/// libFuzzer entry point: a Content-Type header and a body prefix, through
/// ContentTypeRules.decide (media type parsing, sniffing, mismatch rules).
/// Input layout: first byte N, then N bytes of header text, then the body's first
/// bytes. A violated invariant traps: bytes that sniff as no image are never
/// accepted; an accepted format is what the bytes are (or a raw type inside TIFF);
/// an empty body is always rejected; a TIFF body read from its file (IFD0: DNG and
/// the raws) is accepted as TIFF or as a raw format built on TIFF.
@_cdecl("LLVMFuzzerTestOneInput")
public func contentTypeRulesFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let first = bytes.first else { return 0 }
    let headerLength = first == 0xFF ? 0 : min(Int(first), bytes.count - 1)
    let header = String(decoding: bytes[1..<(1 + headerLength)], as: UTF8.self)
    let contentType: String? = first == 0xFF ? nil : header
    let body = Array(bytes[(1 + headerLength)...])

    if let media = ContentTypeRules.mediaType(contentType) {
        // Bytes, not Characters: Swift compares canonically, and U+037E (Greek question mark) equals ";".
        precondition(media == media.lowercased() && !media.utf8.contains(UInt8(ascii: ";")), "media type not normalised: \(media)")
    }
    let sniffed = FormatSniffer.sniff(body)
    switch ContentTypeRules.decide(contentType: contentType, prefix: body, bodyBytes: Int64(body.count)) {
    case .accept(let format, let warnings):
        precondition(!body.isEmpty, "accepted an empty body")
        guard let sniffed else { preconditionFailure("accepted bytes that are no image as \(format)") }
        precondition(format == sniffed || (format.isRaw && sniffed == .tiff) || ([.heic, .heif].contains(format) && [.heic, .heif].contains(sniffed)),
                     "accepted \(format) for bytes sniffed as \(sniffed)")
        precondition(!format.fileExtension.isEmpty && !format.fileExtension.contains("/"), "bad extension")
        precondition(warnings.allSatisfy { $0.hasPrefix("content-type-mismatch") }, "unexpected warning \(warnings)")
    case .reject(let reason):
        precondition(!reason.isEmpty, "rejected without a reason")
        precondition(body.isEmpty || sniffed == nil, "rejected bytes that sniff as \(String(describing: sniffed))")
    }
    if sniffed == .tiff {
        _ = body.withUnsafeBytes { raw in
            FileManager.default.createFile(atPath: bodyFile, contents: Data(raw))
        }
        switch ContentTypeRules.decide(contentType: contentType, prefix: body, bodyBytes: Int64(body.count), file: bodyFile) {
        case .accept(let format, let warnings):
            precondition(format.isTIFFBased || format.isRaw, "accepted \(format) for a TIFF read from its file")
            precondition(warnings.allSatisfy { $0.hasPrefix("content-type-mismatch") }, "unexpected warning \(warnings)")
        case .reject(let reason):
            preconditionFailure("rejected a TIFF read from its file: \(reason)")
        }
    }
    return 0
}
