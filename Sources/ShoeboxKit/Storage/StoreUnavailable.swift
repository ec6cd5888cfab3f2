/// An error after which no other original can be stored or read either (credentials
/// refused, no such bucket, endpoint down): a run stops on it with its message instead of
/// warning about each item in turn.
public protocol StoreUnavailable: Error {
    var storeIsUnavailable: Bool { get }
}

extension S3Error: StoreUnavailable {
    public var storeIsUnavailable: Bool {
        switch self {
        case .signatureMismatch, .unknownAccessKey, .accessDenied, .noSuchBucket, .endpointUnreachable, .clockSkewed, .timedOut,
             .missingCredentials, .invalidLocation, .invalidConfiguration:
            return true
        default:
            return false
        }
    }
}
