import Foundation
import XCTest
@testable import MedleyCore

/// An item's outcome as a value: the output name checked once when it is made, and each outcome's
/// manifest fields. Expected lines are written out by hand from the fields docs/runs.md ("Manifests") lists.
final class ItemOutcomeTests: XCTestCase {
    func testAnOutputNameIsCheckedWhenMadeAndKeepsItsExtensionAndFolders() throws {
        let name = try OutputName("music/A Band/01 Song.M4A", root: "/srv/out")
        XCTAssertEqual(name.ext, "m4a")
        XCTAssertEqual(name.components, ["music", "A Band", "01 Song.M4A"])
        XCTAssertEqual(name.path, "/srv/out/music/A Band/01 Song.M4A")
        XCTAssertEqual(try OutputName("a//b/c", root: "out").components, ["a", "b", "c"])
        XCTAssertEqual(try OutputName("a/noext", root: "out").ext, "")
        XCTAssertEqual(try OutputName("a.tar.gz", root: "out").ext, "gz")

        for inside in [".medley/manifest-x.jsonl", "./.Medley/state.sqlite", "/.MEDLEY/x"] {
            XCTAssertThrowsError(try OutputName(inside, root: "/srv/out"), inside) { error in
                let failure = error as? ItemFailure
                XCTAssertEqual(failure?.kind, .output)
                XCTAssertEqual(failure?.reason, "refused to write /srv/out/\(inside): it is inside /srv/out/.medley, Medley's own "
                               + "folder (manifest, run state, temporary files); change export.name or the values it uses")
            }
        }
        XCTAssertThrowsError(try OutputName("//", root: "out")) { error in
            XCTAssertEqual((error as? ItemFailure)?.reason, "an empty output name")
        }
        // A folder merely named like it, deeper down, is the user's.
        XCTAssertEqual(try OutputName("x/.medley/y.jpg", root: "out").components.count, 3)
    }

    func testEachOutcomeSetsItsOwnManifestFields() {
        let start = ManifestRecord(job: "j", item: "a.jpg", input: "/in/a.jpg", status: .failed)
        var written = WrittenOutput(output: "/out/a.jpg", bytes: 1234)
        written.warnings = ["w"]
        var entry = start
        entry.warnings = ["from the tag stage"]
        entry.settle(.written(written))
        XCTAssertEqual(entry.line, #"{"job":"j","item":"a.jpg","input":"/in/a.jpg","status":"succeeded","output":"/out/a.jpg","#
                       + #""bytes":1234,"warnings":["from the tag stage","w"]}"#)

        entry = start
        entry.settle(.skipped(output: "/out/a.jpg", .dryRun))
        XCTAssertEqual(entry.line, #"{"job":"j","item":"a.jpg","input":"/in/a.jpg","status":"skipped","output":"/out/a.jpg","error":"dry run"}"#)
        entry = start
        entry.settle(.skipped(output: "/out/a.jpg", .exists))
        XCTAssertEqual(entry.error, "output exists (overwrite: skip)")

        entry = start
        entry.output = "/out/a.jpg"
        entry.settle(.excluded(.where))
        XCTAssertEqual(entry.line, #"{"job":"j","item":"a.jpg","input":"/in/a.jpg","status":"excluded","error":"not selected by where"}"#)

        entry = start
        entry.settle(.ignored("not an image, audio or movie file"))
        XCTAssertEqual(entry.status, .ignored)
        XCTAssertEqual(entry.error, "not an image, audio or movie file")

        entry = start
        entry.output = "/out/a.jpg"
        entry.bytes = 9
        entry.settle(.failed(ItemFailure(.decode, "bad"), reason: "bad (as said)"))
        XCTAssertEqual(entry.line, #"{"job":"j","item":"a.jpg","input":"/in/a.jpg","status":"failed","error":"bad (as said)"}"#)
    }
}
