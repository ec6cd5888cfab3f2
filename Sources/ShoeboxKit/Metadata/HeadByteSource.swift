/// A file whose first bytes are already in memory (a download's head, kept as it went by):
/// reads within them cost no system call, and the file is opened only for a read past them
/// (`FileByteSource`, once). Not thread-safe, like `FileByteSource`.
final class HeadByteSource: ByteSource {
    let size: Int
    private let head: [UInt8]
    private let path: String
    private var file: FileByteSource?

    /// `head`: the file's first bytes (reads stop at `size` whatever its length); `size`: the
    /// file's length, which the caller knows (the body's byte count).
    init(head: [UInt8], size: Int, path: String) {
        self.size = size
        self.head = head
        self.path = path
    }

    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        if offset + wanted <= head.count { return Array(head[offset..<offset + wanted]) }
        if file == nil { file = try FileByteSource(path: path) }
        return try file!.bytes(at: offset, count: wanted)
    }
}
