import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// libvips' vector paths over liborc: off exactly when the liborc the process loaded is older than
/// 0.4.34, whose `orc_code_chunk_free` unlinks freed code without the global lock (orc commit e48fa54).
/// With items resized on several threads at once that corrupted the heap: `medley run` over the
/// real-world image subset aborted in malloc about once in 60 debug runs, and a run with glibc's
/// tcache off and freed memory poisoned crashed inside liborc reading a freed code chunk.
/// The version is read from what the loader mapped (`LibOrc`, from `/proc/self/maps`), not from
/// Medley's own check.
final class VipsVectorPathTests: XCTestCase {
    func testVectorPathsAreOffExactlyWhenTheLoadedLiborcFreesCodeWithoutItsLock() throws {
        let enabled = Vips.vectorPathsEnabled
        let disabledByUser = ProcessInfo.processInfo.environment["VIPS_NOVECTOR"] != nil
        guard let micro = LibOrc.microVersion else {
            // libvips 8.15 and later use highway, not liborc: nothing to work around.
            XCTAssertEqual(enabled, !disabledByUser, "without liborc, libvips' vector paths stay as libvips set them")
            return
        }
        let expected = !LibOrc.freesCodeUnlocked && !disabledByUser
        XCTAssertEqual(enabled, expected, "liborc 0.4.\(micro): libvips' vector paths must be \(expected ? "on" : "off")")
    }
}
