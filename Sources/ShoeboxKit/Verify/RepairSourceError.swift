/// Why one source could not repair an original: recorded as an attempt, and the next
/// source is tried.
struct RepairSourceError: Error {
    var reason: String
}
