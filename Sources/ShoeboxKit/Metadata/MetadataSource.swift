/// Where a reported value was read when not from the file's EXIF (`PhotoMetadata.sources`).
public enum MetadataSource: String, Sendable, Equatable {
    /// The file's XMP packet (JPEG APP1, PNG iTXt, WebP XMP chunk).
    case xmp = "XMP"
    /// The file's IPTC record (a JPEG's Photoshop APP13 resources).
    case iptc = "IPTC"
    /// The maker's own notes inside the EXIF (tag 0x927C), read where exiftool's tables place a value.
    case makerNotes = "MakerNotes"
    /// A raw format's own header, for formats that keep their values there (Kyocera RAW).
    case rawHeader = "RawHeader"
    /// A JPEG's APP12 "Picture Info" text.
    case pictureInfo = "PictureInfo"
}
