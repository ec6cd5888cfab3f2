import Foundation

/// Reads many files' metadata on all cores while handing results back in the
/// order of the input, a batch at a time (so output streams for a large library).
public enum MetadataBatch {
    /// One file's outcome.
    public struct Item: Sendable {
        public var path: String
        /// Size in bytes, when the file could be stat'ed.
        public var fileSize: Int64?
        public var result: Result<PhotoMetadata, MetadataError>
    }

    /// Calls `body` for every path, in order. `threads` readers run at once.
    public static func read(
        _ paths: [String], includeAllTags: Bool, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        batchSize: Int = 256, body: (Item) -> Void
    ) {
        read(paths, includeAllTags: includeAllTags, threads: threads, batchSize: batchSize, transform: { $0 }, body: body)
    }

    /// Like `read`, with `transform` (formatting, say) also run on the reader threads;
    /// `body` gets the transformed results in input order, on the calling thread.
    /// With `store`, `paths` are originals' paths in it (read by ranged requests from a
    /// remote store), and each item is named by the original's location.
    public static func read<Output>(
        _ paths: [String], store: OriginalStore? = nil, includeAllTags: Bool, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        batchSize: Int = 256, transform: @escaping @Sendable (Item) -> Output, body: (Output) -> Void
    ) {
        nonisolated(unsafe) let store = store
        var start = 0
        while start < paths.count {
            let batch = Array(paths[start..<min(start + batchSize, paths.count)])
            // Each worker writes only its own indexes: no two threads touch the same slot.
            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Output?>.allocate(capacity: batch.count)
            results.initialize(repeating: nil)
            defer {
                results.deinitialize()
                results.deallocate()
            }
            // ParallelLoop, not concurrentPerform: it goes on with the threads the system
            // allows (concurrentPerform waited forever for one under a limit of 1).
            // `transform` escapes for real: a loop thread may still hold it for a moment
            // after the loop has returned (withoutActuallyEscaping would trap then).
            ParallelLoop.run(count: batch.count, jobs: threads) { index in
                let item = store.map { readOne(batch[index], in: $0, includeAllTags: includeAllTags) }
                    ?? readOne(batch[index], includeAllTags: includeAllTags)
                results[index] = transform(item)
            }
            for result in results { if let result { body(result) } }
            start += batch.count
        }
    }

    /// One original of `store`.
    public static func readOne(_ path: String, in store: OriginalStore, includeAllTags: Bool) -> Item {
        let shown = store.location(of: path)
        let size = try? store.size(path: path)
        do {
            return Item(path: shown, fileSize: size ?? nil,
                        result: .success(try MetadataReader.read(store: store, path: path, includeAllTags: includeAllTags)))
        } catch let error as MetadataError {
            return Item(path: shown, fileSize: size ?? nil, result: .failure(error))
        } catch {
            return Item(path: shown, fileSize: size ?? nil, result: .failure(.readFailed(path: shown, reason: "\(error)")))
        }
    }

    public static func readOne(_ path: String, includeAllTags: Bool) -> Item {
        var info = stat()
        let size: Int64? = stat(path, &info) == 0 ? Int64(info.st_size) : nil
        do {
            return Item(path: path, fileSize: size, result: .success(try MetadataReader.read(path: path, includeAllTags: includeAllTags)))
        } catch let error as MetadataError {
            return Item(path: path, fileSize: size, result: .failure(error))
        } catch {
            return Item(path: path, fileSize: size, result: .failure(.readFailed(path: path, reason: "\(error)")))
        }
    }
}
