/// What one `verify` run looked at and found.
public struct VerifyReport: Sendable, Equatable, Codable {
    /// Every problem and notice, sorted by path then kind.
    public var findings: [VerifyProblem] = []
    public var originalsChecked = 0
    public var thumbnailsChecked = 0
    /// Files found under originals/.
    public var filesScanned = 0
    /// Bytes read and hashed (0 with --quick).
    public var bytesHashed: Int64 = 0
    /// Wall time of the hashing phase, and of the whole run.
    public var hashSeconds = 0.0
    /// Threads that hashed (fewer than asked when the system refused some).
    public var hashThreads = 0
    public var totalSeconds = 0.0
    public var quick = false
    /// The writer that held the library lock while verify ran beside it ("pid N"), if any.
    public var writer: String?
    /// Files under originals/ the catalog snapshot lacked but the catalog had by the end of
    /// the scan: added by a writer meanwhile, not checked (the next verify checks them).
    public var addedSinceSnapshot = 0
    /// Temp files and files being published of the running writer: its work in progress, not checked.
    public var writerFilesSkipped = 0
    /// Thumbnail findings not reported because a writer held the lock (thumbs may be mid-change).
    public var thumbnailFindingsWithheld = 0

    /// With `--repair`: originals put back (or found intact again), and those left broken.
    public var repaired = 0
    public var notRepaired = 0

    public init() {}

    /// The findings a repair can mend: originals missing, cut short or changed.
    public static let repairableKinds: Set<VerifyProblem.Kind> = [.missing, .sizeMismatch, .hashMismatch]

    /// The report after `outcomes` (of `OriginalRepairer`): each repaired original's finding
    /// becomes a `repaired` notice saying from where; an unrepaired one stays a problem and
    /// says why each source failed.
    public mutating func apply(_ outcomes: [RepairOutcome]) {
        let bySHA = Dictionary(outcomes.map { ($0.record.sha256, $0) }, uniquingKeysWith: { first, _ in first })
        for index in findings.indices where Self.repairableKinds.contains(findings[index].kind) {
            guard let sha256 = findings[index].sha256, let outcome = bySHA[sha256] else { continue }
            let was = findings[index].kind.rawValue
            switch outcome.result {
            case .repaired(let source, let aside):
                findings[index].detail = "was \(was); put back from \(source)"
                    + (aside.map { ", the damaged file kept at \($0)" } ?? "")
                findings[index].kind = .repaired
                repaired += 1
            case .alreadyIntact:
                findings[index].detail = "was \(was); intact when looked at again (mended meanwhile), left as it is"
                findings[index].kind = .repaired
                repaired += 1
            case .notRepaired:
                findings[index].detail += "; " + (outcome.failureText ?? "not repaired")
                notRepaired += 1
            }
        }
        // What was said of the damaged file (its mode, its metadata) is not true of the one put back.
        let mended = Set(outcomes.filter { $0.isRepaired }.map(\.record.sha256))
        findings.removeAll { finding in
            finding.kind != .repaired && finding.sha256.map(mended.contains) == true
                && [.writable, .metadataMismatch, .unreadable].contains(finding.kind)
        }
    }

    public var problemCount: Int { findings.filter { $0.severity == .problem }.count }
    public var noticeCount: Int { findings.filter { $0.severity == .notice }.count }
    public var isClean: Bool { problemCount == 0 }

    /// Hashing rate in GB/s (10^9 bytes), 0 when nothing was hashed.
    public var gigabytesPerSecond: Double {
        hashSeconds > 0 ? Double(bytesHashed) / 1e9 / hashSeconds : 0
    }
}
