/// What `verify --repair` did for one broken original.
public struct RepairOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Put back from `source` (a URL, a file:// path, or the staged copy a run left);
        /// the damaged bytes it replaced kept at `aside`, when there were any.
        case repaired(source: String, aside: String?)
        /// Intact when looked at again under the writer's lock (repaired meanwhile): nothing done.
        case alreadyIntact
        /// Every source tried failed: each one and why, in the order tried (none when
        /// nothing is recorded to fetch it from).
        case notRepaired(attempts: [Attempt])
    }

    public struct Attempt: Sendable, Equatable {
        public var source: String
        public var reason: String

        public init(source: String, reason: String) {
            self.source = source
            self.reason = reason
        }
    }

    public var record: OriginalRecord
    public var result: Result

    public init(record: OriginalRecord, result: Result) {
        self.record = record
        self.result = result
    }

    public var isRepaired: Bool {
        switch result {
        case .repaired, .alreadyIntact: return true
        case .notRepaired: return false
        }
    }

    /// Why it could not be repaired, for people: each source and its failure.
    public var failureText: String? {
        guard case .notRepaired(let attempts) = result else { return nil }
        guard !attempts.isEmpty else {
            return "not repaired: no source is recorded for it (no URL gave these bytes); restore it from a backup"
        }
        return "not repaired: " + attempts.map { "\($0.source): \($0.reason)" }.joined(separator: "; ")
    }
}
