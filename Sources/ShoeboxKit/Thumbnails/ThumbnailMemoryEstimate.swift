/// How much memory decoding one original for its thumbnails takes, estimated
/// from its header, and why. libvips streams most images a band of lines at a
/// time, but some it must hold whole: an interlaced PNG (or GIF) is decoded
/// into one buffer, and a progressive JPEG keeps every DCT coefficient of the
/// full-size image however small the DCT scale it is decoded at. A few
/// megabytes of such a file can take gigabytes.
///
/// Measured on libvips 8.14 (peak RSS of `thumbs -s 256,1024` above that of a
/// trivial run, 57 MiB), against the estimate: an 11000x11000 interlaced 16-bit
/// RGBA PNG 1110 MiB (estimate 1.2 GiB), the same PNG not interlaced 230 MiB
/// (272 MiB); 12000x12000 RGB as a progressive 4:2:0 JPEG 424 MiB (490 MiB), an
/// interlaced PNG 452 MiB (535 MiB), a deflate TIFF 57 MiB (123 MiB), a WebP
/// 19 MiB (48 MiB), a baseline JPEG 13 MiB (26 MiB).
public struct ThumbnailMemoryEstimate: Sendable, Equatable {
    /// Bytes the decode is expected to hold at its peak.
    public var bytes: Int64
    /// Why it costs that much, for messages: "an interlaced image is decoded whole in memory".
    public var reason: String

    /// Lines of the decoded width a streamed decode keeps at once (libvips' shrink
    /// pipeline with its sequential-read cache: about 1,300 to 2,700 were measured).
    static let streamedLines = 3_000
    /// Buffers besides the pixels: decoder state, the encoder's output, libvips' own.
    static let fixedBytes: Int64 = 16 << 20

    /// The estimate for decoding the image `header` describes at `scale` (the largest
    /// any thumbnail needs, at most 1), plus `keptPixels` 8-bit pixels (up to 4 bands)
    /// held in memory for the smaller sizes.
    public static func estimate(_ header: ThumbnailDecodeHeader, scale: Double, keptPixels: Int = 0)
        -> ThumbnailMemoryEstimate {
        let width = Int64(max(header.width, 1)), height = Int64(max(header.height, 1))
        let bands = Int64(max(header.bands, 1)), sample = Int64(max(header.bytesPerSample, 1))
        let scale = min(max(scale, 0), 1)
        var decodedWidth = width, decodedHeight = height
        var whole: Int64 = 0
        let reason: String
        switch header.loader {
        case "jpegload", "jpegload_source", "jpegload_buffer":
            let shrink = Int64(ThumbnailRenderer.jpegShrink(for: scale, width: header.width, height: header.height))
            decodedWidth = (width + shrink - 1) / shrink
            decodedHeight = (height + shrink - 1) / shrink
            if header.interlaced {
                // 64 two-byte coefficients per 8x8 block of every component, at full size
                // (blocks padded to whole MCUs of 16 pixels), and an eighth more for libjpeg's own.
                let blocksArea = Double(roundedUp(width, 16) * roundedUp(height, 16))
                let components = 1 + Double(bands - 1) * chromaFraction(header.chromaSubsample)
                whole = Int64(blocksArea * components * 2 * 1.125)
                reason = "a progressive JPEG keeps all its DCT coefficients in memory"
            } else {
                reason = "a baseline JPEG is decoded shrunk, as a stream"
            }
        case "pngload", "pngload_source", "pngload_buffer", "tiffload", "tiffload_source", "tiffload_buffer":
            if header.interlaced {
                whole = width * height * bands * sample
                reason = "an interlaced image is decoded whole in memory"
            } else {
                reason = "it is decoded as a stream of lines"
            }
        case "webpload", "webpload_source", "webpload_buffer":
            // Decoded whole, at about the size needed, from the file read into memory.
            let factor = min(1, 2 * scale)
            decodedWidth = max(1, Int64((Double(width) * factor).rounded(.up)))
            decodedHeight = max(1, Int64((Double(height) * factor).rounded(.up)))
            whole = decodedWidth * decodedHeight * 4 + header.fileBytes
            reason = "a WebP is decoded whole at about the size needed"
        default:
            // HEIF/AVIF, GIF and the rest: the whole image, and as much again for the decoder's planes.
            whole = width * height * bands * sample * 2
            reason = "a \(formatName(header.loader)) is decoded whole in memory"
        }
        let window = decodedWidth * bands * sample * min(decodedHeight, Int64(streamedLines))
        let total = whole + window + Int64(max(keptPixels, 0)) * 4 + fixedBytes
        return ThumbnailMemoryEstimate(bytes: total, reason: reason)
    }

    /// The share of a luma plane each chroma plane has: 1/4 for 4:2:0.
    static func chromaFraction(_ subsample: String) -> Double {
        switch subsample {
        case "4:2:0", "4:1:1": return 0.25
        case "4:2:2", "4:4:0": return 0.5
        default: return 1
        }
    }

    private static func roundedUp(_ value: Int64, _ multiple: Int64) -> Int64 {
        (value + multiple - 1) / multiple * multiple
    }

    private static func formatName(_ loader: String) -> String {
        let base = loader.split(separator: "_").first.map(String.init) ?? loader
        let name = base.hasSuffix("load") ? String(base.dropLast(4)) : base
        return name.isEmpty ? "image of this format" : name.uppercased() + " image"
    }
}

extension ThumbnailMemoryEstimate {
    /// A camera raw's embedded JPEG preview of `width`x`height` (`bytes` long), decoded at
    /// a DCT scale of 1/`shrink` and held upright in memory (twice while it is turned).
    static func rawPreview(width: Int, height: Int, bytes: Int64, shrink: Int, keptPixels: Int) -> ThumbnailMemoryEstimate {
        let shrink = Int64(max(shrink, 1))
        let decoded = ((Int64(max(width, 1)) + shrink - 1) / shrink) * ((Int64(max(height, 1)) + shrink - 1) / shrink) * 3
        return ThumbnailMemoryEstimate(bytes: bytes + decoded * 2 + Int64(max(keptPixels, 0)) * 4 + fixedBytes,
                                       reason: "a raw file's preview is decoded whole in memory")
    }

    /// A camera raw decoded by LibRaw at half size: the sensor data (16 bits a sample, `rawWidth`x`rawHeight`),
    /// LibRaw's four 16-bit channels of the half-size image, its 8-bit output and our upright copy of it.
    static func rawHalfDecode(rawWidth: Int, rawHeight: Int, width: Int, height: Int, keptPixels: Int) -> ThumbnailMemoryEstimate {
        let sensor = Int64(max(rawWidth, 1)) * Int64(max(rawHeight, 1)) * 2
        let half = Int64(max(width, 1) / 2 + 1) * Int64(max(height, 1) / 2 + 1)
        return ThumbnailMemoryEstimate(bytes: sensor + half * 8 + half * 3 * 2 + Int64(max(keptPixels, 0)) * 4 + fixedBytes,
                                       reason: "a raw file's sensor data is decoded whole in memory at half size")
    }
}
