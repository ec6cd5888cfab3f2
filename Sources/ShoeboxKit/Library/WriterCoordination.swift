/// Keeps two writers out of one library: held from the moment it is made until it is
/// released (or its holder dies). `LibraryLock` (an flock on LIBRARY/.lock) is the
/// embedded default; a shared backend that coordinates writers itself supplies its own.
public protocol WriterCoordination: AnyObject {}

extension LibraryLock: WriterCoordination {}
