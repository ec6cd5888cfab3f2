import ShoeboxKit

/// libFuzzer entry point: camera raws through LibRaw as thumbs reads them (headers,
/// embedded preview or half-size decode, turned upright by libvips), on arbitrary
/// bytes. Any crash, hang, sanitizer report or memory past -rss_limit_mb is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func rawThumbnailFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let raw = try? RawThumbnailDecoder(bytes: bytes, name: "fuzz-input", maxMemory: 256 << 20, decodeSeconds: 3)
    else { return 0 }
    // The last byte picks the way: a small size takes the preview when there is one, a large
    // one the half-size decode.
    let longestSide = (bytes.last ?? 0) & 1 == 0 ? 64 : 100_000
    _ = try? raw.uprightImageSize(longestSide: longestSide)
    return 0
}
