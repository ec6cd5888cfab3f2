/// The order `shoebox list` prints originals in (`--sort`); ties go by library path.
public enum OriginalSort: String, Sendable, CaseIterable {
    /// Capture time (`taken_at`, as written); originals without one come after all dated ones.
    case taken
    /// When the original was stored (`added_at`).
    case added
    /// Library path (byte order).
    case path
    /// Size in bytes.
    case size
}
