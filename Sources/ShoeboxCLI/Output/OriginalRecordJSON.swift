import ShoeboxKit

/// An original's catalogued metadata as JSON, written directly (as `FetchResultJSON`): the
/// `metadata` object of `fetch --json`, and each line of `list --json`, which is the same
/// object with the original's identity and storage keys beside it.
///
/// Written member by member into one string, keys in sorted order as everywhere else (the
/// order is fixed, so nothing is sorted at run time): `list --json` writes a million of them.
enum OriginalRecordJSON {
    /// fetch's `metadata` object.
    static func metadata(_ original: OriginalRecord) -> String {
        var object = Writer()
        object.metadata(original)
        return object.finish()
    }

    /// One `list --json` line: the `metadata` keys, and `added_at`, `bytes`, `content_type`,
    /// `path` and `sha256`, keys in sorted order as everywhere else.
    /// With `sources` (`list --sources`): a `sources` array too, every URL that gave these
    /// bytes with its first and latest fetch, the most recent first.
    static func listed(_ original: OriginalRecord, sources: [SourceVersion]? = nil) -> String {
        var object = Writer()
        object.member("added_at", JSONText.string(original.addedAt))
        object.member("bytes", String(original.bytes))
        object.member("content_type", JSONText.string(original.contentType))
        object.metadata(original) { object in
            object.member("path", JSONText.string(original.path))
            object.member("sha256", JSONText.string(original.sha256))
            if let sources {
                object.member("sources", "[" + sources.map { version in
                    JSONText.line([
                        ("final_url", text(version.finalURL)),
                        ("first_fetched_at", JSONText.string(version.firstFetchedAt)),
                        ("last_fetched_at", JSONText.string(version.lastFetchedAt)),
                        ("url", JSONText.string(version.url)),
                    ])
                }.joined(separator: ",") + "]")
            }
        }
        return object.finish()
    }

    /// The members appended in order to one string.
    private struct Writer {
        private var out = "{"

        init() { out.reserveCapacity(400) }

        mutating func member(_ key: StaticString, _ value: String) {
            if out.utf8.count > 1 { out += "," }
            out += "\""
            out += key.description
            out += "\":"
            out += value
        }

        /// The keys of fetch's `metadata` object, sorted; `gps` is null unless both latitude and
        /// longitude are known; `exposure` (seconds, f-number, millimetres, ISO) and `lens` are null
        /// when none is named or it is not known. `middle`
        /// writes the caller's keys that sort between `orientation` and `taken_at`.
        mutating func metadata(_ original: OriginalRecord, _ middle: (inout Writer) -> Void = { _ in }) {
            member("dated_by", text(original.datedBy?.rawValue))
            var exposure = "null"
            if let values = original.exposureValues {
                exposure = "{\"exposure_time\":" + (values.time.map(JSONText.number) ?? "null")
                    + ",\"f_number\":" + (values.fNumber.map(JSONText.number) ?? "null")
                    + ",\"focal_length\":" + (values.focalLength.map(JSONText.number) ?? "null")
                    + ",\"iso\":" + (values.iso.map(String.init) ?? "null") + "}"
            }
            member("exposure", exposure)
            var gps = "null"
            if let latitude = original.gpsLatitude, let longitude = original.gpsLongitude {
                gps = "{\"altitude\":" + (original.gpsAltitude.map(JSONText.number) ?? "null") + ",\"latitude\":" + JSONText.number(latitude)
                    + ",\"longitude\":" + JSONText.number(longitude) + "}"
            }
            member("gps", gps)
            member("height", integer(original.height))
            member("lens", text(original.namedLens))
            member("make", text(original.make))
            member("model", text(original.model))
            member("orientation", integer(original.orientation))
            middle(&self)
            member("taken_at", text(original.takenAt))
            member("width", integer(original.width))
        }

        mutating func finish() -> String { out + "}" }

        private func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }

        private func integer<Number: BinaryInteger>(_ value: Number?) -> String { value.map { String($0) } ?? "null" }
    }

    private static func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }
}
