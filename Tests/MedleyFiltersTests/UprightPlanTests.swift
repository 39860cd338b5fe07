import MedleyFilters
import XCTest

/// `RenderPlan.forUprightInput`: for an input the export has already turned upright, `autoOrient` steps
/// over the input go (each would turn nothing), so a `resize` after one is the plan's first step and
/// shrinks on load; an `autoOrient` over another picture of the graph (whose file may carry its own
/// orientation) stays.
final class UprightPlanTests: XCTestCase {
    let resize = GeometryOperation.resize(width: 320, height: 320, mode: .aspectFit)

    func testAnAutoOrientOverTheInputGoesAndTheResizeBecomesTheFirstStep() {
        let plan = RenderPlan(.geometry(resize, of: .geometry(.orient, of: .source("input"))))
        guard case .orient? = plan.root.firstGeometry else { return XCTFail("before: the autoOrient is first") }
        guard case .resize(320, 320, .aspectFit, true, _)? = plan.forUprightInput.root.firstGeometry else {
            return XCTFail("after: the resize is first")
        }
        // Nothing but an autoOrient: nothing to do.
        guard case .source("input") = RenderPlan(.geometry(.orient, of: .source("input"))).forUprightInput.root else {
            return XCTFail("an autoOrient alone leaves the input")
        }
    }

    func testAnAutoOrientOverAnotherPictureStays() {
        let plan = RenderPlan(.geometry(.orient, of: .source("logo"))).forUprightInput
        guard case .geometry(.orient, .source("logo")) = plan.root else { return XCTFail("the logo's own orientation is applied") }
    }
}
