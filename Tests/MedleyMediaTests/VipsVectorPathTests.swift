import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// libvips' vector paths over liborc, on several item threads at once. liborc before 0.4.34 (Debian 12
/// ships 0.4.33) keeps its code allocator's chunk list without the lock (fixed by orc commit e48fa54),
/// and libvips 8.14 compiles and frees liborc programs whenever a vertical reduction is built and
/// dropped — with Medley's operation cache off, every resize on every thread. `medley run` over the
/// real-world image subset aborted in malloc about once in 60 debug runs; a plain C program doing what
/// `testResizesOnFourThreadsAtOnceKeepTheHeapWhole` does crashed in most runs. Medley now makes
/// libvips' compiles and frees one at a time (CVipsShim/medley_orc.c) and keeps the vector paths on.
final class VipsVectorPathTests: XCTestCase {
    private var userTurnedVectorsOff: Bool { ProcessInfo.processInfo.environment["VIPS_NOVECTOR"] != nil }

    func testVectorPathsStayAsLibvipsSetsThem() {
        XCTAssertEqual(Vips.vectorPathsEnabled, !userTurnedVectorsOff,
                       "libvips' vector paths are on unless VIPS_NOVECTOR turns them off")
    }

    /// The liborc the loader mapped (read from /proc/self/maps, not from Medley), and a resize that
    /// compiles a program: the call must reach Medley's definitions, or the link did not export them.
    func testLibvipsCompilesAndFreesItsLiborcProgramsThroughMedleysLock() throws {
        guard let micro = LibOrc.microVersion else {
            throw XCTSkip("no liborc in this process (libvips 8.15 and later use highway)")
        }
        guard !userTurnedVectorsOff else { throw XCTSkip("VIPS_NOVECTOR is set: libvips compiles no programs") }
        let before = Vips.serialisedOrcCalls
        let column = [UInt8](repeating: 90, count: 8 * 40 * 3)
        _ = try VipsImage.fromPixels(column, width: 8, height: 40, bands: 3).resized(horizontal: 1, vertical: 1 / 2.5).pixels()
        XCTAssertGreaterThan(Vips.serialisedOrcCalls, before,
                             "liborc 0.4.\(micro): libvips' orc_program_compile did not go through Medley's lock")
    }

    /// Four threads each build and drop 1,500 vertical reductions of small uniform images (building one
    /// compiles its liborc program, dropping it frees the program) and run every tenth. Without the lock
    /// this corrupts the heap and the process aborts or crashes; with it every output run must be the
    /// input's level: Lanczos weights sum to one, so a uniform image resamples to itself.
    func testResizesOnFourThreadsAtOnceKeepTheHeapWhole() throws {
        try Vips.start()
        let threads = 4, rounds = 1500
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                let level = UInt8(truncatingIfNeeded: 20 + 7 * thread + round % 200)
                let scale = 1 / (2.05 + Double(round % 9) * 0.1)
                do {
                    let image = try VipsImage.fromPixels([UInt8](repeating: level, count: 4 * 24 * 3), width: 4, height: 24, bands: 3)
                    let reduced = try image.resized(horizontal: 1, vertical: scale)
                    guard round % 10 == 0 else { continue }
                    if let wrong = try reduced.pixels().first(where: { $0 != level }) {
                        failures.add("thread \(thread) round \(round): \(wrong) in a reduction of a uniform \(level)")
                    }
                } catch {
                    failures.add("thread \(thread) round \(round): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.all, [], "vertical reductions on \(threads) threads")
    }
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.lock(); if messages.count < 5 { messages.append(message) }; lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
}
