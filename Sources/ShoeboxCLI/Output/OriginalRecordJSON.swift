import ShoeboxKit

/// An original's catalogued metadata as JSON, written directly (as `FetchResultJSON`): the
/// `metadata` object of `fetch --json`, and each line of `list --json`, which is the same
/// object with the original's identity and storage keys beside it.
enum OriginalRecordJSON {
    /// fetch's `metadata` object.
    static func metadata(_ original: OriginalRecord) -> String {
        JSONText.line(metadataMembers(original))
    }

    /// One `list --json` line: the `metadata` keys, and `added_at`, `bytes`, `content_type`,
    /// `path` and `sha256`, keys in sorted order as everywhere else.
    /// With `sources` (`list --sources`): a `sources` array too, every URL that gave these
    /// bytes with its first and latest fetch, the most recent first.
    static func listed(_ original: OriginalRecord, sources: [SourceVersion]? = nil) -> String {
        var members = metadataMembers(original) + [
            ("added_at", JSONText.string(original.addedAt)),
            ("bytes", String(original.bytes)),
            ("content_type", JSONText.string(original.contentType)),
            ("path", JSONText.string(original.path)),
            ("sha256", JSONText.string(original.sha256)),
        ]
        if let sources {
            members.append(("sources", "[" + sources.map { version in
                JSONText.line([
                    ("final_url", text(version.finalURL)),
                    ("first_fetched_at", JSONText.string(version.firstFetchedAt)),
                    ("last_fetched_at", JSONText.string(version.lastFetchedAt)),
                    ("url", JSONText.string(version.url)),
                ])
            }.joined(separator: ",") + "]"))
        }
        return JSONText.line(members.sorted { $0.0 < $1.0 })
    }

    /// The keys of fetch's `metadata` object, sorted; `gps` is null unless both latitude and longitude are known.
    static func metadataMembers(_ original: OriginalRecord) -> [(String, String)] {
        var gps = "null"
        if let latitude = original.gpsLatitude, let longitude = original.gpsLongitude {
            gps = JSONText.line([
                ("altitude", original.gpsAltitude.map(JSONText.number) ?? "null"),
                ("latitude", JSONText.number(latitude)),
                ("longitude", JSONText.number(longitude)),
            ])
        }
        return [
            ("dated_by", text(original.datedBy?.rawValue)),
            ("gps", gps),
            ("height", integer(original.height)),
            ("lens", text(original.namedLens)),
            ("make", text(original.make)),
            ("model", text(original.model)),
            ("orientation", integer(original.orientation)),
            ("taken_at", text(original.takenAt)),
            ("width", integer(original.width)),
        ]
    }

    private static func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }

    private static func integer<Number: BinaryInteger>(_ value: Number?) -> String { value.map { String($0) } ?? "null" }
}
