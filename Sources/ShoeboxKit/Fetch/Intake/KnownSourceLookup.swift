extension Catalog {
    /// What the catalog knows of `item`'s URL: the record under its recorded form (without
    /// a password), unless, for a URL with a password, only the record under the whole URL
    /// (as earlier versions of shoebox made it) names a copy: such a URL is not fetched again.
    func source(of item: FetchItem) throws -> SourceRecord? {
        let recorded = try source(url: item.recordedURL)
        guard recorded?.sha256 == nil, item.recordedURL != item.url,
              let legacy = try source(url: item.url), legacy.sha256 != nil else { return recorded }
        return legacy
    }
}
