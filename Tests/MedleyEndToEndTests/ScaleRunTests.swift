import Foundation
import XCTest

/// What a run over many small items keeps (issue 18, goal 5): the manifest line of each item is
/// rendered once and kept both in the manifest and as the item's record in the run state, and an
/// unchanged re-run lists the same lines from the run state; a FLAC output is whole without the
/// encoder's own flush of its scratch file (only the tagged copy is synced). Expected values come
/// from SQLite read by Python, sox and the counts of files the test itself made.
final class ScaleRunTests: EndToEndCase {
    let images = 40
    let sounds = 6

    /// Distinct 1×1 PNGs (their own trailing bytes) and half-second stereo WAVs (their own last sample).
    func makeInputs() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/pictures/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: input + "/sounds", withIntermediateDirectories: true)
        try Tool.vips(["black", work + "/seed.png", "1", "1"])
        let seed = try Data(contentsOf: URL(fileURLWithPath: work + "/seed.png"))
        for i in 0..<images {
            try (seed + Data("medley-\(i)".utf8)).write(to: URL(fileURLWithPath: input + "/pictures/a/img-\(i).png"))
        }
        let sox = try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", work + "/seed.wav", "synth", "0.5", "sine", "440", "vol", "0.5"])
        XCTAssertEqual(sox.status, 0, sox.stderr)
        let wav = try Data(contentsOf: URL(fileURLWithPath: work + "/seed.wav"))
        for i in 0..<sounds {
            var copy = wav
            copy[copy.count - 1] = UInt8(i)
            try copy.write(to: URL(fileURLWithPath: input + "/sounds/snd-\(i).wav"))
        }
        _ = try pipeline("""
            version: 1
            jobs:
              - name: pictures
                ingest: { from: [in/pictures], media: [image] }
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
              - name: sounds
                ingest: { from: [in/sounds], media: [anyAudio] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, name: "{relpath}/{stem}.{ext}" }
            """)
    }

    /// (input, record) of every row of `job` in the run state, read by Python's sqlite3.
    func stateRecords(_ job: String) throws -> [String: String] {
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            rows = db.execute("SELECT input, record FROM items WHERE job = ?", (sys.argv[2],)).fetchall()
            print(json.dumps(dict(rows)))
            """
        let result = try Tool.run("/usr/bin/python3", ["-c", script, work + "/out/.medley/state.sqlite", job])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: String])
    }

    /// The manifest lines of `job`, by the input each names.
    func manifestLines(_ job: String) throws -> [String: String] {
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-\(job).jsonl", encoding: .utf8)
        var lines: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            lines[try XCTUnwrap(object["input"] as? String)] = String(line)
        }
        return lines
    }

    func testEachItemsManifestLineIsItsRunStateRecordAndARerunListsTheSameLines() throws {
        try makeInputs()
        var result = try Tool.medley(["run", work + "/pipeline.yaml", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for (job, count) in [("pictures", images), ("sounds", sounds)] {
            let manifest = try manifestLines(job)
            let state = try stateRecords(job)
            XCTAssertEqual(manifest.count, count, job)
            XCTAssertEqual(Set(manifest.keys), Set(state.keys), job)
            for (input, line) in manifest {
                XCTAssertEqual(state[input], line, input)
                XCTAssertTrue(line.contains("\"status\":\"succeeded\""), line)
            }
        }
        let first = (try manifestLines("pictures"), try manifestLines("sounds"))

        // Unchanged re-run: every line comes back from the run state, the same as written the first time.
        result = try Tool.medley(["run", work + "/pipeline.yaml", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try manifestLines("pictures"), first.0)
        XCTAssertEqual(try manifestLines("sounds"), first.1)
    }

    func testFLACOutputsAreWholeAndNoScratchFileIsLeft() throws {
        try makeInputs()
        let result = try Tool.medley(["run", work + "/pipeline.yaml", "--quiet", "--only", "sounds"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for i in 0..<sounds {
            let path = work + "/out/snd-\(i).flac"
            // sox: 0.5 s at 44.1 kHz is 22,050 frames of 2 channels.
            let frames = try Tool.run("soxi", ["-s", path])
            XCTAssertEqual(frames.status, 0, frames.stderr)
            XCTAssertEqual(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "22050", path)
            XCTAssertEqual(try Tool.run("soxi", ["-c", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2", path)
        }
        let temporary = work + "/out/.medley/tmp"
        let left = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        XCTAssertEqual(left, [], "scratch files left in \(temporary)")
    }
}
