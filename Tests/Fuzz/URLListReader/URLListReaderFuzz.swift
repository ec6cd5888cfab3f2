import Foundation
import ShoeboxKit

/// libFuzzer entry point: arbitrary bytes as a URL list file, read through
/// URLListReader (line splitting, trimming, comments, URL validation), then every
/// accepted URL's file name through FileNameSanitizer. Invariants checked (a
/// violation traps): only http/https URLs are accepted; invalid lines carry
/// FILE:LINE and a reason.
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
            // The name derived from it: its invariants are checked by the FileNameSanitizer target.
            _ = FileNameSanitizer.stem(fromURLPath: URL(string: item.url)?.path ?? item.url)
        case .invalid(let origin, _, let reason):
            precondition(origin.hasPrefix(list + ":"), "invalid line without FILE:LINE: \(origin)")
            precondition(!reason.isEmpty, "invalid line without a reason")
        }
        precondition(entries <= size + 1, "more entries than lines")
    }
    return 0
}

/// Where the list is written: one file per fuzzing process.
enum FuzzScratch {
    static let listPath = NSTemporaryDirectory() + "/shoebox-fuzz-list-\(getpid()).txt"
}
