import CShim

/// Decodes a body sent with `Content-Encoding: gzip | deflate | br` as it streams
/// in, and knows whether the compressed stream reached its end: libcurl's own
/// decoding takes a stream cut short for a whole one (the Content-Length can match
/// what was sent), which would store part of a photo as the original.
final class ContentDecoder {
    enum Failure: Error, Equatable {
        /// A coding this decoder does not know, or a list of several.
        case unsupported(String)
        case corrupt(coding: String)
    }

    let coding: String
    private let decoder: OpaquePointer
    private static let outputCapacity = 64 << 10
    private let output: UnsafeMutablePointer<UInt8>
    /// True once the compressed stream's end was decoded.
    private(set) var isComplete = false

    /// nil for `identity` (nothing to decode); throws for a coding it cannot decode.
    init?(contentEncoding header: String) throws {
        let codings = header.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard let first = codings.first else { return nil }
        guard codings.count == 1, let decoder = shim_decoder_new(first) else {
            throw Failure.unsupported(header)
        }
        coding = first
        self.decoder = decoder
        // Allocated last: an init that returns nil or throws before this point runs no deinit.
        output = .allocate(capacity: Self.outputCapacity)
    }

    deinit {
        shim_decoder_free(decoder)
        output.deallocate()
    }

    /// Decodes `data`, handing each decoded piece to `deliver` (false stops: returns false).
    func decode(_ data: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool) throws -> Bool {
        guard !isComplete, let base = data.baseAddress else { return true }
        var input: UnsafePointer<UInt8>? = base.assumingMemoryBound(to: UInt8.self)
        var left = data.count
        while true {
            var produced = Self.outputCapacity
            let status = shim_decoder_run(decoder, &input, &left, output, &produced)
            if produced > 0 && !deliver(UnsafeRawBufferPointer(start: output, count: produced)) { return false }
            switch status {
            case 2:
                isComplete = true  // bytes after the end of the stream are ignored, as browsers do
                return true
            case 1: continue
            case 0 where left == 0: return true
            case 0: continue
            default: throw Failure.corrupt(coding: coding)
            }
        }
    }
}
