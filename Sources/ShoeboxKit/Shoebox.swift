import CCurl
import Glibc

/// Process-wide facts and set-up.
public enum Shoebox {
    public static let version = "0.1.0"

    /// Initialises libcurl; must run before any other thread starts (first thing in main).
    public static func initializeProcess() {
        // libcurl turns international host names into their ASCII form (bücher.example →
        // xn--bcher-kva.example) with libidn2, reading them in the locale's encoding; under
        // the default "C" locale every such name fails. Lists are read as UTF-8 whatever the
        // user's locale, so the character type is UTF-8 too (only LC_CTYPE: messages,
        // numbers and dates keep the C conventions).
        // Without C.UTF-8, the user's locale only if it is UTF-8: another encoding would turn
        // the names into wrong xn-- forms, "C" at least fails them visibly.
        if setlocale(LC_CTYPE, "C.UTF-8") == nil,
           setlocale(LC_CTYPE, "") == nil || String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" {
            _ = setlocale(LC_CTYPE, "C")
        }
        // With CURLOPT_NOSIGNAL libcurl no longer shields its TLS writes from SIGPIPE (a peer
        // that resets mid-request would kill the run), and a closed stdout must be an error
        // the command can handle (Console), not a silent death that leaves temp files.
        signal(SIGPIPE, SIG_IGN)
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }
}
