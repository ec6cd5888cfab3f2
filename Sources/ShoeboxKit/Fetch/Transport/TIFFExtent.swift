import Foundation

/// How long a TIFF-based file (TIFF, DNG and the TIFF-based raws) must be to hold
/// everything its structure places: every IFD reached from the header (the chain,
/// SubIFDs, Exif, GPS and Interoperability IFDs), their out-of-line values, and the
/// strips, tiles and JPEG previews they point to. TIFF has no end marker: this is
/// what tells a body cut short from a whole one when nothing else says where it ends.
/// Reads the file with bounded memory; hostile offsets and loops are bounded too.
struct TIFFExtent {
    enum Verdict: Equatable {
        /// Everything the structure places lies inside the file.
        case whole
        /// The structure places something at or past `needed` bytes; the file has fewer.
        case cut(needed: Int64)
        /// The structure cannot be followed (not classic TIFF, unreadable, too large to walk).
        case unknown
    }

    private let fd: Int32
    /// The body's length.
    private let size: Int64
    /// How much of it the file holds: all of it, or the head of a body that streamed on into
    /// an object store's upload (`BodySpill`). Structure past it cannot be followed.
    private let readable: Int64
    /// Set when the walk needed bytes past `readable`: then nothing can be said.
    private var pastHead = false
    private var bigEndian = false
    /// Array values read so far: one budget for the whole walk, so that many IFDs
    /// pointing at one huge array cannot cost more than one such array.
    private var valuesRead = 0
    /// The most IFDs and entries walked: a file past these is not judged.
    static let maxIFDs = 512
    static let maxEntriesPerIFD = 4096
    /// The most array values (strip and tile offsets and lengths, SubIFDs) read in one walk.
    static let maxOffsetsPerArray = 4_000_000

    /// Judges the file at `path`; `length`: the body's length when the file holds only its
    /// first bytes (the structure is then followed as far as they go, else `.unknown`).
    static func judge(path: String, length: Int64? = nil) -> Verdict {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unknown }
        var extent = TIFFExtent(fd: fd, size: length ?? Int64(info.st_size), readable: Int64(info.st_size))
        let verdict = extent.judge()
        return extent.pastHead ? .unknown : verdict
    }

    private init(fd: Int32, size: Int64, readable: Int64) {
        self.fd = fd
        self.size = size
        self.readable = min(size, readable)
    }

    private mutating func judge() -> Verdict {
        guard let head = read(at: 0, count: 8) else { return .unknown }
        switch (head[0], head[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return .unknown
        }
        // 42: TIFF and most raws; 0x55: Panasonic RW2; "RO"/"RS"/"OR": Olympus ORF. 43 (BigTIFF) is not walked.
        let magic = number(head, 2, 2)
        guard [42, 0x55, 0x4F52, 0x5352, 0x524F].contains(magic) else { return .unknown }
        var needed: Int64 = 8
        var pending = [Int64(number(head, 4, 4))]
        var visited: Set<Int64> = []
        while let offset = pending.popLast() {
            guard offset != 0, !visited.contains(offset) else { continue }
            guard visited.count < Self.maxIFDs else { return .unknown }
            visited.insert(offset)
            guard offset + 2 <= size, let countBytes = read(at: offset, count: 2) else { return .cut(needed: max(needed, offset + 2)) }
            let count = Int(number(countBytes, 0, 2))
            guard count <= Self.maxEntriesPerIFD else { return .unknown }
            let tableEnd = offset + 2 + Int64(count) * 12 + 4
            needed = max(needed, tableEnd)
            guard tableEnd <= size, let table = read(at: offset + 2, count: count * 12 + 4) else { return .cut(needed: needed) }
            var arrays: [UInt16: (type: Int, count: Int64, at: Int64)] = [:]
            for index in 0..<count {
                let entry = index * 12
                let tag = UInt16(number(table, entry, 2))
                let type = Int(number(table, entry + 2, 2))
                let valueCount = Int64(number(table, entry + 4, 4))
                let unit = Self.typeSize(type)
                let length = Int64(unit) * valueCount
                let valueAt: Int64 = length > 4 ? Int64(number(table, entry + 8, 4)) : offset + 2 + Int64(entry) + 8
                if length > 4 { needed = max(needed, valueAt + length) }
                switch tag {
                case 0x8769, 0x8825, 0xA005:  // Exif, GPS, Interoperability IFD
                    if valueCount >= 1 && (type == 4 || type == 13) { pending.append(Int64(number(table, entry + 8, 4))) }
                case 0x14A:  // SubIFDs
                    arrays[tag] = (type, valueCount, valueAt)
                case 0x111, 0x117, 0x144, 0x145, 0x201, 0x202:
                    arrays[tag] = (type, valueCount, valueAt)
                default: break
                }
            }
            if let subIFDs = arrays[0x14A] {
                guard let offsets = values(subIFDs), offsets.count <= Self.maxIFDs else { return unreadable(needed) }
                pending += offsets
            }
            for (offsetsTag, lengthsTag) in [(UInt16(0x111), UInt16(0x117)), (0x144, 0x145), (0x201, 0x202)] {
                guard let offsetsEntry = arrays[offsetsTag], let lengthsEntry = arrays[lengthsTag] else { continue }
                guard let offsets = values(offsetsEntry), let lengths = values(lengthsEntry) else { return unreadable(needed) }
                for (start, length) in zip(offsets, lengths) where length > 0 {
                    needed = max(needed, start + length)
                }
            }
            pending.append(Int64(number(table, count * 12, 4)))  // the next IFD in the chain
        }
        return needed <= size ? .whole : .cut(needed: needed)
    }

    /// What a structure that cannot be followed further says: cut when what was read
    /// already places something past the end of the file.
    private func unreadable(_ needed: Int64) -> Verdict {
        needed > size ? .cut(needed: needed) : .unknown
    }

    /// The values of a SHORT or LONG (or IFD) array entry; nil when it cannot be read.
    private mutating func values(_ entry: (type: Int, count: Int64, at: Int64)) -> [Int64]? {
        let unit = Self.typeSize(entry.type)
        guard [3, 4, 13].contains(entry.type), entry.count <= Int64(Self.maxOffsetsPerArray - valuesRead) else { return nil }
        valuesRead += Int(entry.count)
        let length = Int64(unit) * entry.count
        guard entry.at >= 0, entry.at + length <= size, let bytes = read(at: entry.at, count: Int(length)) else {
            return entry.count == 0 ? [] : nil
        }
        return (0..<Int(entry.count)).map { Int64(number(bytes, $0 * unit, unit)) }
    }

    private static func typeSize(_ type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return 0
        }
    }

    private func number(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        let slice = bytes[at..<at + count]
        return bigEndian
            ? slice.reduce(0) { $0 << 8 | UInt64($1) }
            : slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private mutating func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
        guard offset + Int64(count) <= readable else {
            pastHead = true
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }
}
