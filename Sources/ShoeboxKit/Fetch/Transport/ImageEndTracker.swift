import Foundation

/// Follows an image's own structure as its bytes arrive, to tell whether the body
/// reached the end its format declares: JPEG's end marker, PNG's IEND chunk, the
/// boxes of a HEIF/AVIF file and the items its `iloc` places, the size WebP
/// declares, GIF's trailer after its blocks. Whatever follows that end is allowed.
/// An HTTP/1 body delimited by the connection's close has nothing else to tell a
/// cut-off image from a whole one. TIFF and the raws
/// place their parts anywhere in the file: `TIFFExtent` judges the file once it is
/// written. Other formats (JPEG-LS, JPEG XL, BMP, whose writers get its size field
/// wrong…) are not judged.
struct ImageEndTracker {
    private enum Header {
        case sniff, pngSignature, pngChunk, box, largeBox, jpegLength
        case gifScreen, gifBlock, gifExtensionLabel, gifImage, gifCodeSize, gifSubBlock
        /// A HEIF `meta` box's payload, kept to learn from its iloc where the items end.
        case metaPayload
    }

    private indirect enum Step {
        /// Collecting a fixed-size header into `pending`.
        case header(Int, Header)
        case skip(Int64, then: Step)
        case jpegMarkerStart
        case jpegMarkerCode
        /// JPEG entropy-coded data, looking for the next marker.
        case entropy
        case entropyMarker
        /// Complete once this many bytes have arrived (WebP).
        case declaredSize(Int64)
        case complete
        case notJudged
    }

    private var step = Step.header(18, .sniff)
    private var pending: [UInt8] = []
    private var total: Int64 = 0
    private var jpegMarker: UInt8 = 0
    /// HEIF's `meta` or CR3's `moov`, and `mdat`, seen among the top-level boxes.
    private var sawMetadataBox = false
    private var sawMediaData = false
    /// Where the last item `meta` places in the file ends.
    private var endOfItems: Int?

    /// true: the image ends where its format says; false: it stops before; nil: not judged.
    var isComplete: Bool? {
        switch step {
        case .complete: return true
        case .notJudged: return nil
        case .declaredSize(let size): return total >= size
        case .header(_, .box):
            // Between two boxes, after the image data: whole. A file cut right after its
            // metadata box may have had its data there (HEIF's idat): not judged.
            guard sawMetadataBox else { return false }
            if let endOfItems, total < Int64(endOfItems) { return false }
            // A few bytes past the last whole box: a cut header, or padding.
            guard pending.isEmpty else { return nil }
            return endOfItems != nil || sawMediaData ? true : nil
        case .header(_, .sniff): return FormatSniffer.sniff(pending) == nil ? nil : false  // shorter than 18 bytes
        default: return false
        }
    }

    mutating func consume(_ data: UnsafeRawBufferPointer) {
        guard !data.isEmpty else { return }
        total += Int64(data.count)
        var index = 0
        while index < data.count {
            switch step {
            case .complete, .notJudged, .declaredSize:
                return
            case .skip(let count, let next):
                let taken = min(Int64(data.count - index), count)
                index += Int(taken)
                step = Self.skipping(count - taken, then: next)
            case .header(let size, let kind):
                let taken = min(size - pending.count, data.count - index)
                pending += data[index..<index + taken]
                index += taken
                if pending.count == size { finishHeader(kind) }
            case .jpegMarkerStart:
                step = data[index] == 0xFF ? .jpegMarkerCode : .notJudged
                index += 1
            case .jpegMarkerCode:
                if data[index] != 0xFF { jpegMarkerFound(data[index]) }  // 0xFF: fill byte
                index += 1
            case .entropy:
                guard let marker = Self.firstFF(in: data, from: index) else { return }
                index = marker + 1
                step = .entropyMarker
            case .entropyMarker:
                let byte = data[index]
                index += 1
                switch byte {
                case 0x00, 0xD0...0xD7: step = .entropy  // a stuffed 0xFF, a restart marker
                case 0xFF: break
                default: jpegMarkerFound(byte)
                }
            }
        }
    }

    private mutating func jpegMarkerFound(_ code: UInt8) {
        switch code {
        case 0xD9: step = .complete
        case 0xD8, 0x01, 0xD0...0xD7: step = .jpegMarkerStart  // markers without a length
        case 0xF7: step = .notJudged  // JPEG-LS: its scans may hold 0xFF 0x01...0x7F
        default:
            jpegMarker = code
            step = .header(2, .jpegLength)
        }
    }

    private mutating func finishHeader(_ kind: Header) {
        let bytes = pending
        pending = []
        switch kind {
        case .sniff:
            step = Self.firstStep(for: bytes)
            consumeAgain(bytes)
        case .pngSignature:
            step = .header(8, .pngChunk)
        case .pngChunk:
            let length = Int64(ISOMediaContainer.bigEndian(bytes, 0, 4))
            let isEnd = bytes[4..<8].elementsEqual("IEND".utf8)
            step = Self.skipping(length + 4, then: isEnd ? .complete : .header(8, .pngChunk))  // data, CRC
        case .box:
            let size = Int64(ISOMediaContainer.bigEndian(bytes, 0, 4))
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if type == "meta" || type == "moov" { sawMetadataBox = true }
            if type == "mdat" { sawMediaData = true }
            switch size {
            case 1: step = .header(8, .largeBox)
            case 9...Int64(ISOMediaContainer.maximumMetaSize) where type == "meta" && endOfItems == nil:
                step = .header(Int(size - 8), .metaPayload)
            case 8...: step = Self.skipping(size - 8, then: .header(8, .box))
            default: step = .notJudged  // 0: "to the end of the file"; 2...7: damaged
            }
        case .largeBox:
            let size = Int64(clamping: ISOMediaContainer.bigEndian(bytes, 0, 8))
            step = size >= 16 ? Self.skipping(size - 16, then: .header(8, .box)) : .notJudged
        case .metaPayload:
            endOfItems = ISOMediaContainer.endOfFileItems(meta: bytes)
            step = .header(8, .box)
        case .gifScreen, .gifImage:
            // A packed byte whose top bit says a colour table follows (byte 10 of the
            // signature and screen descriptor; the last of an image descriptor).
            let packed = kind == .gifScreen ? bytes[10] : bytes[8]
            let table = packed & 0x80 != 0 ? Int64(3) << ((packed & 7) + 1) : 0
            step = Self.skipping(table, then: kind == .gifScreen ? .header(1, .gifBlock) : .header(1, .gifCodeSize))
        case .gifBlock:
            switch bytes[0] {
            case 0x21: step = .header(1, .gifExtensionLabel)
            case 0x2C: step = .header(9, .gifImage)
            case 0x3B: step = .complete
            default: step = .notJudged  // damaged
            }
        case .gifExtensionLabel, .gifCodeSize:
            step = .header(1, .gifSubBlock)
        case .gifSubBlock:
            step = bytes[0] == 0 ? .header(1, .gifBlock) : Self.skipping(Int64(bytes[0]), then: .header(1, .gifSubBlock))
        case .jpegLength:
            let length = Int64(ISOMediaContainer.bigEndian(bytes, 0, 2))
            guard length >= 2 else { step = .notJudged; return }
            step = Self.skipping(length - 2, then: jpegMarker == 0xDA ? .entropy : .jpegMarkerStart)
        }
    }

    /// Runs the first bytes, collected to decide the format, through its steps.
    private mutating func consumeAgain(_ bytes: [UInt8]) {
        let counted = total
        bytes.withUnsafeBytes { consume($0) }
        total = counted
    }

    private static func firstStep(for head: [UInt8]) -> Step {
        func littleEndian(_ range: Range<Int>) -> Int64 {
            range.reversed().reduce(0) { $0 << 8 | Int64(head[$1]) }
        }
        if head.starts(with: [0xFF, 0xD8]) { return .jpegMarkerStart }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .header(8, .pngSignature) }
        if head[4..<8].elementsEqual("ftyp".utf8) { return .header(8, .box) }
        if head.starts(with: "GIF8".utf8) { return .header(13, .gifScreen) }
        if head.starts(with: "RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8) {
            return .declaredSize(littleEndian(4..<8) + 8)
        }
        return .notJudged
    }

    /// Passing over `count` bytes, or at `next` already when there is nothing to pass.
    private static func skipping(_ count: Int64, then next: Step) -> Step {
        count > 0 ? .skip(count, then: next) : next
    }

    private static func firstFF(in data: UnsafeRawBufferPointer, from index: Int) -> Int? {
        guard let base = data.baseAddress,
              let found = memchr(base + index, 0xFF, data.count - index) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
