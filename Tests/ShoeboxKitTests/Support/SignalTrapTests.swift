import Foundation
import XCTest
@testable import ShoeboxKit

/// The trap hands SIGINT and SIGTERM to its handler on its own thread; without
/// that thread it leaves them their default action, and so does it once gone.
final class SignalTrapTests: XCTestCase {
    private static func handlerIsDefault(_ number: Int32) -> Bool {
        var current = sigaction()
        sigaction(number, nil, &current)
        return current.__sigaction_handler.sa_handler == nil  // SIG_DFL is 0
    }

    func testSignalsReachTheHandlerOnItsThreadAndTheDefaultComesBack() {
        let received = LockedBox([Int32]())
        let twoSignals = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        let onCaller = ManagedAtomicFlag()
        do {
            let trap = SignalTrap { number in
                if pthread_equal(pthread_self(), caller) != 0 { onCaller.set() }
                received.update { $0.append(number) }
                twoSignals.signal()
            }
            // Sent only with the trap in place: otherwise they would end the test run.
            guard !Self.handlerIsDefault(SIGINT), !Self.handlerIsDefault(SIGTERM) else {
                return XCTFail("the trap installed no handler")
            }
            kill(getpid(), SIGTERM)
            XCTAssertEqual(twoSignals.wait(timeout: .now() + 10), .success)
            kill(getpid(), SIGINT)
            XCTAssertEqual(twoSignals.wait(timeout: .now() + 10), .success)
            withExtendedLifetime(trap) {}
        }
        XCTAssertEqual(received.current, [SIGTERM, SIGINT])
        XCTAssertFalse(onCaller.isSet, "the handler runs on the trap's thread")
        XCTAssertTrue(Self.handlerIsDefault(SIGINT) && Self.handlerIsDefault(SIGTERM), "default action restored")
    }

    func testWithoutItsThreadTheTrapLeavesTheDefaultAction() {
        let trap = SignalTrap(launcher: .refusing(after: 0)) { _ in XCTFail("no handler without a thread") }
        XCTAssertTrue(Self.handlerIsDefault(SIGINT) && Self.handlerIsDefault(SIGTERM),
                      "an interrupted run ends at once, as without a trap")
        withExtendedLifetime(trap) {}
    }
}
