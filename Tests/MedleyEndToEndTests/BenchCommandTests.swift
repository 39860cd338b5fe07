import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `medley bench --quick`: every case runs against its peers, and what it writes parses. Every
/// peer whose programs scripts/setup.sh installs is measured — all eight of them, which
/// testSetupInstallsEveryPeer checks against setup.sh's package list.
/// (The numbers themselves are never asserted: a slow machine is not a failure.)
final class BenchCommandTests: EndToEndCase {
    /// Each case's peers, in order, with the programs they run and the Debian package each
    /// program comes from.
    static let peers: [(benchCase: String, tool: String, programs: [String])] = [
        ("sepia", "vips recomb", ["parallel", "vips"]),
        ("sepia", "ImageMagick", ["parallel", "convert"]),
        ("thumbnails", "vipsthumbnail", ["parallel", "vipsthumbnail"]),
        ("blur", "vips gaussblur", ["vips"]),
        ("aac", "ffmpeg", ["parallel", "ffmpeg"]),
        ("resample", "sndfile-resample", ["parallel", "sndfile-resample"]),
        ("resample", "SoX", ["parallel", "sox"]),
        ("probe", "exiftool", ["exiftool"]),
    ]
    static let packages = [
        "parallel": "parallel", "vips": "libvips-tools", "vipsthumbnail": "libvips-tools", "convert": "imagemagick",
        "ffmpeg": "ffmpeg", "sndfile-resample": "samplerate-programs", "sox": "sox", "exiftool": "libimage-exiftool-perl",
    ]

    /// The Debian packages in scripts/setup.sh's package lists (RUN_PACKAGES, what Medley needs, and
    /// TEST_PACKAGES, what tests and benchmarks call).
    func setupPackages() throws -> Set<String> {
        let script = try String(contentsOfFile: Tool.packageRoot + "/scripts/setup.sh", encoding: .utf8)
        let lists = script.components(separatedBy: "PACKAGES=(").dropFirst().compactMap { $0.components(separatedBy: "\n)").first }
        XCTAssertFalse(lists.isEmpty, "setup.sh has a PACKAGES=( … ) list")
        let words = lists.joined(separator: "\n").split(separator: "\n").flatMap { line in
            (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").split(separator: " ").map(String.init)
        }
        return Set(words)
    }

    func onPath(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    func testSetupInstallsEveryPeer() throws {
        let installed = try setupPackages()
        XCTAssertTrue(installed.contains("time"), "GNU time measures every command")
        for peer in Self.peers {
            for program in peer.programs {
                let package = try XCTUnwrap(Self.packages[program], program)
                XCTAssertTrue(installed.contains(package), "\(peer.tool): setup.sh must install \(package) for \(program)")
                XCTAssertTrue(onPath(program), "\(peer.tool): \(program) is not on PATH; run scripts/setup.sh")
            }
        }
    }

    func testQuickBenchRunsEveryCaseAndWritesParsableResults() throws {
        let out = work + "/bench"
        let result = try Tool.medley(["bench", "--quick", "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)

        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/results.json"))) as? [String: Any])
        let cases = try XCTUnwrap(json["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.compactMap { $0["name"] as? String }, ["sepia", "thumbnails", "blur", "aac", "resample", "probe"])
        let repeats = try XCTUnwrap(json["repeats"] as? Int)
        XCTAssertEqual(repeats, 3)
        let installed = try setupPackages()
        // A peer whose programs setup.sh installs must be measured; any other is measured exactly
        // when its programs are on PATH (none today: testSetupInstallsEveryPeer).
        func measurable(_ programs: [String]) -> Bool {
            programs.allSatisfy { Self.packages[$0].map(installed.contains) ?? false } || programs.allSatisfy(onPath)
        }
        var measuredPeers = 0
        for benchCase in cases {
            let name = benchCase["name"] as? String ?? "?"
            let medley = try XCTUnwrap(benchCase["medley"] as? [String: Any])
            let seconds = try XCTUnwrap(medley["seconds"] as? [Double])
            XCTAssertEqual(seconds.count, repeats)
            XCTAssertTrue(seconds.allSatisfy { $0 >= 0 })
            XCTAssertGreaterThan(medley["peakMiB"] as? Double ?? 0, 1, "peak memory measured")
            let peers = try XCTUnwrap(benchCase["peers"] as? [[String: Any]])
            let expected = Self.peers.filter { $0.benchCase == name }
            XCTAssertEqual(peers.map { $0["tool"] as? String ?? "?" }, expected.map(\.tool), name)
            for (peer, wanted) in zip(peers, expected) {
                if !measurable(wanted.programs), let missing = wanted.programs.first(where: { !onPath($0) }) {
                    XCTAssertEqual(peer["skipped"] as? String, "\(missing) is not installed", "\(name): \(wanted.tool)")
                } else {
                    XCTAssertNil(peer["skipped"], "\(name): \(wanted.tool)")
                    XCTAssertEqual((peer["seconds"] as? [Double])?.count, repeats, "\(name): \(wanted.tool)")
                    measuredPeers += 1
                }
            }
        }
        XCTAssertEqual(measuredPeers, Self.peers.filter { measurable($0.programs) }.count)

        // The table on stdout and in results.md: one row per tool, a ratio per measured peer.
        let table = try String(contentsOfFile: out + "/results.md", encoding: .utf8)
        XCTAssertTrue(result.stdout.contains("| case | tool | median s | range s | peak MiB | Medley ÷ tool |"))
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| case") }
        XCTAssertEqual(rows.filter { $0.contains("**medley**") }.count, cases.count)
        XCTAssertEqual(rows.filter { $0.hasSuffix("** |") && !$0.contains("**medley**") }.count, measuredPeers)

        // The chart is well-formed SVG with a bar per measured peer.
        final class Counter: NSObject, XMLParserDelegate {
            var bars = 0, root = ""
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                if root.isEmpty { root = name }
                if name == "rect", attributes["fill"] != "#fff" { bars += 1 }
            }
        }
        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: out + "/chart.svg")))
        let counter = Counter()
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(counter.root, "svg")
        XCTAssertEqual(counter.bars, measuredPeers)
    }
}
