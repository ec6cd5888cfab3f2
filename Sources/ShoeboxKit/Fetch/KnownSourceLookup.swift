extension Catalog {
    /// What the catalog knows of `item`'s URL: the record under its recorded form (without
    /// a password), else, for a URL with a password, the record under the whole URL, which
    /// is how earlier versions of shoebox recorded it: such a URL is not fetched again.
    func source(of item: FetchItem) throws -> SourceRecord? {
        if let known = try source(url: item.recordedURL) { return known }
        return item.recordedURL == item.url ? nil : try source(url: item.url)
    }
}
