import Foundation
import XCTest

/// The movie truncation allowance (0.5 s, `Movie.truncationSlack`) on a long file (tracker
/// issue 14): a complete 60 s movie with H.264 video and AAC audio — whose audio ends a few
/// milliseconds off the video, as AAC's padding makes it — re-encodes without a failure, and a
/// copy cut 2 s before its end fails as truncated. Lengths and cut points come from ffprobe.
final class MovieTruncationLongTests: EndToEndCase {
    func testLongCompleteMovieReencodesAndACopyCutTwoSecondsShortFails() throws {
        let source = work + "/in", whole = source + "/whole.mp4"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let made = try Tool.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-f", "lavfi", "-i", "sine=f=440:r=44100",
            "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "32k",
            "-movflags", "+faststart", whole])
        XCTAssertEqual(made.status, 0, made.stderr)
        func probe(_ path: String, _ arguments: [String]) throws -> String {
            let result = try Tool.run("ffprobe", ["-v", "error"] + arguments + ["-of", "csv=p=0", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let declared = try XCTUnwrap(Double(try probe(whole, ["-show_entries", "format=duration"])))
        XCTAssertEqual(declared, 60, accuracy: 0.1)

        // The cut: every byte from the first packet (of either stream) at or after 58 s is dropped,
        // so the index (moov, at the front) still declares 60 s.
        let packets = try probe(whole, ["-show_entries", "packet=pts_time,pos"]).split(separator: "\n")
            .compactMap { line -> (time: Double, position: Int)? in
                let fields = line.split(separator: ",")
                guard fields.count >= 2, let time = Double(fields[0]), let position = Int(fields[1]) else { return nil }
                return (time, position)
            }
        let cut = try XCTUnwrap(packets.filter { $0.time >= 58 }.map(\.position).min())
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertLessThan(cut, data.count)
        try data.prefix(cut).write(to: URL(fileURLWithPath: source + "/cut.mp4"))
        XCTAssertEqual(try XCTUnwrap(Double(try probe(source + "/cut.mp4", ["-show_entries", "format=duration"]))),
                       declared, accuracy: 0.001)

        let path = try pipeline("""
            version: 1
            jobs:
              - name: long
                ingest: { from: [in], media: [movie] }
                transcode: { videoQuality: typeLow }
                export: { to: out, name: "{stem}.mp4" }
            """)
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("cut.mp4") && run.stderr.contains("truncated: ")
                      && run.stderr.contains(String(format: " s decoded of the %.3f s the container declares", declared)),
                      run.stderr)
        XCTAssertFalse(run.stderr.contains("whole.mp4: truncated"), run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["whole.mp4"])
        // The complete movie's output is as long as its source (within one video frame).
        let written = try XCTUnwrap(Double(try probe(work + "/out/whole.mp4", ["-show_entries", "format=duration"])))
        XCTAssertEqual(written, declared, accuracy: 0.05)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-long.jsonl", encoding: .utf8)
        let records = try manifest.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let complete = try XCTUnwrap(records.first { ($0["input"] as? String)?.hasSuffix("/whole.mp4") == true })
        XCTAssertEqual(complete["status"] as? String, "succeeded")
        XCTAssertNil((complete["warnings"] as? [String])?.first { $0.contains("truncated") })
        let truncated = try XCTUnwrap(records.first { ($0["input"] as? String)?.hasSuffix("/cut.mp4") == true })
        XCTAssertEqual(truncated["status"] as? String, "failed")
        XCTAssertTrue((truncated["error"] as? String)?.contains("truncated: ") == true, "\(truncated)")
    }
}
