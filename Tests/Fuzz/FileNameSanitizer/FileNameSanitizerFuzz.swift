import Foundation
import ShoeboxKit

/// libFuzzer entry point: arbitrary bytes as a URL path, as a name and as a
/// Content-Disposition header, through FileNameSanitizer (percent-decoding,
/// extension removal, character filtering, truncation to 100 bytes). A violated invariant traps: the name must be a
/// single, non-hidden path component of at most 100 bytes without control,
/// format (Cf: invisible, bidi) or line/paragraph separator characters, so a
/// stored original can never land outside its folder or hide its real name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fileNameSanitizerFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let text = String(decoding: bytes, as: UTF8.self)
    check(FileNameSanitizer.stem(fromURLPath: text))
    check(FileNameSanitizer.sanitize(text))
    // The same bytes as a Content-Disposition header: its name must come out as safe.
    check(ContentDispositionName.fileName(text).flatMap(FileNameSanitizer.stem(fromFileName:)))
    check(ContentDispositionName.fileName("attachment; filename=\"" + text).flatMap(FileNameSanitizer.stem(fromFileName:)))
    _ = ContentDispositionName.urlNameIsGeneric(text)
    return 0
}

private func check(_ stem: String?) {
    guard let stem else { return }
    precondition(!stem.isEmpty && stem.utf8.count <= FileNameSanitizer.maxBytes, "bad length: \(stem.utf8.count)")
    // Byte level, as the kernel sees it: one component, not hidden, no control bytes.
    let bytes = Array(stem.utf8)
    precondition(!bytes.contains(UInt8(ascii: "/")) && !bytes.contains(UInt8(ascii: "\\")) && !bytes.contains(0), "separator in \(stem)")
    precondition(bytes.first != UInt8(ascii: "."), "hidden or dot name \(stem)")
    precondition(!zip(bytes, bytes.dropFirst()).contains { $0 == 0x2E && $1 == 0x2E }, "\(stem) holds ..")
    precondition(!bytes.contains { $0 < 0x20 || $0 == 0x7F }, "control character in name")
    // Nothing invisible or reordering (format characters, bidi controls) and no line breaks.
    precondition(!stem.unicodeScalars.contains {
        [.format, .lineSeparator, .paragraphSeparator, .control].contains($0.properties.generalCategory)
    }, "invisible, bidi control or line separator in \(stem.unicodeScalars.map { String($0.value, radix: 16) })")
    precondition(!FileNameSanitizer.isWindowsDeviceName(stem), "Windows device name \(stem)")
    precondition(Array(stem.precomposedStringWithCanonicalMapping.utf8) == bytes, "\(stem) is not in NFC")
    // Grapheme level, as Foundation's path functions see it: the name must stay the last
    // component of its folder (a leading combining mark would merge with the "/").
    let folder = "/library/originals/2024/05/01"
    let path = folder + "/" + stem + ".jpg"
    precondition((path as NSString).deletingLastPathComponent == folder, "\(stem) leaves its folder for Foundation")
    precondition((path as NSString).lastPathComponent == stem + ".jpg", "\(stem) is not one component for Foundation")
}
