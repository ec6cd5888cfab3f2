import ShoeboxKit

/// libFuzzer entry point: container extraction (JPEG, TIFF, PNG, WebP, ISO-BMFF)
/// and EXIF reading through libexif, with every tag decoded (--all), on
/// arbitrary bytes. Any crash, hang or sanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func metadataReaderFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let metadata = try? MetadataReader.read(bytes: bytes, name: "fuzz-input", includeAllTags: true) {
        // Touch what inspect prints, so formatting code runs on hostile values too.
        _ = metadata.exiftoolFields.count
        _ = metadata.tags.reduce(0) { $0 &+ $1.value.utf8.count }
    }
    return 0
}
