import Foundation
import MedleyMedia
import MedleyTags
@testable import MedleyCore
import XCTest

/// `tag: {replayGain: …}` validation at FILE:LINE:COL, columns counted by hand on the line
/// `    tag: { replayGain: … }` (`oneJob` puts the stage on line 6, from column 5).
final class ReplayGainValidationTests: PipelineTextCase {
    func testModesAndGroups() throws {
        let track = try XCTUnwrap(try job(oneJob("tag: { replayGain: track }")).tag?.replayGain)
        XCTAssertEqual(track.mode, .track)
        XCTAssertNil(track.album)
        XCTAssertNil(try job(oneJob("tag: { replayGain: track }")).albumGrouping)

        let album = try job(oneJob("tag: { replayGain: album }"))
        XCTAssertEqual(album.tag?.replayGain?.mode, .album)
        XCTAssertEqual(album.albumGrouping?.text, "{albumArtist|artist}/{albumTitle}")

        let grouped = try job(oneJob("tag: { replayGain: { mode: album, group: \"{albumTitle} ({releaseDate})\" } }"))
        XCTAssertEqual(grouped.albumGrouping?.text, "{albumTitle} ({releaseDate})")
        XCTAssertEqual(try job(oneJob("tag: { replayGain: { mode: track } }")).tag?.replayGain?.mode, .track)
    }

    func testMistakes() {
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: loud }")),
                          ["p.yaml:6:24: error: tag.replayGain: 'loud' is not a ReplayGain mode; write track or album"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: albm }")),
                          ["p.yaml:6:24: error: tag.replayGain: 'albm' is not a ReplayGain mode; did you mean 'album'?"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: [track] }")),
                          ["p.yaml:6:24: error: tag.replayGain takes track or album"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: { mode: track, group: \"{albumTitle}\" } }")),
                          ["p.yaml:6:46: error: tag.replayGain.group groups albums, but the mode is 'track'"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: { mode: album, group: \"{albumTitel}\" } }")),
                          ["p.yaml:6:48: error: tag.replayGain.group: unknown property 'albumTitel'; did you mean '{albumTitle}'?"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: { mode: album, group: \"\" } }")),
                          ["p.yaml:6:46: error: tag.replayGain.group is empty"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: { group: \"{albumTitle}\" } }")),
                          ["p.yaml:6:24: error: tag.replayGain needs 'mode'"])
        assertDiagnostics(diagnostics(oneJob("tag: { replayGain: { mode: album, grop: x } }")),
                          ["p.yaml:6:39: error: unknown key 'grop' in tag.replayGain; did you mean 'group'?"])
    }

    func testReplayGainNeedsAnExport() {
        assertDiagnostics(diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                tag: { replayGain: track }
            """), ["p.yaml:5:24: error: tag.replayGain writes its values into exported copies, but job 'j' has no 'export'; add 'export: { to: out }'"])
    }
}

/// The values, from the formulas of ReplayGain 2.0 (gain = −18 LUFS − integrated) and RFC 7845
/// (Q7.8 of −23 LUFS − integrated), worked out by hand here.
final class ReplayGainValueTests: XCTestCase {
    func measurement(_ integrated: Double?, peak: Double = 0.5) -> LoudnessMeasurement {
        LoudnessMeasurement(integrated: integrated, range: 0, samplePeak: peak, truePeak: peak * 1.1, frames: 48000)
    }

    func fields(_ mode: ReplayGainTags.Mode, _ track: LoudnessMeasurement?, album: AlbumLoudness? = nil,
                opus: Bool = false) -> [String: String] {
        Dictionary(uniqueKeysWithValues: ReplayGain.fields(ReplayGainTags(mode: mode), track: track, album: album, opus: opus).fields)
    }

    func testTrackGainPeakAndReference() {
        // −18 − (−11.46) = −6.54; the sample peak, not the true peak (0.55).
        XCTAssertEqual(fields(.track, measurement(-11.46)), [
            "REPLAYGAIN_TRACK_GAIN": "-6.54 dB", "REPLAYGAIN_TRACK_PEAK": "0.500000", "REPLAYGAIN_REFERENCE_LOUDNESS": "-18.00 LUFS",
        ])
        // −18 − (−25.004) = 7.004 → "7.00 dB"; −18 − (−18.004) rounds to zero, written without a sign.
        XCTAssertEqual(fields(.track, measurement(-25.004))["REPLAYGAIN_TRACK_GAIN"], "7.00 dB")
        XCTAssertEqual(fields(.track, measurement(-18.004))["REPLAYGAIN_TRACK_GAIN"], "0.00 dB")
    }

    func testOpusGainsAreQ78RelativeToR128() {
        // −23 − (−12) = −11 dB → −2816; −23 − (−30.1) = 7.1 dB → 1817.6 → 1818.
        XCTAssertEqual(fields(.track, measurement(-12), opus: true), ["R128_TRACK_GAIN": "-2816"])
        XCTAssertEqual(fields(.track, measurement(-30.1), opus: true), ["R128_TRACK_GAIN": "1818"])
        // Beyond the 16 bits the field has: saturated, no trap.
        XCTAssertEqual(ReplayGain.q78(-1e300), -32768)
        XCTAssertEqual(ReplayGain.q78(.infinity), 32767)
        XCTAssertEqual(ReplayGain.q78(.nan), 0)
        let album = AlbumLoudness(group: "Band/Record", integrated: -20, samplePeak: 0.9, truePeak: 1, tracks: 2)
        XCTAssertEqual(fields(.album, measurement(-12), album: album, opus: true), ["R128_TRACK_GAIN": "-2816", "R128_ALBUM_GAIN": "-768"])
    }

    func testAlbumValuesComeFromTheAlbumsLoudness() {
        let album = AlbumLoudness(group: "Band/Record", integrated: -9.87, samplePeak: 0.987654, truePeak: 1.02, tracks: 12)
        let written = fields(.album, measurement(-11.46), album: album)
        XCTAssertEqual(written["REPLAYGAIN_ALBUM_GAIN"], "-8.13 dB")  // −18 − (−9.87)
        XCTAssertEqual(written["REPLAYGAIN_ALBUM_PEAK"], "0.987654")
        XCTAssertEqual(written["REPLAYGAIN_TRACK_GAIN"], "-6.54 dB")
        // Track mode ignores an album.
        XCTAssertNil(fields(.track, measurement(-11.46), album: album)["REPLAYGAIN_ALBUM_GAIN"])
        // No album measured, or a silent one: said, not guessed.
        let missing = ReplayGain.fields(ReplayGainTags(mode: .album), track: measurement(-11.46), album: nil, opus: false)
        XCTAssertNil(Dictionary(uniqueKeysWithValues: missing.fields)["REPLAYGAIN_ALBUM_GAIN"])
        XCTAssertEqual(missing.warnings.count, 1)
        let silentAlbum = AlbumLoudness(group: "g", integrated: nil, samplePeak: 0, truePeak: 0, tracks: 1)
        XCTAssertTrue(ReplayGain.fields(ReplayGainTags(mode: .album), track: measurement(nil), album: silentAlbum, opus: false)
            .fields.isEmpty)
    }

    func testSettleReplacesDropsOrKeeps() {
        var tags = MediaTags()
        tags.extra = ["REPLAYGAIN_TRACK_GAIN": ["+9.00 dB"], "replaygain_album_gain": ["1 dB"], "R128_TRACK_GAIN": ["12"], "ISRC": ["X"]]
        var replaced = tags
        XCTAssertEqual(ReplayGain.settle(&replaced, replayGain: ReplayGainTags(mode: .track), track: measurement(-20), album: nil,
                                         opus: false, levelChange: "gain"), [])
        XCTAssertEqual(replaced.extra, ["REPLAYGAIN_TRACK_GAIN": ["2.00 dB"], "REPLAYGAIN_TRACK_PEAK": ["0.500000"],
                                        "REPLAYGAIN_REFERENCE_LOUDNESS": ["-18.00 LUFS"], "ISRC": ["X"]])
        var stale = tags
        let warnings = ReplayGain.settle(&stale, replayGain: nil, track: nil, album: nil, opus: false, levelChange: "gain")
        XCTAssertEqual(stale.extra, ["ISRC": ["X"]])
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].hasPrefix("R128_TRACK_GAIN, REPLAYGAIN_TRACK_GAIN, replaygain_album_gain not carried"), warnings[0])
        var kept = tags
        XCTAssertEqual(ReplayGain.settle(&kept, replayGain: nil, track: nil, album: nil, opus: true, levelChange: nil), [])
        XCTAssertEqual(kept.extra, tags.extra, "a level kept keeps its values")
        // Opus with replayGain: only R128 gains, whatever the input had.
        var opus = tags
        XCTAssertEqual(ReplayGain.settle(&opus, replayGain: ReplayGainTags(mode: .track), track: measurement(-20), album: nil,
                                         opus: true, levelChange: nil), [])
        XCTAssertEqual(opus.extra, ["R128_TRACK_GAIN": ["-768"], "ISRC": ["X"]])  // 256 · (−23 − (−20))
    }

    func testWhatChangesTheLevel() {
        var settings = TranscodeSettings()
        XCTAssertNil(ReplayGain.levelChange(settings, sourceChannels: 2))
        settings.channels = 2
        XCTAssertNil(ReplayGain.levelChange(settings, sourceChannels: 2))
        settings.channels = 1
        settings.gain = 0.5
        XCTAssertEqual(ReplayGain.levelChange(settings, sourceChannels: 2), "gain, mixed from 2 to 1 channel")
    }
}
