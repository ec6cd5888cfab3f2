import XCTest
@testable import ShoeboxKit

/// --limit-rate's run-wide budget, on a clock the test moves (no waiting).
final class RateBudgetTests: XCTestCase {
    func testTheBudgetFillsAtTheRateAndAnOverdraftIsPaidBackFirst() {
        let budget = RateBudget(bytesPerSecond: 1000, now: 100)
        XCTAssertFalse(budget.allows(now: 100), "nothing to spend at the start")
        XCTAssertTrue(budget.allows(now: 100.1))
        budget.spend(600)  // 100 available, 500 overdrawn
        XCTAssertFalse(budget.allows(now: 100.1))
        XCTAssertEqual(budget.secondsUntilAvailable(now: 100.1), 0.501, accuracy: 0.0001)
        XCTAssertFalse(budget.allows(now: 100.5))
        XCTAssertTrue(budget.allows(now: 100.61))
    }

    func testAnIdleRunSavesAtMostOneSecondsWorth() {
        let budget = RateBudget(bytesPerSecond: 1000, now: 0)
        XCTAssertTrue(budget.allows(now: 3600))
        budget.spend(1000)
        XCTAssertFalse(budget.allows(now: 3600), "an hour idle is no hour's worth of burst")
    }
}
