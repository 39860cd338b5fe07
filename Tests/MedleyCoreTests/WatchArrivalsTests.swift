@testable import MedleyCore
import XCTest

/// The rules by which `medley watch` takes a file (`Arrivals`) and reads `--settle`, on a clock
/// and file states the test gives.
final class WatchArrivalsTests: XCTestCase {
    typealias State = Arrivals.FileState

    func testClosedOrMovedInFilesAreTakenAtOnceInPathOrder() {
        var arrivals = Arrivals(settle: 2)
        arrivals.written("/in/b.png", at: 0)
        arrivals.completed("/in/b.png")
        arrivals.completed("/in/a.png")
        XCTAssertEqual(arrivals.take(at: 0) { _ in State(size: 1, modified: 1) }, ["/in/a.png", "/in/b.png"])
        XCTAssertTrue(arrivals.isEmpty)
    }

    func testAFileNoOneClosesIsTakenOnlyAfterItsStateHeldForTheSettleTime() {
        var arrivals = Arrivals(settle: 2)
        var state = State(size: 100, modified: 5)
        arrivals.written("/in/a.wav", at: 10)
        XCTAssertEqual(arrivals.take(at: 10) { _ in state }, [], "first look: state noted")
        XCTAssertEqual(arrivals.take(at: 11.9) { _ in state }, [], "1.9 s < 2 s")
        state = State(size: 200, modified: 6)  // grew without an event reaching us yet
        XCTAssertEqual(arrivals.take(at: 12.5) { _ in state }, [], "changed: the settle time starts again")
        XCTAssertEqual(arrivals.take(at: 14.4) { _ in state }, [])
        XCTAssertEqual(arrivals.take(at: 14.5) { _ in state }, ["/in/a.wav"], "2 s unchanged")
    }

    func testAWriteAfterCloseMakesItWaitAgainAndADeletedFileIsForgotten() {
        var arrivals = Arrivals(settle: 1)
        arrivals.completed("/in/a.png")
        arrivals.written("/in/a.png", at: 3)
        XCTAssertEqual(arrivals.take(at: 3) { _ in State(size: 1, modified: 1) }, [], "written again: not complete")
        arrivals.written("/in/gone.png", at: 3)
        arrivals.written("/in/sub/x.png", at: 3)
        arrivals.gone("/in/sub")
        XCTAssertEqual(Set(arrivals.pending.keys), ["/in/a.png", "/in/gone.png"], "a folder gone takes what was below it")
        XCTAssertEqual(arrivals.take(at: 10) { $0 == "/in/gone.png" ? nil : State(size: 1, modified: 1) }, ["/in/a.png"],
                       "a.png settled since 3 s; gone.png is no longer a file")
        XCTAssertTrue(arrivals.isEmpty, "gone.png forgotten")
    }

    func testAnEmptyFileClosedWaitsForTheSettleTime() {
        var arrivals = Arrivals(settle: 2)
        arrivals.completed("/in/empty.png")
        let empty = State(size: 0, modified: 1)
        XCTAssertEqual(arrivals.take(at: 5) { _ in empty }, [], "closed empty: not taken at once")
        XCTAssertEqual(arrivals.take(at: 6.9) { _ in empty }, [])
        XCTAssertEqual(arrivals.take(at: 7) { _ in empty }, ["/in/empty.png"], "still empty after the settle time")
    }

    func testSettleDurations() {
        XCTAssertEqual(WatchSettings.duration("500ms"), 0.5)
        XCTAssertEqual(WatchSettings.duration("2s"), 2)
        XCTAssertEqual(WatchSettings.duration("1.5s"), 1.5)
        XCTAssertEqual(WatchSettings.duration("1m"), 60)
        for bad in ["", "2", "s", "0s", "-1s", "2h", "1e3s", "nans", "infs", "1441m", " 2s"] {
            XCTAssertNil(WatchSettings.duration(bad), bad)
        }
    }
}
