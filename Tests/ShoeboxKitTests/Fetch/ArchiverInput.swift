import Foundation
import ShoeboxTestSupport
@testable import ShoeboxKit

/// What the archiver's tests feed it: small JPEGs and finished transfers of them.
enum ArchiverInput {
    /// A small JPEG whose EXIF gives `date` (ModifyDate, in IFD0); distinct bytes per `seed`.
    static func jpeg(seed: String, date: String = "2022:03:04 05:06:07") -> Data {
        var tiff = TIFFBytes()
        tiff.ascii(0x010E, seed)
        tiff.ascii(0x0132, date)
        return Data(EXIFBytes.jpeg(tiff: tiff.data))
    }

    /// A finished transfer of `data` from `url`, staged in `store`'s sink as the engine does.
    static func received(_ data: Data, url: String, into store: OriginalStore) throws -> CompletedTransfer {
        let file = try store.makeStagingFile()
        _ = data.withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
        return CompletedTransfer(
            request: TransferRequest(item: FetchItem(url: url, origin: "test")),
            body: .received(file, sha256: sha256(data), bytes: Int64(data.count), prefix: Array(data.prefix(64))),
            attempts: 1, httpStatus: 200, contentType: "image/jpeg", etag: nil, lastModified: nil, finalURL: url)
    }

    static func sha256(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }
}
