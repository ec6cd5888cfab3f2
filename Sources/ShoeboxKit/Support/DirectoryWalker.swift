import Foundation

/// Every entry under a folder, named by its exact bytes, without following symbolic
/// links. FileManager's enumerator skips names that are not UTF-8 (old Latin-1 archives),
/// and Swift compares strings up to Unicode equivalence: "café" composed and decomposed
/// are two files on Linux but one `String`.
enum DirectoryWalker {
    struct Entry {
        /// Path relative to the walked folder, as the file system spells it.
        var relativePath: [UInt8]
        var info: stat
    }

    /// Calls `visit` for every entry that is not a folder; folders are walked
    /// depth-first. A folder that cannot be opened is passed over.
    static func walk(_ folder: String, _ visit: (Entry) -> Void) {
        let root = Array(folder.utf8)
        var pending: [[UInt8]] = [[]]
        while let relative = pending.popLast() {
            let absolute = relative.isEmpty ? root : root + [UInt8(ascii: "/")] + relative
            for name in names(in: absolute) {
                let child = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                var info = stat()
                guard withCString(root + [UInt8(ascii: "/")] + child, { lstat($0, &info) }) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    pending.append(child)
                } else {
                    visit(Entry(relativePath: child, info: info))
                }
            }
        }
    }

    private static func names(in folder: [UInt8]) -> [[UInt8]] {
        guard let stream = withCString(folder, { opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        return names
    }

    /// A path's bytes for people: as is when UTF-8, else with `\xNN` for every byte outside
    /// printable ASCII (and for backslashes, so the escapes read one way).
    static func shown(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return bytes.map { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
            .joined()
    }

    /// `body` with `bytes` as a C path.
    static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
