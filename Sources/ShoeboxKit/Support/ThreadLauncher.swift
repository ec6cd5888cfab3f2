import Foundation

/// Starts detached threads, and says when the system refuses one (a pids or
/// process limit, as in a container, or no memory for its stack). Foundation's
/// `Thread.start` ignores that failure, so work handed to a thread that never
/// started was waited for forever: `verify -j 16` under a limit of 3 hung.
/// Every caller has a way on without the thread (the calling thread does the work).
struct ThreadLauncher: Sendable {
    typealias Body = @Sendable () -> Void
    private let launch: @Sendable (_ name: String, _ stackSize: Int?, _ body: @escaping Body) -> Bool

    /// Real threads (pthread_create).
    static let system = ThreadLauncher(launch: startPOSIXThread)

    /// Starts the first `allowed` threads for real and refuses the rest, as a
    /// system at its limit would (for the tests of the fallbacks).
    static func refusing(after allowed: Int) -> ThreadLauncher {
        let count = ManagedCounter()
        return ThreadLauncher { name, stackSize, body in
            count.next() < allowed && startPOSIXThread(name: name, stackSize: stackSize, body)
        }
    }

    /// Runs `body` on a new thread; false (and `body` is dropped) when none could be started.
    /// `name` shows in ps, top and gdb when it has at most 15 bytes (Linux drops longer ones).
    func start(name: String, stackSize: Int? = nil, _ body: @escaping Body) -> Bool {
        launch(name, stackSize, body)
    }

    private final class Context {
        let name: String
        let body: Body

        init(name: String, body: @escaping Body) {
            self.name = name
            self.body = body
        }
    }

    private static func startPOSIXThread(name: String, stackSize: Int?, _ body: @escaping Body) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Context(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(&thread, &attributes, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            Thread.current.name = context.name
            context.body()
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            return false
        }
        return true
    }
}
