import Foundation
import MedleyMedia
import MedleyTags

/// ReplayGain 2.0 values (`tag: {replayGain: track | album}`) for an audio output, and the
/// level tags an output must not inherit once its level changed.
///
/// - Gains are "reference − integrated loudness" with the ReplayGain 2.0 reference of −18 LUFS,
///   written as loudgain, rsgain and beets write them: `"%.2f dB"` ("-6.54 dB", "2.10 dB";
///   foobar2000 adds a "+", every reader takes both).
/// - Peaks are the **sample** peak, linear, `"%.6f"`: what ReplayGain players' clipping
///   prevention scales against (the samples they play, not the analogue reconstruction), and what
///   ffmpeg's `replaygain` filter and foobar2000 (by default) report.
/// - `REPLAYGAIN_REFERENCE_LOUDNESS` ("-18.00 LUFS", as loudgain and rsgain write it) says which
///   reference the gains are relative to.
/// - Opus (RFC 7845 §5.2.1) has no REPLAYGAIN_* fields: `R128_TRACK_GAIN` / `R128_ALBUM_GAIN` are
///   Q7.8 integers (dB × 256) of "−23 LUFS − integrated loudness", applied on top of the OpusHead
///   output gain. FFmpeg's Opus decoders (native and libopus) apply that output gain, so the
///   loudness Medley measures is already the level after it: the tag is relative to it as the
///   RFC says.
///
/// Values are written by their Vorbis names into `MediaTags.extra`; the container writers map them
/// (Vorbis comments in Ogg and FLAC, ID3 `TXXX:REPLAYGAIN_TRACK_GAIN`, MP4
/// `----:com.apple.iTunes:REPLAYGAIN_TRACK_GAIN`, see ExtraTags).
enum ReplayGain {
    /// ReplayGain 2.0's reference level, LUFS.
    static let reference = -18.0
    /// RFC 7845's reference for R128_* gains (EBU R128), LUFS.
    static let opusReference = -23.0

    static let trackGain = "REPLAYGAIN_TRACK_GAIN", trackPeak = "REPLAYGAIN_TRACK_PEAK"
    static let albumGain = "REPLAYGAIN_ALBUM_GAIN", albumPeak = "REPLAYGAIN_ALBUM_PEAK"
    static let referenceLoudness = "REPLAYGAIN_REFERENCE_LOUDNESS"
    static let opusTrackGain = "R128_TRACK_GAIN", opusAlbumGain = "R128_ALBUM_GAIN"

    /// Whether an extra field describes the audio's level (ReplayGain or Opus R128 values).
    static func isLevelField(_ name: String) -> Bool {
        let upper = name.uppercased()
        return upper.hasPrefix("REPLAYGAIN_") || upper.hasPrefix("R128_")
    }

    /// A gain as ReplayGain text: two decimals, a space, "dB"; never "-0.00".
    static func gainText(_ decibels: Double) -> String {
        let rounded = (decibels * 100).rounded() / 100
        return String(format: "%.2f dB", rounded == 0 ? 0 : rounded)
    }

    /// A linear peak as ReplayGain text: six decimals.
    static func peakText(_ linear: Double) -> String {
        String(format: "%.6f", linear.isFinite ? max(linear, 0) : 0)
    }

    /// A gain in dB as RFC 7845's Q7.8 integer, rounded to the nearest step and saturated to the
    /// 16 bits the field allows (±128 dB).
    static func q78(_ decibels: Double) -> Int {
        guard !decibels.isNaN else { return 0 }
        let steps = (decibels * 256).rounded()
        return Int(min(max(steps, Double(Int16.min)), Double(Int16.max)))
    }

    /// The level fields for an output: `track` is the output's own loudness, `album` its album's
    /// (album mode). Returns the fields by Vorbis name and what could not be written.
    /// `albumNote` says why there is no album value, when the caller knows.
    static func fields(_ tags: ReplayGainTags, track: LoudnessMeasurement?, album: AlbumLoudness?,
                       opus: Bool, albumNote: String? = nil) -> (fields: [(String, String)], warnings: [String]) {
        var fields: [(String, String)] = []
        var warnings: [String] = []
        if let track, let integrated = track.integrated {
            if opus {
                fields.append((opusTrackGain, String(q78(opusReference - integrated))))
            } else {
                fields.append((trackGain, gainText(reference - integrated)))
                fields.append((trackPeak, peakText(track.samplePeak)))
            }
        } else if track != nil {
            warnings.append("ReplayGain: the audio is silent (no block above −70 LUFS), so it has no track gain; none written")
        } else {
            warnings.append("ReplayGain: the loudness was not measured; no track gain written")
        }
        if tags.mode == .album {
            if let album, let integrated = album.integrated {
                if opus {
                    fields.append((opusAlbumGain, String(q78(opusReference - integrated))))
                } else {
                    fields.append((albumGain, gainText(reference - integrated)))
                    fields.append((albumPeak, peakText(album.samplePeak)))
                }
            } else if let album {
                warnings.append("ReplayGain: album '\(album.group)' is silent, so it has no album gain; none written")
            } else {
                warnings.append(albumNote ?? "ReplayGain: the album's loudness was not measured (album gain needs every track of the album measured first); no album gain written")
            }
        }
        if !opus, fields.contains(where: { $0.0 == trackGain || $0.0 == albumGain }) {
            fields.append((referenceLoudness, String(format: "%.2f LUFS", reference)))
        }
        return (fields, warnings)
    }

    /// Settles the level fields of an output's tags: with `replayGain`, every level field the input
    /// had is replaced by values computed for this output (Opus: R128_* only); without it, fields
    /// that no longer describe the output (its level changed — `levelChange` says how) are
    /// dropped, with a warning.
    static func settle(_ tags: inout MediaTags, replayGain: ReplayGainTags?, track: LoudnessMeasurement?,
                       album: AlbumLoudness?, albumNote: String? = nil, opus: Bool, levelChange: String?) -> [String] {
        let inherited = tags.extra.keys.filter(isLevelField).sorted()
        if let replayGain {
            for name in inherited { tags.extra[name] = nil }
            let (fields, warnings) = self.fields(replayGain, track: track, album: album, opus: opus, albumNote: albumNote)
            for (name, value) in fields { tags.extra[name] = [value] }
            return warnings
        }
        guard !inherited.isEmpty else { return [] }
        if let levelChange {
            for name in inherited { tags.extra[name] = nil }
            return ["\(inherited.joined(separator: ", ")) not carried: the output's level changed (\(levelChange)), so the input's values would be wrong; add tag: {replayGain: track} to write new ones"]
        }
        // The level kept, the values still hold — REPLAYGAIN_* carried into an Opus output too:
        // its output gain is 0, so they describe the decoded level as before (RFC 7845 asks only
        // that they not be mixed with R128 gains, which `replayGain` replaces them with).
        return []
    }

    /// The album's loudness as a transcode wrote the album: the album pass measured its tracks before
    /// any level change, so a gain the whole album shares (`gain:`, `normalize: {album: true}`)
    /// shifts it, and a gain of each track's own (a peak or per-track loudness normalize) leaves no
    /// album value that describes the outputs — nil, with the reason.
    static func writtenAlbum(_ album: AlbumLoudness?, settings: TranscodeSettings,
                             normalization: NormalizationRecord?) -> (album: AlbumLoudness?, note: String?) {
        guard var album else { return (nil, nil) }
        if settings.normalizePeak != nil || (settings.loudness != nil && settings.loudness?.album == nil) {
            return (nil, "ReplayGain: each track was normalized with a gain of its own, so no album gain describes the outputs; "
                         + "none written (normalize: {album: true} keeps one gain per album)")
        }
        let decibels = normalization?.gain ?? settings.gain.map { 20 * log10($0) } ?? 0
        guard decibels != 0 else { return (album, nil) }
        let factor = pow10(decibels / 20)
        album.integrated = album.integrated.map { $0 + decibels }
        album.samplePeak *= factor
        album.truePeak *= factor
        return (album, nil)
    }

    /// How a transcode changes the level of the audio (so the input's level tags no longer hold),
    /// or nil when it keeps it.
    static func levelChange(_ settings: TranscodeSettings, sourceChannels: Int) -> String? {
        var changes: [String] = []
        if let gain = settings.gain, gain != 1 { changes.append("gain") }
        if settings.normalizePeak != nil || settings.loudness != nil { changes.append("normalize") }
        if settings.trim != nil { changes.append("trim") }
        if settings.cut != nil { changes.append("cut") }
        if let fade = settings.fade, fade.fadeIn > 0 || fade.fadeOut > 0 { changes.append("fade") }
        if let channels = settings.channels, channels != sourceChannels {
            changes.append("mixed from \(sourceChannels) to \(channels) channel\(channels == 1 ? "" : "s")")
        }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }
}
