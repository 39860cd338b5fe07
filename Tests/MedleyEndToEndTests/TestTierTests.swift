import Foundation
import MedleyTestSupport
import XCTest

/// The test tiers (Tests/tiers/fast.txt and slow.txt, read by scripts/test.sh) name every test
/// class of the bundle exactly once; the bundle's own `--list-tests` is the list of classes.
final class TestTierTests: XCTestCase {
    /// The classes a tier file names (its first column; `#` comments and blank lines skipped).
    func classes(inTier name: String) throws -> [String] {
        let text = try String(contentsOfFile: Tool.packageRoot + "/Tests/tiers/\(name).txt", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let word = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?
                .split(separator: " ").first.map(String.init)
            return word?.isEmpty == false ? word : nil
        }
    }

    func testEveryTestClassIsInExactlyOneTier() throws {
        // This process is the test bundle; asked to list its tests, it names Module.Class/test.
        let bundle = CommandLine.arguments[0]
        let listing = try ProcessRunner.run(bundle, ["--list-tests"], timeLimit: 300)
        XCTAssertEqual(listing.status, 0)
        let bundleClasses = Set(String(decoding: listing.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            guard line.contains("/"), let name = line.split(separator: "/").first else { return nil }
            return String(name)
        })
        XCTAssertGreaterThan(bundleClasses.count, 100, "the listing names the bundle's classes")
        XCTAssertTrue(bundleClasses.contains("MedleyEndToEndTests.TestTierTests"))

        let fast = try classes(inTier: "fast"), slow = try classes(inTier: "slow")
        XCTAssertEqual(fast.count, Set(fast).count, "a class named twice in fast.txt")
        XCTAssertEqual(slow.count, Set(slow).count, "a class named twice in slow.txt")
        XCTAssertEqual(Set(fast).intersection(slow), [], "in both tiers")
        XCTAssertEqual(bundleClasses.subtracting(fast).subtracting(slow).sorted(), [], "in no tier: add to Tests/tiers/fast.txt or slow.txt")
        XCTAssertEqual(Set(fast).union(slow).subtracting(bundleClasses).sorted(), [], "in a tier but not a test class")
        XCTAssertTrue(fast.contains("MedleyEndToEndTests.TestTierTests"), "this check is in the developers' loop")
    }
}

/// `ProcessRunner`, which every peer tool and medley call of the tests goes through: its results,
/// and its time limit, the guard that keeps one hung program from eating CI's time.
final class ProcessRunnerTests: XCTestCase {
    func testAProgramWithinItsLimitGivesItsOutputAndStatus() throws {
        let output = try ProcessRunner.run("/bin/sh", ["-c", "printf out; printf err >&2; exit 3"])
        XCTAssertEqual(output.status, 3)
        XCTAssertEqual(output.reason, .exit)
        XCTAssertEqual(String(decoding: output.stdout, as: UTF8.self), "out")
        XCTAssertEqual(String(decoding: output.stderr, as: UTF8.self), "err")
    }

    /// A program that hangs — here a shell whose child (not the shell itself) holds its output open —
    /// is killed with its whole process group at the limit, and the call throws instead of waiting
    /// for ever. Killing the shell alone would leave `sleep` holding the pipe: the call would hang.
    func testAProgramPastItsLimitIsKilledWithItsChildren() throws {
        let folder = NSTemporaryDirectory() + "medley-runner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pidFile = folder + "/child.pid"
        XCTAssertThrowsError(try ProcessRunner.run("/bin/sh", ["-c", "sleep 3600 & echo $! > '\(pidFile)'; wait"], timeLimit: 1)) { error in
            XCTAssertTrue(error is ProcessRunner.TimedOut, "\(error)")
        }
        // The child closed its end of the pipe (the call returned), so it is exiting: the kernel closes a
        // killed process's files before it becomes a zombie, so under load it may still show R (running its
        // exit) for a moment. Waited for by its state, not by time: a `sleep` that was not killed stays S.
        let pid = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        func state() -> String? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let field = stat.split(separator: ")").last?.split(separator: " ").first else { return nil }
            return String(field)
        }
        var seen = state()
        while let now = seen, ["R", "D"].contains(now) {
            sched_yield()
            seen = state()
        }
        if let seen { XCTAssertTrue(["Z", "X"].contains(seen), "sleep \(pid) is still \(seen)") }
    }
}
