/// What a container reader found without decoding pixels: the EXIF block and
/// the pixel size of the main image, plus any problems met on the way.
struct ContainerContents {
    var format: ImageFormat
    /// The TIFF structure holding the EXIF IFDs (starts with "II*\0" or "MM\0*"),
    /// without any "Exif\0\0" prefix.
    var exif: [UInt8]?
    /// The first XMP packet found (JPEG APP1, PNG iTXt, WebP XMP chunk), as stored.
    var xmp: [UInt8]?
    /// The first Photoshop resource block (JPEG APP13, from "Photoshop 3.0\0"), which may hold IPTC.
    var photoshop: [UInt8]?
    var width: Int?
    var height: Int?
    var warnings: [String] = []
    /// Tags the container's own TIFF repacking left out (TIFF-based files, CR3), for `inspect --all`.
    var omitted: [TIFFStructure.Omitted] = []
    /// A TIFF-based file's maker notes, left in the file by the repacking: read from `source`.
    var makerNote: (source: ByteSource, range: Range<Int>)?
    /// Values a raw format keeps in its own header rather than in EXIF (Kyocera RAW, CRW, X3F;
    /// the CIFF heaps of a JPEG's APP0).
    var rawHeader: PhotoMetadata?
    /// A JPEG's APP12 "Picture Info" text (older Agfa, Olympus, Polaroid cameras).
    var pictureInfo: [UInt8]?

    init(format: ImageFormat) {
        self.format = format
    }

    mutating func setSize(width: Int, height: Int) {
        guard self.width == nil, width > 0, height > 0 else { return }
        self.width = width
        self.height = height
    }

    /// Keeps the first XMP packet found; one over `XMPReader.maximumPacket` is noted, not kept.
    mutating func setXMP(_ packet: [UInt8], from place: String) {
        guard xmp == nil else { return }
        xmp = packet
    }

    /// Accepts an EXIF payload with or without its "Exif\0\0" prefix (the
    /// containers disagree); keeps the first one found.
    mutating func setExif(_ payload: [UInt8], from place: String) {
        guard exif == nil else { return }
        var block = payload[...]
        if ExifBlockReader.hasExifHeader(block) { block = block.dropFirst(ExifBlockReader.exifHeader.count) }
        guard TIFFStructure.isTIFFHeader(Array(block.prefix(4))) else {
            warnings.append("\(place) does not hold a TIFF structure; EXIF ignored")
            return
        }
        exif = Array(block)
    }
}
