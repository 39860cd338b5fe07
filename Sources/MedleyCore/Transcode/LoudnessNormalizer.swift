import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// The one gain of a loudness normalization (linear two-pass: measured first, then applied), and
/// everything the item should hear about it.
///
/// Order of the rules: silence gets no gain; an item within `threshold` of the target, or (with
/// `lowerOnly`) below it, is left as it is; otherwise the gain is target − measured, and when
/// that would push the true peak past the ceiling, either the gain is lowered until the peak sits
/// on the ceiling (said per item) or, with `limit: true`, a true-peak limiter holds the ceiling.
struct LoudnessDecision: Equatable {
    /// The gain to apply, dB (0: none).
    var gain = 0.0
    /// The ceiling a true-peak limiter must hold, dBTP; nil when no limiter is needed.
    var limiter: Double?
    var record: NormalizationRecord?
    var warnings: [String] = []

    /// The gain as a factor.
    var factor: Float { Float(pow10(gain / 20)) }
}

enum LoudnessNormalizer {
    /// Quieter than this (RMS, dBFS), a stream counts as silent for the audiobook preset, as BS.1770
    /// gates blocks below −70 LUFS.
    static let silentRMS = -70.0

    /// The decision for one item. `track` is the item's own first-pass loudness; `album` its album's
    /// (album mode, measured over the album's tracks); `levels` its RMS and noise floor (audiobook).
    static func decide(_ settings: LoudnessNormalization, track: LoudnessMeasurement?, album: AlbumLoudness?,
                       levels: LevelStatistics?) -> LoudnessDecision {
        var warnings: [String] = []
        let measured: LoudnessRecord
        var integrated: Double?
        var truePeak: Double?
        if let album {
            integrated = album.integrated
            truePeak = LoudnessMeasurement.decibels(album.truePeak)
            measured = LoudnessRecord(integrated: album.integrated.map(rounded), range: 0,
                                      samplePeak: LoudnessMeasurement.decibels(album.samplePeak).map(rounded),
                                      truePeak: truePeak.map(rounded))
        } else {
            if settings.album != nil {
                warnings.append("album loudness was not measured for this item; normalized by its own loudness")
            }
            integrated = track?.integrated
            truePeak = track?.truePeakDecibels
            measured = track.map(LoudnessRecord.init) ?? LoudnessRecord(integrated: nil, range: 0, samplePeak: nil, truePeak: nil)
        }
        let audiobook = settings.preset == .audiobook
        // The audiobook preset levels by RMS (ACX): the loudest channel's.
        let rms = levels?.rms.compactMap { $0 }.max()
        let level = audiobook ? rms.flatMap { $0 > silentRMS ? $0 : nil } : integrated
        let unit = audiobook ? "dB RMS" : "LUFS"
        var record = NormalizationRecord(measured: measured, target: settings.target, gain: 0, album: album?.group)
        record.ceiling = settings.truePeak
        if audiobook { record.rms = rms.map(rounded) }

        func finish(_ gain: Double, _ note: String?) -> LoudnessDecision {
            record.gain = rounded(gain)
            record.note = note
            if let level { record.target = rounded(level + gain) }
            if audiobook, let levels {
                let check = AudiobookCheck(levels, samplePeak: album.map(\.samplePeak) ?? track?.samplePeak ?? 0, gain: gain,
                                           limitedTo: record.limiter == true ? settings.truePeak : nil)
                record.audiobook = check
                warnings += check.warnings
            }
            if abs(record.target - settings.target) >= 0.005 { record.requested = settings.target }
            return LoudnessDecision(gain: gain, limiter: record.limiter == true ? settings.truePeak : nil, record: record,
                                    warnings: warnings)
        }
        func peakWarning(_ why: String) {
            if let truePeak, truePeak > settings.truePeak {
                warnings.append(String(format: "%@; its true peak %.1f dBTP is over the %.1f dBTP ceiling", why, truePeak, settings.truePeak))
            }
        }

        guard let level else {
            warnings.append(audiobook ? "silent (RMS below \(Int(silentRMS)) dB): not normalized"
                                      : "silent, or shorter than one 400 ms block (none above -70 LUFS): no loudness to normalize, left as it is")
            record.target = settings.target
            return finish(0, "silent")
        }
        let wanted = settings.target - level
        if abs(wanted) <= settings.threshold {
            peakWarning(String(format: "left as it is: within %.1f LU of the target", settings.threshold))
            return finish(0, "threshold")
        }
        if settings.lowerOnly && wanted > 0 {
            peakWarning(String(format: "left as it is: already at or below the %.1f %@ target (lowerOnly)", settings.target, unit))
            return finish(0, "lowerOnly")
        }
        guard let truePeak, truePeak + wanted > settings.truePeak else { return finish(wanted, nil) }
        if settings.limit {
            record.limiter = true
            return finish(wanted, "limited")
        }
        let gain = settings.truePeak - truePeak
        warnings.append(String(format: "target %.1f %@ lowered to %.1f %@: at the target its true peak would be %.1f dBTP, over the %.1f dBTP ceiling "
                                + "(limit: true reaches the target with a true-peak limiter instead)",
                               settings.target, unit, level + gain, unit, truePeak + wanted, settings.truePeak))
        return finish(gain, "truePeak")
    }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}


extension AudiobookCheck {
    /// `limitedTo`: the ceiling a true-peak limiter holds the peaks at, when one runs.
    init(_ levels: LevelStatistics, samplePeak: Double, gain: Double, limitedTo ceiling: Double? = nil) {
        func after(_ value: Double?) -> Double? { value.map { LoudnessNormalizer.rounded($0 + gain) } }
        rms = levels.rms.map(after)
        peak = after(LoudnessMeasurement.decibels(samplePeak)).map { min($0, ceiling ?? $0) }
        noiseFloor = levels.noiseFloor.map(after)
        rmsOK = rms.allSatisfy { $0.map(Self.rmsRange.contains) ?? false }
        peakOK = peak.map { $0 <= Self.peakLimit } ?? true
        noiseFloorOK = noiseFloor.allSatisfy { $0.map { $0 <= Self.noiseFloorLimit } ?? true }
    }
}
