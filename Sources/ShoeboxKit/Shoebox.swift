import CCurl

/// Process-wide facts and set-up.
public enum Shoebox {
    public static let version = "0.1.0"

    /// Initialises libcurl; must run before any other thread starts (first thing in main).
    public static func initializeProcess() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }
}
