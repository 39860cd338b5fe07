import Foundation
import XCTest
@testable import MedleyCore

/// Contested output names go to the item earlier in ingest order, whichever asks first, and a
/// failed item releases its name. The later item asks on another thread, which may run before
/// or after the earlier one: the outcome must not depend on it.
final class OutputClaimsTests: XCTestCase {
    /// Item 1 claims "out/x" on a thread of its own; then item 0 claims it and finishes.
    func contest(earlierKeeps keep: Bool) -> (earlier: String?, later: String?) {
        let claims = OutputClaims()
        claims.begin(input: "in/a", index: 0)
        claims.begin(input: "in/b", index: 1)
        final class Box: @unchecked Sendable { var value: String?? }
        let later = Box(), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            later.value = .some(claims.claim("out/x", for: "in/b"))
            claims.finish(input: "in/b", index: 1, keep: later.value! == nil)
            done.signal()
        }
        let earlier = claims.claim("out/x", for: "in/a")
        claims.finish(input: "in/a", index: 0, keep: keep)
        done.wait()
        return (earlier, later.value ?? "never answered")
    }

    func testTheEarlierItemWinsWhoeverAsksFirst() {
        for _ in 0..<50 {
            let outcome = contest(earlierKeeps: true)
            XCTAssertNil(outcome.earlier)
            XCTAssertEqual(outcome.later, "in/a")
        }
    }

    func testAFailedItemReleasesItsName() {
        for _ in 0..<50 {
            let outcome = contest(earlierKeeps: false)
            XCTAssertNil(outcome.earlier)
            XCTAssertNil(outcome.later, "in/b takes the name in/a gave up")
        }
    }

    func testSettledClaimsAndCovers() {
        let claims = OutputClaims()
        claims.begin(input: "in/a", index: 0)
        XCTAssertNil(claims.claim("out/x", for: "in/a"))
        XCTAssertNil(claims.claim("out/x", for: "in/a"), "already this input's")
        claims.finish(input: "in/a", index: 0, keep: true)
        claims.begin(input: "in/b", index: 1)
        XCTAssertEqual(claims.claim("out/x", for: "in/b"), "in/a")
        XCTAssertTrue(claims.claimNow("out/cover.jpg", for: "in/b"))
        XCTAssertFalse(claims.claimNow("out/cover.jpg", for: "in/c"))
        XCTAssertFalse(claims.claimNow("out/x", for: "in/c"))
        claims.finish(input: "in/b", index: 1, keep: false)
    }
}
