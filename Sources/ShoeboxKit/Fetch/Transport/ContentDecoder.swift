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
    /// True while the compressed stream's end was decoded and nothing has followed
    /// (for gzip, another member may still follow and clear it).
    private(set) var isComplete = false

    /// What one call to `decode` did with its input.
    enum Progress: Equatable {
        /// All of it was taken; more may follow.
        case more
        /// `deliver` refused a decoded piece.
        case refused
        /// Bytes follow the end of the compressed stream: the body is complete and the
        /// rest is not read (an endless tail would otherwise run on for ever).
        case dataAfterEnd
    }

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

    /// Decodes `data`, handing each decoded piece to `deliver`. Every gzip member is
    /// decoded, whichever reads its boundaries fall in.
    func decode(_ data: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool) throws -> Progress {
        guard let base = data.baseAddress, !data.isEmpty else { return .more }
        var input: UnsafePointer<UInt8>? = base.assumingMemoryBound(to: UInt8.self)
        var left = data.count
        while true {
            var produced = Self.outputCapacity
            let status = shim_decoder_run(decoder, &input, &left, output, &produced)
            if produced > 0 {
                isComplete = false
                if !deliver(UnsafeRawBufferPointer(start: output, count: produced)) { return .refused }
            }
            switch status {
            case 2:
                isComplete = true
                return .more
            case 3:
                isComplete = true
                return .dataAfterEnd
            case 1: continue
            case 0 where left == 0:
                isComplete = false
                return .more
            case 0: continue
            default: throw Failure.corrupt(coding: coding)
            }
        }
    }
}
