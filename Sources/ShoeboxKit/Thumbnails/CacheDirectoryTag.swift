import Foundation

/// The standard cache-directory tag (https://bford.info/cachedir/): backup
/// tools that honour it skip the folder holding it.
public enum CacheDirectoryTag {
    public static let fileName = "CACHEDIR.TAG"
    public static let signature = "Signature: 8a477f597d28d172789f06886806bc55"

    public static var contents: String {
        signature + "\n"
            + "# This file is a cache directory tag created by shoebox.\n"
            + "# Thumbnails here are regenerated from the originals by 'shoebox thumbs'.\n"
            + "# For information about cache directory tags, see: https://bford.info/cachedir/\n"
    }

    /// Writes the tag into `folder` (created if needed) unless a valid one is there.
    public static func ensure(in folder: String) throws {
        do {
            try AtomicFileWriter.createFolders(folder)
            let path = folder + "/" + fileName
            if let existing = FileManager.default.contents(atPath: path), existing.starts(with: Data(signature.utf8)) {
                return
            }
            try AtomicFileWriter.write(Array(contents.utf8), to: path, temporaryPrefix: ThumbnailLayout.temporaryPrefix)
        } catch let error as POSIXFileError {
            throw ThumbnailError.writing(error)
        }
    }
}
