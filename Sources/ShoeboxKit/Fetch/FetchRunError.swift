/// Why a fetch run could not start (exit status 2).
public enum FetchRunError: Error, CustomStringConvertible, Equatable {
    /// `--strict` found lines that are not http(s) URLs: "FILE:LINE: reason" each.
    case invalidLines([String])
    case nothingToFetch
    /// A `FetchOptions` value the engine cannot run with: what and what is allowed.
    case invalidOption(String)

    public var description: String {
        switch self {
        case .invalidLines(let lines):
            let shown = lines.prefix(20).joined(separator: "\n  ")
            let more = lines.count > 20 ? "\n  … and \(lines.count - 20) more" : ""
            return "--strict: \(lines.count) invalid line(s), nothing fetched:\n  \(shown)\(more)\nfix or remove them, or run without --strict to fetch the valid ones"
        case .nothingToFetch:
            return "no URLs given: name a list file (or - for stdin), or pass --url URL"
        case .invalidOption(let what):
            return "invalid option: \(what)"
        }
    }
}
