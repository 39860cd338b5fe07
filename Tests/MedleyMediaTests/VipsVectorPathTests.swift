import Foundation
import MedleyMedia
import XCTest

/// libvips' vector paths over liborc: off exactly when the liborc the process loaded is older than
/// 0.4.34, whose `orc_code_chunk_free` unlinks freed code without the global lock (orc commit e48fa54).
/// With items resized on several threads at once that corrupted the heap: `medley run` over the
/// real-world image subset aborted in malloc about once in 60 debug runs, and a run with glibc's
/// tcache off and freed memory poisoned crashed inside liborc reading a freed code chunk.
/// The version is read from what the loader mapped (`/proc/self/maps`: liborc 0.4.N is
/// `liborc-0.4.so.0.N.0`), not from Medley's own check.
final class VipsVectorPathTests: XCTestCase {
    func testVectorPathsAreOffExactlyWhenTheLoadedLiborcFreesCodeWithoutItsLock() throws {
        let enabled = Vips.vectorPathsEnabled
        // Read to its end: a /proc file says it is empty, so a read of its stated size gets nothing.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        XCTAssertTrue(maps.contains("libvips"), "the process's mappings were read")
        let disabledByUser = ProcessInfo.processInfo.environment["VIPS_NOVECTOR"] != nil
        guard let found = maps.range(of: #"liborc-0\.4\.so\.0\.[0-9]+\.[0-9]+"#, options: .regularExpression) else {
            // libvips 8.15 and later use highway, not liborc: nothing to work around.
            XCTAssertEqual(enabled, !disabledByUser, "without liborc, libvips' vector paths stay as libvips set them")
            return
        }
        let name = String(maps[found])
        let micro = try XCTUnwrap(Int(name.split(separator: ".")[4]), "the liborc micro version in \(name)")
        XCTAssertEqual(enabled, micro >= 34 && !disabledByUser,
                       "\(name) (liborc 0.4.\(micro)): libvips' vector paths must be \(micro >= 34 ? "on" : "off")")
    }
}
