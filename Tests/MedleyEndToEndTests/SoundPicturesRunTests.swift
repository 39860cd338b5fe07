import Foundation
import MedleyTestSupport
import XCTest

/// `spectrogram:` and `waveform:` (docs/audio.md), checked against formulas in the test: a linear chirp's
/// ridge at the row its frequency gives in each column, at the level its amplitude gives; each waveform
/// column spanning exactly the rows of its samples' minimum and maximum, computed here from the samples.
final class SoundPicturesRunTests: EndToEndCase {
    /// Writes a WAV with Python's wave module: `expression` (numpy, of `t` in seconds) per channel, 16-bit or float.
    func makeWAV(_ name: String, rate: Int, seconds: Double, channels: [String], float: Bool = false) throws -> String {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = work + "/in/" + name
        let code = """
            import sys, struct, numpy as np
            rate, seconds, path, is_float = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4] == '1'
            t = np.arange(int(round(rate * seconds))) / rate
            chans = [eval(e, {'np': np, 't': t}) for e in sys.argv[5:]]
            data = np.stack(chans, axis=1)
            if is_float:
                body = data.astype('<f4').tobytes(); fmt, bits = 3, 32
            else:
                body = np.round(np.clip(data, -1, 32767 / 32768) * 32768).astype('<i2').tobytes(); fmt, bits = 1, 16
            n = len(chans)
            header = b'RIFF' + struct.pack('<I', 36 + len(body)) + b'WAVEfmt ' + struct.pack('<IHHIIHH', 16, fmt, n, rate, rate * n * bits // 8, n * bits // 8, bits)
            open(path, 'wb').write(header + b'data' + struct.pack('<I', len(body)) + body)
            """
        try Peer.must(Peer.python, ["-c", code, String(rate), String(seconds), path, float ? "1" : "0"] + channels)
        return path
    }

    /// A linear chirp 1–2 kHz over 8 s at 0.5 (−6.02 dBFS), 16 kHz, 32-bit float: per column c of W, its
    /// frequency at the column's centre time t = (c + ½)·N/W / rate is f(t) = 1000 + 125·t Hz, on row
    /// f / 8000 · (H − 1) counted from the bottom; grey there is (level + 120) / 120 · 255.
    func testSpectrogramOfALinearChirp() throws {
        let rate = 16_000, seconds = 8.0, width = 200, height = 257
        _ = try makeWAV("chirp.wav", rate: rate, seconds: seconds, channels: ["0.5 * np.sin(2 * np.pi * (1000 * t + 62.5 * t * t))"], float: true)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: spectrogram
                ingest: { from: [in] }
                spectrogram: { width: \(width), height: \(height), floor: -120dB, colors: grey, channels: mixed }
                export: { to: out }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try Tool.pixels(work + "/out/chirp.png")
        XCTAssertEqual([image.width, image.height], [width, height])
        let frames = Double(rate) * seconds
        let expectedGrey = (20 * log10(0.5) + 120) / 120 * 255
        var worstRow = 0, worstGrey = 0.0
        for column in 2..<(width - 2) {
            let t = (Double(column) + 0.5) * frames / Double(width) / Double(rate)
            let f = 1000 + 125 * t
            let expectedRow = Double(height - 1) - f / 8000 * Double(height - 1)
            let greys = (0..<height).map { image.samples[($0 * width + column) * 3] }
            let brightest = greys.indices.max { greys[$0] < greys[$1] }!
            worstRow = max(worstRow, abs(brightest - Int(expectedRow.rounded())))
            worstGrey = max(worstGrey, abs(Double(greys[brightest]) - expectedGrey))
            // Far from the ridge (beyond 20 rows, 620 Hz) the picture is below −80 dB.
            for row in 0..<height where abs(Double(row) - expectedRow) > 20 {
                XCTAssertLessThanOrEqual(greys[row], 85, "column \(column) row \(row)")
            }
        }
        print("chirp ridge: worst row offset \(worstRow), worst grey offset \(worstGrey) (\(worstGrey / 255 * 120) dB)")
        XCTAssertLessThanOrEqual(worstRow, 1, "the ridge is on the chirp's row within a row (a bin is half a row)")
        XCTAssertLessThanOrEqual(worstGrey, 255 * 2.0 / 120, "the ridge's level within 2 dB of −6.02 dBFS")
    }

    /// Per column c of W over N frames, the samples c·N/W ..< (c+1)·N/W: their maximum is the top row drawn,
    /// (1 − max)/2 · (H − 1), their minimum the bottom one; split channels in bands, mixed the mean of the channels.
    func testWaveformColumnsAreTheSamplesMinimumAndMaximum() throws {
        let rate = 8000, seconds = 3.0, width = 300, height = 101
        let left = "0.8 * np.sin(2 * np.pi * 3 * t) * np.sin(2 * np.pi * 440 * t)"
        let right = "0.3 * np.sin(2 * np.pi * 97 * t) + 0.2 * np.sign(np.sin(2 * np.pi * 0.5 * t))"
        _ = try makeWAV("tone.wav", rate: rate, seconds: seconds, channels: [left, right])
        let path = try pipeline("""
            version: 1
            jobs:
              - name: split
                ingest: { from: [in] }
                waveform: { width: \(width), height: \(height), color: '#000000', background: '#FFFFFF', channels: split }
                export: { to: split }
              - name: mixed
                ingest: { from: [in] }
                waveform: { width: \(width), height: \(height), color: '#000000', channels: mixed }
                export: { to: mixed }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The samples as stored (16-bit), read here with Python.
        let dump = try Peer.must(Peer.python, ["-c", """
            import sys, wave, numpy as np
            w = wave.open(sys.argv[1]); a = np.frombuffer(w.readframes(w.getnframes()), dtype='<i2').reshape(-1, 2) / 32768
            print(' '.join('%.9f,%.9f' % (x, y) for x, y in a))
            """, work + "/in/tone.wav"]).stdout
        let samples = dump.split(separator: " ").map { $0.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines))! } }
        let n = samples.count
        XCTAssertEqual(n, 24_000)
        func row(_ v: Double) -> Int { Int(((1 - v) / 2 * Double(height - 1)).rounded()) }
        func check(_ folder: String, bands: [(Int) -> Double]) throws {
            let image = try Tool.pixels(work + "/\(folder)/tone.png")
            XCTAssertEqual([image.width, image.height], [width, height * bands.count], folder)
            var exact = 0, total = 0
            for (band, value) in bands.enumerated() {
                for c in 0..<width {
                    let span = (c * n / width)..<((c + 1) * n / width)
                    let values = span.map(value)
                    let dark = (0..<height).filter { image.samples[((band * height + $0) * width + c) * 3] < 128 }
                    let expected = [row(values.max()!), row(values.min()!)]
                    let drawn = [dark.first ?? -1, dark.last ?? -1]
                    XCTAssertEqual(dark.count, (drawn[1] - drawn[0]) + 1, "\(folder) band \(band) column \(c): one unbroken line")
                    XCTAssertLessThanOrEqual(abs(drawn[0] - expected[0]), 1, "\(folder) band \(band) column \(c) top")
                    XCTAssertLessThanOrEqual(abs(drawn[1] - expected[1]), 1, "\(folder) band \(band) column \(c) bottom")
                    exact += (drawn == expected ? 1 : 0)
                    total += 1
                }
            }
            XCTAssertGreaterThanOrEqual(Double(exact), 0.97 * Double(total), "\(folder): columns on exactly the expected rows")
        }
        try check("split", bands: [{ samples[$0][0] }, { samples[$0][1] }])
        try check("mixed", bands: [{ (samples[$0][0] + samples[$0][1]) / 2 }])
    }

    /// A file with no samples fails alone with its reason and writes nothing; the other file's picture is made.
    func testAFileWithNoSamplesFailsAlone() throws {
        _ = try makeWAV("good.wav", rate: 8000, seconds: 1, channels: ["0.5 * np.sin(2 * np.pi * 440 * t)"])
        _ = try makeWAV("empty.wav", rate: 8000, seconds: 0, channels: ["0 * t"])
        let path = try pipeline("""
            version: 1
            jobs:
              - name: spectrogram
                ingest: { from: [in] }
                spectrogram: { width: 64, height: 65 }
                export: { to: out }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("empty.wav") && result.stderr.contains("no samples"), result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out").filter { !$0.hasPrefix(".medley") }, ["good.png"])
    }

    func testMistakesAreReportedWhereTheyAre() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: pictures
                ingest: { from: [in] }
                spectrogram: { width: 8, floor: 10dB, colors: hot }
                waveform: { scale: linear, floor: -60dB }
                export: { to: out }
            """)
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 2, result.stderr)
        for expected in ["pipeline.yaml:5:27: error: spectrogram.width must be from 16", "pipeline.yaml:5:37: error: spectrogram.floor is a level below 0 dB",
                         "unknown spectrogram.colors 'hot'", "pipeline.yaml:6:39: error: waveform.floor is the bottom of a dB scale",
                         "'waveform' and 'spectrogram' both make the output"] {
            XCTAssertTrue(result.stderr.contains(expected), "\(expected) in:\n\(result.stderr)")
        }
    }
}
