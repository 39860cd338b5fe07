import Foundation
@testable import MedleyCore
import MedleyKernels
import MedleyMedia
import XCTest

/// `normalize:` for loudness: what the reader accepts (presets with their published targets,
/// explicit keys overriding them) and refuses (with FILE:LINE:COL and a suggestion), and the gain
/// rules, with expected values from the formulas written here (gain = target − measured; a true
/// peak over the ceiling lowers the gain to ceiling − peak).
final class LoudnessNormalizationTests: PipelineTextCase {
    /// A transcode job with `setting` (one line 5; "    transcode: { AVFormatIDKey: kAudioFormatFLAC, " is 51 characters).
    func text(_ setting: String) -> String {
        """
        version: 1
        jobs:
          - name: a
            ingest: { from: [photos] }
            transcode: { AVFormatIDKey: kAudioFormatFLAC, \(setting) }
            export: { to: out }
        """
    }

    func loudness(_ setting: String) throws -> LoudnessNormalization {
        try XCTUnwrap(try job(text(setting)).transcode?.loudness, setting)
    }

    func testPresetsCarryTheirPublishedTargets() throws {
        // Apple Podcasts -16 LUFS / -1 dBTP; streaming -14 / -1; EBU R128 -23 / -1; ACX: RMS -20 (mid -23…-18), peak -3.
        for (setting, target, ceiling) in [("normalize: podcast", -16.0, -1.0), ("normalize: streaming", -14.0, -1.0),
                                           ("normalize: broadcast", -23.0, -1.0), ("normalize: audiobook", -20.0, -3.0),
                                           ("normalize: { preset: broadcast }", -23.0, -1.0)] {
            let settings = try loudness(setting)
            XCTAssertEqual(settings.target, target, setting)
            XCTAssertEqual(settings.truePeak, ceiling, setting)
            XCTAssertNotNil(settings.preset, setting)
            // Podcast and streaming specs check the delivered true peak and loudness both: those limit by default.
            XCTAssertEqual(settings.limit, setting.contains("podcast") || setting.contains("streaming"), setting)
        }
        XCTAssertFalse(try loudness("normalize: { preset: podcast, limit: false }").limit)
        XCTAssertTrue(try loudness("normalize: { preset: streaming, loudness: -15LUFS }").limit)
        XCTAssertFalse(try loudness("normalize: { loudness: -16LUFS }").limit)
    }

    func testExplicitKeysOverrideThePresetAndUnitsReadWithOrWithoutASpace() throws {
        let settings = try loudness("normalize: { preset: podcast, loudness: -18 LUFS, truePeak: -2dBTP, limit: true, lowerOnly: yes, threshold: 0.5LU }")
        XCTAssertEqual(settings.target, -18)
        XCTAssertEqual(settings.truePeak, -2)
        XCTAssertTrue(settings.limit)
        XCTAssertTrue(settings.lowerOnly)
        XCTAssertEqual(settings.threshold, 0.5)
        XCTAssertEqual(try loudness("normalize: { loudness: -16LKFS }").target, -16)
        XCTAssertEqual(try loudness("normalize: { loudness: -23 }").target, -23)
        XCTAssertEqual(try loudness("normalize: { preset: audiobook, rms: -19dB }").target, -19)
        XCTAssertNil(try loudness("normalize: { loudness: -16LUFS }").album)
        // The peak normalize is still what it was.
        XCTAssertEqual(try job(text("normalize: { peak: -1dBFS }")).transcode?.normalizePeak, -1)
        XCTAssertNil(try job(text("normalize: { peak: -1dBFS }")).transcode?.loudness)
    }

    func testAlbumAndGroupMakeAnAlbumGrouping() throws {
        let album = try XCTUnwrap(try loudness("normalize: { loudness: -16LUFS, album: true }").album)
        XCTAssertEqual(album.text, "{albumArtist|artist}/{albumTitle}")
        let group = try XCTUnwrap(try loudness("normalize: { loudness: -16LUFS, group: \"{albumTitle} ({genre})\" }").album)
        XCTAssertEqual(group.text, "{albumTitle} ({genre})")
        XCTAssertEqual(try job(text("normalize: { loudness: -16LUFS, album: true }")).albumGrouping?.text, album.text)
    }

    func testBadValuesFailWithTheirPlacesAndASuggestion() {
        // Column 51 + "normalize: { " (13) = 64 for the first key; values after "key: ".
        assertDiagnostics(diagnostics(text("normalize: { loudness: -90LUFS }")),
                          ["p.yaml:5:74: error: loudness is an integrated loudness from -70 to 0 LUFS, not '-90LUFS'; like -16LUFS"])
        assertDiagnostics(diagnostics(text("normalize: { loudness: -16dB }")),
                          ["p.yaml:5:74: error: loudness is an integrated loudness from -70 to 0 LUFS, not '-16dB'; like -16LUFS"])
        assertDiagnostics(diagnostics(text("normalize: { loudness: nanLUFS }")), ["p.yaml:5:74: error: loudness is"])
        assertDiagnostics(diagnostics(text("normalize: { truePeak: 1dBTP }")),
                          ["p.yaml:5:74: error: truePeak is a ceiling from -20 to 0 dBTP, not '1dBTP'; like -1dBTP"])
        assertDiagnostics(diagnostics(text("normalize: { truePeak: -21dBTP }")), ["p.yaml:5:74: error: truePeak is a ceiling"])
        assertDiagnostics(diagnostics(text("normalize: { threshold: 25LU }")),
                          ["p.yaml:5:75: error: threshold is a loudness difference from 0 to 20 LU, not '25LU'; like 0.5LU"])
        assertDiagnostics(diagnostics(text("normalize: { threshold: -1LU }")), ["p.yaml:5:75: error: threshold is"])
        assertDiagnostics(diagnostics(text("normalize: { loudnes: -16LUFS }")),
                          ["p.yaml:5:64: error: unknown key 'loudnes' in normalize; did you mean 'loudness'?"])
        assertDiagnostics(diagnostics(text("normalize: podcats")),
                          ["p.yaml:5:62: error: unknown normalize preset 'podcats'; did you mean 'podcast'?"])
        assertDiagnostics(diagnostics(text("normalize: { preset: radio }")), ["p.yaml:5:72: error: unknown normalize preset 'radio'"])
        assertDiagnostics(diagnostics(text("normalize: { loudness: -16LUFS, peak: -1dBFS }")),
                          ["p.yaml:5:83: error: normalize takes a peak or a loudness target, not both"])
        assertDiagnostics(diagnostics(text("normalize: { limit: maybe }")), ["p.yaml:5:71: error: limit must be true or false, not 'maybe'"])
        assertDiagnostics(diagnostics(text("normalize: { album: false, group: \"{albumTitle}\" }")),
                          ["p.yaml:5:85: error: group makes one gain per album, but album is false"])
        // A misspelt property inside the group template points at its character.
        assertDiagnostics(diagnostics(text("normalize: { group: \"{albumTitel}\" }")),
                          ["p.yaml:5:73: error: normalize.group: unknown property 'albumTitel'; did you mean '{albumTitle}'?"])
        assertDiagnostics(diagnostics(text("normalize: { group: \"albums\" }")), ["p.yaml:5:71: error: group 'albums' names no property"])
        assertDiagnostics(diagnostics(text("normalize: { preset: audiobook, loudness: -16LUFS }")),
                          ["p.yaml:5:93: error: the audiobook preset brings each item to an RMS level (ACX), not a loudness"])
        assertDiagnostics(diagnostics(text("normalize: { preset: audiobook, rms: -12dB }")), ["p.yaml:5:88: error: rms is an RMS level"])
        assertDiagnostics(diagnostics(text("normalize: { rms: -20dB }")), ["p.yaml:5:69: error: rms is the audiobook preset's target"])
        assertDiagnostics(diagnostics(text("gain: -3dB, normalize: podcast")),
                          ["p.yaml:5:74: error: give gain or normalize, not both; normalize computes its own gain; remove 'gain'"])
    }

    // MARK: The gain rules

    func measurement(integrated: Double?, truePeak: Double) -> LoudnessMeasurement {
        let linear = pow(10, truePeak / 20)
        return LoudnessMeasurement(integrated: integrated, range: 3, samplePeak: linear, truePeak: linear, frames: 48000)
    }

    func settings(_ change: (inout LoudnessNormalization) -> Void = { _ in }) -> LoudnessNormalization {
        var settings = LoudnessNormalization()
        change(&settings)
        return settings
    }

    func testTheGainIsTargetMinusMeasured() {
        let decision = LoudnessNormalizer.decide(settings(), track: measurement(integrated: -23.4, truePeak: -9), album: nil, levels: nil)
        XCTAssertEqual(decision.gain, -16 - -23.4, accuracy: 1e-9)
        XCTAssertNil(decision.limiter)
        XCTAssertEqual(decision.warnings, [])
        XCTAssertEqual(decision.record?.target, -16)
        XCTAssertNil(decision.record?.requested)
    }

    func testATruePeakOverTheCeilingLowersTheTargetAndSaysSo() {
        // -20 LUFS with a -2 dBTP peak: +4 dB would put the peak at +2 dBTP; the gain stops at -1 - (-2) = +1 dB.
        let decision = LoudnessNormalizer.decide(settings(), track: measurement(integrated: -20, truePeak: -2), album: nil, levels: nil)
        XCTAssertEqual(decision.gain, 1, accuracy: 1e-9)
        XCTAssertEqual(decision.record?.target, -19)
        XCTAssertEqual(decision.record?.requested, -16)
        XCTAssertEqual(decision.record?.note, "truePeak")
        XCTAssertEqual(decision.warnings.count, 1)
        XCTAssertTrue(decision.warnings[0].hasPrefix("target -16.0 LUFS lowered to -19.0 LUFS"), decision.warnings[0])
        // limit: true keeps the gain and asks for the limiter at the ceiling.
        let limited = LoudnessNormalizer.decide(settings { $0.limit = true }, track: measurement(integrated: -20, truePeak: -2),
                                                album: nil, levels: nil)
        XCTAssertEqual(limited.gain, 4, accuracy: 1e-9)
        XCTAssertEqual(limited.limiter, -1)
        XCTAssertEqual(limited.warnings, [])
    }

    func testLowerOnlyThresholdAndSilence() {
        let quiet = measurement(integrated: -20, truePeak: -10), close = measurement(integrated: -16.4, truePeak: -10)
        XCTAssertEqual(LoudnessNormalizer.decide(settings { $0.lowerOnly = true }, track: quiet, album: nil, levels: nil).gain, 0)
        let loud = LoudnessNormalizer.decide(settings { $0.lowerOnly = true }, track: measurement(integrated: -12, truePeak: -3),
                                             album: nil, levels: nil)
        XCTAssertEqual(loud.gain, -4, accuracy: 1e-9)
        let within = LoudnessNormalizer.decide(settings { $0.threshold = 0.5 }, track: close, album: nil, levels: nil)
        XCTAssertEqual(within.gain, 0)
        XCTAssertEqual(within.record?.note, "threshold")
        XCTAssertEqual(LoudnessNormalizer.decide(settings { $0.threshold = 0.3 }, track: close, album: nil, levels: nil).gain,
                       0.4, accuracy: 1e-9)
        let silent = LoudnessNormalizer.decide(settings(), track: LoudnessMeasurement(integrated: nil, range: 0, samplePeak: 0, truePeak: 0, frames: 10),
                                               album: nil, levels: nil)
        XCTAssertEqual(silent.gain, 0)
        XCTAssertEqual(silent.warnings.count, 1)
        XCTAssertTrue(silent.warnings[0].hasPrefix("silent"))
    }

    func testAlbumModeUsesTheAlbumsLoudnessAndPeak() throws {
        let grouping = AlbumGrouping(text: AlbumGrouping.defaultText,
                                     template: try NameTemplate(AlbumGrouping.defaultText, knownProperties: ItemProperties.templateNames))
        let album = AlbumLoudness(group: "A/B", integrated: -21, samplePeak: pow(10, -8.0 / 20), truePeak: pow(10, -7.0 / 20), tracks: 3)
        // The track's own -30 LUFS is not used: one gain for the album, -16 - (-21) = +5 dB.
        let decision = LoudnessNormalizer.decide(settings { $0.album = grouping }, track: measurement(integrated: -30, truePeak: -20),
                                                 album: album, levels: nil)
        XCTAssertEqual(decision.gain, 5, accuracy: 1e-9)
        XCTAssertEqual(decision.record?.album, "A/B")
        // The album's true peak (-7 dBTP) sets the ceiling: a -12 LUFS target would need +9 dB; it stops at +6.
        let lowered = LoudnessNormalizer.decide(settings { $0.album = grouping; $0.target = -12 }, track: nil, album: album, levels: nil)
        XCTAssertEqual(lowered.gain, 6, accuracy: 1e-9)
        // Without the album's loudness, the item's own is used, and the item hears why.
        let alone = LoudnessNormalizer.decide(settings { $0.album = grouping }, track: measurement(integrated: -30, truePeak: -20),
                                              album: nil, levels: nil)
        XCTAssertEqual(alone.gain, 14, accuracy: 1e-9)
        XCTAssertTrue(alone.warnings.contains { $0.contains("album loudness was not measured") })
    }

    func testAudiobookLevelsByRMSAndChecksACX() throws {
        // One channel: 1 s of a 0.1-amplitude square (RMS -20 dB exactly), then 1 s of 0.0001 (-80 dB).
        var levels = LevelStatistics(channels: 1, sampleRate: 1000)
        let loud = [Float](repeating: 0.1, count: 1000), quiet = [Float](repeating: 0.0001, count: 1000)
        loud.withUnsafeBufferPointer { levels.add($0.baseAddress!, frames: 1000) }
        quiet.withUnsafeBufferPointer { levels.add($0.baseAddress!, frames: 1000) }
        let rms = 10 * log10((1000 * 0.01 + 1000 * 1e-8) / 2000)  // the whole stream's mean square
        XCTAssertEqual(levels.rms[0] ?? 0, rms, accuracy: 1e-6)
        XCTAssertEqual(levels.noiseFloor[0] ?? 0, -80, accuracy: 1e-4)
        var book = LoudnessNormalization(preset: .audiobook)
        book.target = -20
        let decision = LoudnessNormalizer.decide(book, track: measurement(integrated: -25, truePeak: -20), album: nil, levels: levels)
        XCTAssertEqual(decision.gain, -20 - rms, accuracy: 1e-6)  // the samples are Float
        let check = try XCTUnwrap(decision.record?.audiobook)
        XCTAssertTrue(check.rmsOK)
        XCTAssertTrue(check.peakOK)
        XCTAssertTrue(check.noiseFloorOK, "-80 dB + 3 dB gain is under -60")
    }
}
