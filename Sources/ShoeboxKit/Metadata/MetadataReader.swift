/// Reads a photo's metadata (EXIF, GPS, pixel size) without decoding pixels.
///
/// Each container is walked by its own reader that touches only header bytes
/// (JPEG segments up to SOS, PNG chunk headers with image data skipped, WebP
/// chunk headers, ISO-BMFF meta boxes for HEIC/HEIF/AVIF, CR3's moov/uuid, the
/// RAF preview's JPEG headers, TIFF IFDs); the EXIF block found there is checked
/// and compacted by `TIFFStructure`, then parsed by libexif.
/// Thread-safe: every call owns its file descriptor and libexif objects.
public enum MetadataReader {
    /// Reads metadata of the file at `path` without decoding pixels. Throws MetadataError when the file cannot be
    /// read at all (missing, unreadable, not an image); damaged EXIF gives warnings in the result instead.
    public static func read(path: String, includeAllTags: Bool = false) throws -> PhotoMetadata {
        let source = try FileByteSource(path: path)
        return try read(source, path: path, includeAllTags: includeAllTags)
    }

    /// The same for the original at `path` in `store`, read a window at a time (ranged
    /// requests for a remote store); messages name the original's location.
    public static func read(store: OriginalStore, path: String, includeAllTags: Bool = false) throws -> PhotoMetadata {
        let source = try StoreByteSource(store: store, path: path)
        return try read(source, path: store.location(of: path), includeAllTags: includeAllTags)
    }

    /// The same for the file at `path` of `size` bytes whose first bytes, `head`, are in memory
    /// (a download's, kept as it went by): the file is opened only when its metadata lies past them.
    static func read(head: [UInt8], size: Int, path: String, includeAllTags: Bool = false) throws -> PhotoMetadata {
        try read(HeadByteSource(head: head, size: size, path: path), path: path, includeAllTags: includeAllTags)
    }

    /// The same for bytes in memory (fuzzing, data not yet written to disk); `name` is used in messages.
    public static func read(bytes: [UInt8], name: String = "<memory>", includeAllTags: Bool = false) throws -> PhotoMetadata {
        try read(MemoryByteSource(data: bytes), path: name, includeAllTags: includeAllTags)
    }

    static func read(_ source: ByteSource, path: String, includeAllTags: Bool) throws -> PhotoMetadata {
        guard source.size > 0 else { throw MetadataError.empty(path: path) }
        let prefix = try source.bytes(at: 0, count: FormatSniffer.prefixLength)
        guard let sniffed = FormatSniffer.sniff(prefix) else { throw MetadataError.notAnImage(path: path) }
        var contents = try ContainerReader.read(source, format: sniffed)
        if contents.format == .tiff, let refined = rawFormat(forExtensionOf: path) { contents.format = refined }
        var metadata = PhotoMetadata()
        metadata.format = contents.format
        metadata.width = contents.width
        metadata.height = contents.height
        metadata.warnings = contents.warnings
        if let tiff = contents.exif {
            ExifBlockReader.read(tiff: tiff, into: &metadata, includeAllTags: includeAllTags, omittedBefore: contents.omitted)
        }
        if let note = contents.makerNote { MakerNoteReader.merge(note.source, makerNote: note.range, into: &metadata) }
        if let packet = contents.xmp { XMPReader.merge(packet, into: &metadata) }
        if let header = contents.rawHeader { metadata.fillGaps(from: header, source: .rawHeader) }
        if let text = contents.pictureInfo { metadata.fillGaps(from: PictureInfoReader.values(text), source: .pictureInfo) }
        let iptcDateTime = contents.photoshop.flatMap { IPTCReader.merge($0, into: &metadata) }
        IPTCReader.composeDateTimeOriginal(&metadata, iptcDateTime: iptcDateTime)
        // Nothing at all could be read from a format we walk: the file is broken, not just its EXIF.
        if ContainerReader.isSupported(sniffed), metadata.width == nil, contents.exif == nil, contents.rawHeader == nil, !contents.warnings.isEmpty {
            throw MetadataError.damaged(path: path, format: contents.format, detail: contents.warnings.joined(separator: "; "))
        }
        return metadata
    }

    /// TIFF-based raw files all start like TIFF; their extension tells them apart.
    static func rawFormat(forExtensionOf path: String) -> ImageFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        let ext = path[path.index(after: dot)...].lowercased()
        guard let format = ImageFormat(rawValue: ext), format.isTIFFBased, format != .tiff else { return nil }
        return format
    }
}
