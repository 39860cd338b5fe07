import Foundation
import MedleyCore
import XCTest

/// `resize`'s `crop:` (issue 30) as validation sees it, before any image is read: a word that is no
/// crop fails at its FILE:LINE:COL with a suggestion, the words sharp and ImageMagick use pass, and a
/// crop named with a mode that does not cover the box is an error (a crop asked for and not done
/// would be lost silently). Positions are counted by hand from the text.
final class ResizeCropValidationTests: PipelineTextCase {
    /// The diagnostics of a one-job pipeline whose one filter is `resize: <resize>` (line 6).
    func diagnostics(resize: String) -> [String] {
        diagnostics("""
            version: 1
            jobs:
              - name: crops
                ingest: { from: [photos] }
                filters:
                  - resize: \(resize)
                export: { to: out }
            """)
    }

    /// The nine gravities as sharp's `position` names them (https://sharp.pixelplumbing.com/api-resize:
    /// "position: centre, north, northeast, east, southeast, south, southwest, west, northwest"), its
    /// spelling `center`, and libvips' two strategies are all crops.
    func testEveryCropSharpAndLibvipsNameIsAccepted() {
        let words = ["centre", "center", "north", "northeast", "east", "southeast", "south", "southwest", "west",
                     "northwest", "attention", "entropy"]
        for word in words {
            XCTAssertEqual(diagnostics(resize: "{ width: 80, height: 60, mode: aspectFill, crop: \(word) }"), [], word)
        }
    }

    /// A misspelt crop is refused at the value, with the crop it was probably meant to be.
    func testAnUnknownCropFailsAtItsPlaceWithASuggestion() {
        let found = diagnostics(resize: "{ width: 80, height: 60, mode: aspectFill, crop: atention }")
        XCTAssertEqual(found.count, 1, found.joined(separator: "\n"))
        // Line 6 is `      - resize: { width: 80, height: 60, mode: aspectFill, crop: atention }`: the value
        // `atention` starts at column 66.
        XCTAssertTrue(found.first?.hasPrefix("p.yaml:6:66: error:") ?? false, found.joined(separator: "\n"))
        XCTAssertTrue(found.first?.contains("did you mean 'attention'") ?? false, found.joined(separator: "\n"))
        let gravity = diagnostics(resize: "{ width: 80, height: 60, mode: aspectFill, crop: nothwest }")
        XCTAssertTrue(gravity.first?.contains("did you mean 'northwest'") ?? false, gravity.joined(separator: "\n"))
    }

    /// `crop` with aspectFit (the default), fill or none names a crop that would not happen: an error
    /// at the resize, saying what to do.
    func testACropWithoutAspectFillIsAnError() {
        for mode in ["", "mode: aspectFit, ", "mode: fill, ", "mode: none, "] {
            let found = diagnostics(resize: "{ width: 80, height: 60, \(mode)crop: north }")
            XCTAssertEqual(found.count, 1, "\(mode): " + found.joined(separator: "\n"))
            // At the filter's name, `resize`, column 9 of line 6.
            XCTAssertTrue(found.first?.hasPrefix("p.yaml:6:9: error:") ?? false, found.joined(separator: "\n"))
            XCTAssertTrue(found.first?.contains("applies only to mode: aspectFill") ?? false, found.joined(separator: "\n"))
            XCTAssertTrue(found.first?.contains("add 'mode: aspectFill'") ?? false, found.joined(separator: "\n"))
        }
        // Without a crop, every mode is as it was.
        XCTAssertEqual(diagnostics(resize: "{ width: 80, height: 60, mode: fill }"), [])
    }
}
