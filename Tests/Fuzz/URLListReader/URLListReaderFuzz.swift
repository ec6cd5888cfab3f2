import Foundation
import ShoeboxKit

/// libFuzzer entry point: arbitrary bytes as a URL list file, read through
/// URLListReader (line splitting, trimming, comments, URL validation), then every
/// accepted URL's file name through FileNameSanitizer. Invariants checked (a
/// violation traps): only absolute http/https URLs are accepted; invalid lines
/// carry FILE:LINE; a derived file name never leaves its folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func urlListReaderFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Data(bytes: data!, count: size) : Data()
    let list = FuzzScratch.listPath
    guard FileManager.default.createFile(atPath: list, contents: bytes) else { return 0 }
    let reader = URLListReader(paths: [list])
    var entries = 0
    while let entry = try? reader.next() {
        entries += 1
        switch entry {
        case .url(let item):
            let lower = item.url.lowercased()
            precondition(lower.hasPrefix("http:") || lower.hasPrefix("https:"), "accepted a non-http(s) URL: \(item.url)")
            precondition(!item.url.contains("\n") && !item.url.contains("\r"), "accepted a URL with a line break")
            FuzzScratch.checkName(FileNameSanitizer.stem(fromURLPath: URL(string: item.url)?.path ?? item.url))
        case .invalid(let origin, _, let reason):
            precondition(origin.hasPrefix(list + ":"), "invalid line without FILE:LINE: \(origin)")
            precondition(!reason.isEmpty, "invalid line without a reason")
        }
        precondition(entries <= size + 1, "more entries than lines")
    }
    return 0
}

/// Where the list is written, and the file-name invariant shared with the sanitizer target.
enum FuzzScratch {
    static let listPath = NSTemporaryDirectory() + "/shoebox-fuzz-list-\(getpid()).txt"

    static func checkName(_ stem: String?) {
        guard let stem else { return }
        precondition(!stem.isEmpty && stem.utf8.count <= FileNameSanitizer.maxBytes, "bad length: \(stem.utf8.count)")
        // Byte level, as the kernel sees it: one component, not hidden, no control bytes.
        let bytes = Array(stem.utf8)
        precondition(!bytes.contains(UInt8(ascii: "/")) && !bytes.contains(UInt8(ascii: "\\")) && !bytes.contains(0), "separator in \(stem)")
        precondition(bytes.first != UInt8(ascii: "."), "hidden or dot name \(stem)")
        precondition(!bytes.contains { $0 < 0x20 || $0 == 0x7F }, "control character in name")
        // Grapheme level, as Foundation's path functions see it: the name must stay the last
        // component of its folder (a leading combining mark would merge with the "/").
        let folder = "/library/originals/2024/05/01"
        let path = folder + "/" + stem + ".jpg"
        precondition((path as NSString).deletingLastPathComponent == folder, "\(stem) leaves its folder for Foundation")
        precondition((path as NSString).lastPathComponent == stem + ".jpg", "\(stem) is not one component for Foundation")
    }
}
