import Foundation
import MedleyKernels
import MedleyMedia
import MedleyTags

/// Transcodes one audio item with AVAudioRecorder settings: decode → channel map → resample →
/// gain or normalize → meter → encode, streamed a block at a time.
struct AudioStage {
    let settings: TranscodeSettings
    let metering: Bool
    /// Whether the output's loudness is measured as it is written (`analyze: [loudness]`, ReplayGain tags).
    var measuresLoudness = false

    /// Frames per block: 4096 keeps every buffer small and every call cheap.
    static let blockFrames = 4096
    /// System sounds play for at most 30 seconds (AudioServicesPlaySystemSound).
    static let systemSoundLimit = 30.0

    /// The extension written when the export name does not choose one (docs/audio.md, "Containers": AAC and ALAC →
    /// .m4a, FLAC → .flac, Opus → .ogg, MP3 → .mp3, linear PCM and the rest → .caf).
    var defaultExtension: String { AudioFormatTable.row(settings.format).defaultExtension }

    /// Opens the item. M4A, MP3, FLAC and Ogg (Vorbis, Opus) go through FFmpeg, which decodes what
    /// the field's players do: libsndfile's mpg123 stops at the first damaged MP3 frame where
    /// FFmpeg resyncs (and prints its warnings to stderr, unnamed), its FLAC reader stops at
    /// STREAMINFO's total, which is only a hint, it reports Opus at the input rate of the OpusHead
    /// rather than the 48 kHz it decodes at, and it refuses a Vorbis stream whose first granule
    /// position gives a start offset. The rest goes through
    /// libsndfile, except a WAV, AIFF or CAF whose header gives no samples (a recorder that never
    /// patched its data size): libsndfile reads nothing there, FFmpeg reads to the end; one in an
    /// encoding libsndfile does not decode (Opus or IMA4 ADPCM in CAF); and a CAF whose data
    /// chunk runs to the end of the file (size −1, FFmpeg's CAF written to a pipe), which
    /// libsndfile calls malformed. Where FFmpeg cannot open those either, libsndfile's reason stands.
    static func open(_ path: String, format: String) throws -> AudioSource {
        do {
            if ffmpegFormats.contains(format) { return try FFmpegAudioReader(path: path) }
            let containers: Set<String> = ["wav", "aiff", "caf"]
            let reader: AudioReader
            do {
                reader = try AudioReader(path: path)
            } catch let refusal as MediaError where containers.contains(format)
                        && (AudioReader.refusedEncoding(refusal) || format == "caf" && TagIO.cafDataRunsToEnd(path: path)) {
                guard let decoded = try? FFmpegAudioReader(path: path) else { throw refusal }
                return decoded
            }
            if reader.info.frames == 0, containers.contains(format),
               let recovered = try? FFmpegAudioReader(path: path) {
                return recovered
            }
            return reader
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
    }

    /// The formats decoded through FFmpeg.
    static let ffmpegFormats: Set<String> = ["m4a", "m4b", "mp3", "flac", "ogg", "opus", "mp4", "mov", "3gp", "mkv", "webm"]

    /// What can be refused from the header alone (a system sound longer than 30 s).
    func check(_ reader: AudioSource) throws {
        if settings.systemSound, reader.info.frames > 0, reader.info.duration > Self.systemSoundLimit {
            throw ItemFailure(.limit, String(format: "is %.1f s long; system sounds must be at most %.0f s", reader.info.duration,
                                     Self.systemSoundLimit))
        }
    }

    /// The item's tags and cover art, and what could not be read of them. A file whose tags
    /// cannot be read at all has none, with the reason as a warning (its audio may still be fine
    /// — the decoder decides; a job that needs the tags fails the item, see `requireTags`).
    static func readTags(_ path: String) -> (tags: MediaTags, warnings: [String], failure: String?) {
        do {
            let tags = try TagIO.read(path: path)
            return (tags, tags.warnings, nil)
        } catch let error as TagIOError {
            return (MediaTags(), [error.reason], error.reason)
        } catch {
            return (MediaTags(), ["cannot read the tags of \(path): \(error)"], "cannot read the tags of \(path): \(error)")
        }
    }

    /// Property names that come from tags (docs/library.md, "Properties"), which a job cannot use when the tags could not be read.
    static let tagProperties = Set(MediaTags.names + ["artwork", "podcastTitle"])

    /// How an output is written: by libsndfile (PCM, FLAC, ALAC in CAF, µ-law, A-law) or by
    /// FFmpeg's encoders (AAC, ALAC in M4A, Opus, MP3, IMA4).
    enum Plan {
        case sndfile(AudioOutputFormat)
        /// FFmpeg's muxer and encoder, and the container the muxer makes.
        case ffmpeg(FFmpegOutputFormat, AudioContainer)

        /// The container the output is, decided with its writer: the tag writer takes it from here.
        var container: AudioContainer {
            switch self {
            case .sndfile(let format):
                switch format.container {
                case .caf: return .caf
                case .wav: return .wav
                case .aiff: return .aiff
                case .flac: return .flac
                }
            case .ffmpeg(_, let container): return container
            }
        }

        var sampleRate: Int {
            switch self {
            case .sndfile(let format): return format.sampleRate
            case .ffmpeg(let format, _): return format.sampleRate
            }
        }
        var channels: Int {
            switch self {
            case .sndfile(let format): return format.channels
            case .ffmpeg(let format, _): return format.channels
            }
        }
    }

    /// Rates Opus encodes at (RFC 6716).
    static let opusRates = [8000, 12000, 16000, 24000, 48000]

    /// Bit rate per channel when none is given, by AVEncoderAudioQualityKey (AAC, Opus, MP3).
    func defaultBitRatePerChannel() -> Int {
        switch settings.encoderQuality {
        case .min: return 32000
        case .low: return 48000
        case .medium: return 64000
        case .high: return 96000
        case .max: return 128_000
        }
    }

    /// The writer for an output of extension `ext` (lowercased), which picks the container.
    /// Lossless outputs keep the source's depth unless AVLinearPCMBitDepthKey sets one; a depth
    /// the output cannot hold becomes the nearest it can, noted in `warnings`.
    func plan(for info: AudioStreamInfo, ext: String, warnings: inout [String]) throws -> Plan {
        let channels = settings.channels ?? info.channels
        var rate = settings.sampleRate ?? info.sampleRate
        func depth(_ supported: [Int], _ what: String) -> Int {
            let (bits, warning) = Self.losslessDepth(wanted: settings.bitDepth, source: info, supported: supported, output: what)
            if let warning { warnings.append(warning) }
            return bits
        }
        let bitRate = settings.bitRate ?? (settings.bitRatePerChannel ?? defaultBitRatePerChannel()) * channels
        // A source rate the codec cannot carry (no AVSampleRateKey): the nearest it can (the higher
        // of two as near), resampled, with a warning — as ffmpeg picks the closest supported rate.
        func keptRate(_ supported: [Int], _ what: String) -> Int {
            guard settings.sampleRate == nil, !supported.contains(rate),
                  let nearest = supported.min(by: { (abs($0 - rate), -$0) < (abs($1 - rate), -$1) }) else { return rate }
            warnings.append("\(what) cannot hold \(rate) Hz: resampled to \(nearest) Hz (set AVSampleRateKey to choose)")
            return nearest
        }
        func unsupported() -> ItemFailure {
            ItemFailure(.unsupported, "\(settings.format.rawValue) cannot be written as .\(ext); use .\(defaultExtension)")
        }
        let row = AudioFormatTable.row(settings.format)
        if let writer = row.ffmpeg.first(where: { $0.extensions.contains(ext) }) {
            func encoded(bitRate: Int? = nil, bitsPerSample: Int? = nil) -> Plan {
                .ffmpeg(FFmpegOutputFormat(muxer: writer.muxer, codec: writer.codec, sampleRate: rate, channels: channels,
                                           bitRate: bitRate, bitsPerSample: bitsPerSample), writer.container)
            }
            switch settings.format {
            case .mpeg4AAC:
                rate = keptRate(TranscodeSettings.aacRates, "AAC")
                if !TranscodeSettings.aacRates.contains(rate) {
                    throw ItemFailure(.unsupported, "AAC cannot be encoded at \(rate) Hz; set AVSampleRateKey to 44100 or 48000")
                }
                return encoded(bitRate: bitRate)
            case .appleLossless:
                return encoded(bitsPerSample: depth([16, 24], "ALAC in .m4a"))
            case .opus:
                if settings.sampleRate == nil, !Self.opusRates.contains(rate) { rate = 48000 }
                guard Self.opusRates.contains(rate) else {
                    throw ItemFailure(.unsupported, "Opus cannot be encoded at \(rate) Hz; use 8000, 12000, 16000, 24000 or 48000")
                }
                return encoded(bitRate: bitRate)
            case .mpegLayer3:
                rate = keptRate(TranscodeSettings.mp3Rates, "MP3")
                guard TranscodeSettings.mp3Rates.contains(rate) else {
                    throw ItemFailure(.unsupported, "MP3 cannot be encoded at \(rate) Hz; use " + TranscodeSettings.mp3Rates.map(String.init).joined(separator: ", "))
                }
                return encoded(bitRate: bitRate)
            case .appleIMA4, .linearPCM, .flac, .uLaw, .aLaw:
                return encoded()
            }
        }
        guard row.sndfile, let container = AudioFormatTable.sndfileContainer(ext) else { throw unsupported() }
        let encoding: AudioOutputFormat.Encoding
        switch settings.format {
        case .linearPCM:
            encoding = settings.isFloat ? .float(bits: settings.bitDepth ?? 32) : .pcm(bits: depth([8, 16, 24, 32], "linear PCM"))
        case .appleLossless: encoding = .alac(bits: depth([16, 20, 24, 32], "ALAC"))
        case .flac: encoding = .flac(bits: depth([8, 16, 24], "FLAC"))
        case .uLaw: encoding = .ulaw
        default: encoding = .alaw
        }
        let format = AudioOutputFormat(container: container, encoding: encoding, sampleRate: rate, channels: channels,
                                       bigEndian: settings.isBigEndian)
        guard format.isWritable else {
            throw ItemFailure(.unsupported, "\(settings.format.rawValue) (\(encoding)) cannot be stored in .\(ext)"
                              + (settings.isBigEndian != nil ? " with that byte order" : ""))
        }
        return .sndfile(format)
    }

    /// The depth a lossless output is written at: the one asked for, else the source's (24 for
    /// floating-point sources, 16 for lossy ones); when `supported` lacks it, the nearest that
    /// holds it, else the deepest, with a warning when that loses bits.
    static func losslessDepth(wanted: Int?, source: AudioStreamInfo, supported: [Int],
                              output: String) -> (bits: Int, warning: String?) {
        let floatSource = wanted == nil && source.isFloat
        let bits = wanted ?? (source.isFloat ? 24 : source.bitDepth ?? 16)
        let chosen = supported.first { $0 >= bits } ?? supported.max() ?? bits
        if chosen < bits {
            return (chosen, "\(output) cannot hold \(bits)-bit samples; written as \(chosen)-bit")
        }
        if floatSource, let sourceBits = source.bitDepth {
            return (chosen, "\(sourceBits)-bit floating-point samples written as \(chosen)-bit integers")
        }
        return (chosen, nil)
    }

    /// Whether the output stores samples in a range that ends at full scale (everything but
    /// libsndfile's float PCM): samples beyond it are clipped, and counted.
    static func clips(_ plan: Plan) -> Bool {
        if case .sndfile(let format) = plan, case .float = format.encoding { return false }
        return true
    }

    /// SoX's word for samples beyond full scale: "clipped 1,234 samples".
    static func clippingWarning(_ count: Int) -> String {
        let digits = String(count)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return "clipped \(grouped) sample\(count == 1 ? "" : "s")"
    }

    /// What a transcode measured.
    struct Outcome {
        /// Per-channel levels, when the job asked for metering.
        var meter: Meter?
        /// The output's loudness as written, when the job measures it (`measuresLoudness`).
        var loudness: LoudnessMeasurement?
        var duration: Double
        /// Damaged frames the decoder skipped.
        var damagedFrames = 0
        /// Samples (per channel, counted separately) beyond full scale that the output clipped.
        var clipped = 0
        /// What the item should hear about its level, trim or fade (a lowered target, a shortened fade).
        var warnings: [String] = []
        /// What a loudness normalization measured and did.
        var normalization: NormalizationRecord?
    }

    /// What one pass over the stream measures at its end.
    struct Measures {
        /// Peak and average power per channel (AVAudioPlayer's metering, peak normalize).
        var meter = false
        /// EBU R128 loudness (analyze, loudness normalize, ReplayGain).
        var loudness = false
        /// Where sound starts and ends (trims, fades that need the end).
        var extent = false
        /// What the loudness meter measures besides integrated loudness and the sample peak.
        var loudnessOptions: LoudnessMeter.Options = .all
        /// RMS and noise floor per channel (the audiobook preset's ACX check).
        var levels = false

        var any: Bool { meter || loudness || extent || levels }
    }

    /// What one pass over the stream produced.
    struct Pass {
        var meter: Meter?
        var loudness: LoudnessMeasurement?
        /// The loudness meter itself, for pooling an album's tracks (`LoudnessMeter.integrated(of:)`).
        var loudnessMeter: LoudnessMeter?
        /// RMS and quietest-window levels, when asked (`Measures.levels`).
        var levels: LevelStatistics?
        /// Frames produced, counted after the pass's steps.
        var frames = 0
        var clipped = 0
        /// Where sound starts and ends, when the pass measured it (`Measures.extent` with a trim).
        var extent: SoundExtent?
        /// With a cut: the frames the stream held before it (at the output rate).
        var uncut: Int?
    }

    /// Writes the item into `temporaryPath`. `album` is the loudness of the item's album, in album mode.
    func render(_ reader: AudioSource, plan: Plan, to temporaryPath: String, album: AlbumLoudness? = nil) throws -> Outcome {
        do {
            var warnings: [String] = []
            let cut = try cutFrames(reader, plan: plan)
            // The first pass: what the written pass needs to know of the whole stream before it starts.
            let needs = firstPassMeasures(album: album)
            var first: Pass?
            if needs.any {
                first = try stream(reader, plan: plan, cut: cut, steps: [], writer: nil, measures: needs)
                try reader.rewind()
                try checkCut(cut, pass: first, rate: plan.sampleRate)
            }
            var gain = try level(first: first, album: album, warnings: &warnings)
            try limitedLoudness(&gain, reader, plan: plan, cut: cut, first: first, warnings: &warnings)
            var editWarnings: [String] = []
            func write(_ gain: Level) throws -> Pass {
                let writer: AudioSink
                switch plan {
                case .sndfile(let format): writer = try AudioWriter(path: temporaryPath, format: format)
                case .ffmpeg(let format, _): writer = try FFmpegAudioWriter(path: temporaryPath, format: format)
                }
                editWarnings = []
                let steps = preLevelSteps(plan, first: first) + levelSteps(plan, gain: gain)
                    + postLevelSteps(plan, first: first, warnings: &editWarnings)
                let written = try stream(reader, plan: plan, cut: cut, steps: steps, writer: writer,
                                         measures: Measures(meter: metering, loudness: measuresLoudness))
                if first == nil { try checkCut(cut, pass: written, rate: plan.sampleRate) }
                editWarnings += cutWarnings(cut, pass: first ?? written, rate: plan.sampleRate)
                // An output without a frame is no transcode, whatever the header promised.
                guard written.frames > 0 else { throw ItemFailure(.decode, "no audio: the stream decodes to 0 frames") }
                editWarnings += editCheck(first: first, written: written, steps: steps)
                try writer.close()
                return written
            }
            var written = try write(gain)
            if deliveryChecked(plan) {
                (gain, written) = try deliver(gain, written, reader: reader, output: temporaryPath, rewrite: write, warnings: &warnings)
            }
            warnings += editWarnings
            return Outcome(meter: written.meter, loudness: written.loudness,
                           duration: Double(written.frames) / Double(plan.sampleRate),
                           damagedFrames: reader.damagedFrames, clipped: written.clipped, warnings: warnings,
                           normalization: gain.normalization)
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
    }

    /// Measures the stream's loudness as it would be written by `plan` (mixed and resampled), without
    /// writing it: the measurement pass of album mode. The reader is left at its end.
    func measureLoudness(_ reader: AudioSource, plan: Plan) throws -> Pass {
        do {
            // No loudness range: an album needs none, and its 3 s window would make each track's
            // meter, held until the album is complete, 3× larger (3.0 MB rather than 1.06 MB at 48 kHz stereo).
            let cut = try cutFrames(reader, plan: plan)
            let pass = try stream(reader, plan: plan, cut: cut, steps: [], writer: nil,
                                  measures: Measures(loudness: true, loudnessOptions: .truePeak))
            try checkCut(cut, pass: pass, rate: plan.sampleRate)
            return pass
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
    }

    /// What the first pass must measure: the peak for a peak normalize; the loudness for a loudness
    /// normalize (unless the album's is given), and the RMS levels for the audiobook preset; the
    /// length and where sound starts and ends for a trim or fade.
    func firstPassMeasures(album: AlbumLoudness?) -> Measures {
        let loudness = settings.loudness
        return Measures(meter: settings.normalizePeak != nil, loudness: loudness != nil && album == nil,
                        extent: settings.trim != nil || settings.fade != nil, levels: loudness?.preset == .audiobook)
    }

    /// The level of the written pass: a gain, and what a loudness normalization decided.
    struct Level {
        var gain: Float = 1
        /// The ceiling (linear) a true-peak limiter holds after the gain; nil: no limiter.
        var limiter: Float?
        var normalization: NormalizationRecord?
    }

    /// The level of the written pass: `gain:`, or the one a normalize computes from the first pass
    /// (a loudness normalize from the album's loudness in album mode, see `LoudnessNormalizer`).
    func level(first: Pass?, album: AlbumLoudness?, warnings: inout [String]) throws -> Level {
        if let target = settings.normalizePeak {
            let peak = first?.meter?.peak.max() ?? 0
            return Level(gain: peak > 0 ? Float(Foundation.pow(10, target / 20)) / peak : 1)
        }
        if let loudness = settings.loudness {
            let decision = LoudnessNormalizer.decide(loudness, track: first?.loudness, album: album, levels: first?.levels)
            warnings += decision.warnings
            return Level(gain: decision.factor, limiter: decision.limiter.map { Float(pow10($0 / 20)) },
                         normalization: decision.record)
        }
        return Level(gain: settings.gain.map(Float.init) ?? 1)
    }

    /// With a true-peak limiter the loudness comes out lower than the gain says (the peaks it takes
    /// off carry loudness): measuring passes through the gain and the limiter find by how much, and
    /// the gain makes it up (the limiter then works harder, so up to three passes, until within
    /// 0.1 LU). The gain written is always one a pass measured; a shortfall is a warning.
    func limitedLoudness(_ level: inout Level, _ reader: AudioSource, plan: Plan, cut: CutFrames?, first: Pass?,
                         warnings: inout [String]) throws {
        // Not in album mode: a make-up per track would change the album's relative levels.
        guard level.limiter != nil, level.normalization?.album == nil, let target = settings.loudness?.target,
              settings.loudness?.preset != .audiobook else { return }
        var madeUp = 0.0
        for attempt in 1...Self.limiterPasses {
            let trial = try stream(reader, plan: plan, cut: cut, steps: preLevelSteps(plan, first: first) + levelSteps(plan, gain: level),
                                   writer: nil, measures: Measures(loudness: true))
            try reader.rewind()
            guard let reached = trial.loudness?.integrated else { return }
            let missing = target - reached
            // At most 6 dB in all: a limiter that takes off more is squashing the item, not catching its peaks.
            let step = min(missing, Self.limiterMakeUpLimit - madeUp)
            if abs(missing) <= 0.1 || attempt == Self.limiterPasses || step <= 0.05 {
                if var record = level.normalization {
                    record.gain = LoudnessNormalizer.rounded(record.gain + madeUp)
                    record.limiterMakeUp = LoudnessNormalizer.rounded(madeUp)
                    record.target = LoudnessNormalizer.rounded(reached)
                    if abs(missing) > 0.005 { record.requested = target }
                    level.normalization = record
                }
                if abs(missing) > 0.3 {
                    warnings.append(String(format: "the true-peak limiter took loudness off: reaches %.1f LUFS, not %.1f (%.1f dB made up)",
                                           reached, target, madeUp))
                }
                return
            }
            level.gain *= Float(pow10(step / 20))
            madeUp += step
        }
    }

    /// Whether a loudness normalization's output is decoded and measured as delivered: a lossy
    /// codec (AAC, MP3, Opus) moves the true peak, by up to a dB on loud music.
    func deliveryChecked(_ plan: Plan) -> Bool {
        guard let loudness = settings.loudness, loudness.preset != .audiobook, case .ffmpeg(let format, _) = plan else { return false }
        return Self.lossyCodecs.contains(format.codec)
    }

    static let lossyCodecs: Set<String> = ["aac", "libmp3lame", "libopus"]
    /// Encodes in all, the first included, while the delivered true peak is over the ceiling.
    static let deliveryPasses = 3
    /// dB below the ceiling a re-encode aims at, beyond the overshoot measured: the codec's
    /// overshoot moves a little with the level.
    static let deliveryMargin = 0.1

    /// The loudness of the output as delivered: decoded and measured (integrated, true peak).
    /// While its true peak is over the ceiling, the level is lowered by the overshoot (the
    /// limiter's ceiling with `limit: true`, else the gain) and the item encoded again, up to
    /// `deliveryPasses` encodes. The delivered figures go into the record; a ceiling or target
    /// missed is a warning naming both figures.
    func deliver(_ level: Level, _ written: Pass, reader: AudioSource, output: String,
                 rewrite: (Level) throws -> Pass, warnings: inout [String]) throws -> (Level, Pass) {
        var level = level, written = written
        guard let loudness = settings.loudness, var record = level.normalization else { return (level, written) }
        // An item left as it is (within the threshold, lowerOnly, silent) keeps its level.
        let adjusts = record.note == nil || record.note == "limited" || record.note == "truePeak"
        var passes = 1
        var lowered = 0.0, madeUp = 0.0
        var delivered: LoudnessMeasurement?
        while true {
            let decoded = try FFmpegAudioReader(path: output)
            let (meter, plan) = AudioStage.measuring(decoded.info)
            delivered = try meter.measureLoudness(decoded, plan: plan).loudness
            guard adjusts, passes < Self.deliveryPasses, let peak = delivered?.truePeakDecibels,
                  let integrated = delivered?.integrated else { break }
            let over = peak - loudness.truePeak
            // The codec moves the loudness too (an MP3's lowpass takes off a few tenths of a LU):
            // a miss beyond `deliveryLoudnessSlack` is made up where the ceiling allows.
            let miss = loudness.target - integrated
            var ceilingStep = 0.0, gainStep = 0.0
            // `limit: true` whose limiter was not needed before the encoder: it holds the peaks now.
            if over > 0, loudness.limit, level.limiter == nil {
                level.limiter = Float(pow10(loudness.truePeak / 20))
                record.limiter = true
            }
            // An encoder's overshoot does not fall as fast as the level (AAC on clipped masters):
            // each further pass steps further.
            let escalation = Double(passes)
            if level.limiter != nil {
                if over > 0 { ceilingStep = (over + Self.deliveryMargin) * escalation }
                if abs(miss) > Self.deliveryLoudnessSlack, record.note != "truePeak" { gainStep = miss }
            } else if over > 0 {
                gainStep = -(over + Self.deliveryMargin) * escalation
            } else if abs(miss) > Self.deliveryLoudnessSlack, record.note != "truePeak" {
                gainStep = min(miss, -over - Self.deliveryMargin)
            }
            guard ceilingStep > 0 || abs(gainStep) >= 0.05 else { break }
            if let ceiling = level.limiter, ceilingStep > 0 { level.limiter = ceiling * Float(pow10(-ceilingStep / 20)) }
            level.gain *= Float(pow10(gainStep / 20))
            lowered += ceilingStep - (level.limiter == nil ? gainStep : 0)
            madeUp += gainStep
            try reader.rewind()
            written = try rewrite(level)
            passes += 1
        }
        let integrated = delivered?.integrated, peak = delivered?.truePeakDecibels
        record.delivered = DeliveredLoudness(integrated: integrated.map(LoudnessNormalizer.rounded),
                                             truePeak: peak.map(LoudnessNormalizer.rounded), encodes: passes,
                                             lowered: lowered > 0 ? LoudnessNormalizer.rounded(lowered) : nil)
        if madeUp != 0 { record.gain = LoudnessNormalizer.rounded(record.gain + madeUp) }
        level.normalization = record
        if let peak, peak > loudness.truePeak {
            warnings.append(String(format: "the delivered true peak %.1f dBTP is over the %.1f dBTP ceiling after %d encodes",
                                   peak, loudness.truePeak, passes))
        }
        if adjusts, let integrated, abs(integrated - loudness.target) > Self.deliveredTolerance {
            warnings.append(String(format: "delivered at %.1f LUFS, not the %.1f LUFS target (true peak %.1f dBTP, ceiling %.1f dBTP)",
                                   integrated, loudness.target, peak ?? -.infinity, loudness.truePeak))
        }
        return (level, written)
    }

    /// LU the delivered loudness may miss the target by before another encode makes it up.
    static let deliveryLoudnessSlack = 0.2
    /// LU the delivered loudness may miss the target by before it is said: what delivery specs allow (±0.5 LU).
    static let deliveredTolerance = 0.5

    /// The most a limiter's loss of loudness is made up, dB, and the measuring passes spent on it.
    static let limiterMakeUpLimit = 6.0
    static let limiterPasses = 3

    /// The steps before the level is set: trims (by absolute frame position, from the first pass).
    func preLevelSteps(_ plan: Plan, first: Pass?) -> [AudioProcessor] {
        guard let first, let step = edit(first: first, rate: plan.sampleRate)?.trimStep(total: first.frames, channels: plan.channels)
        else { return [] }
        return [step]
    }

    /// The steps that set the level: the gain (of `gain:` or a normalize), and a true-peak limiter.
    func levelSteps(_ plan: Plan, gain level: Level) -> [AudioProcessor] {
        var steps: [AudioProcessor] = level.gain == 1 ? [] : [GainProcessor(gain: level.gain, channels: plan.channels)]
        if let ceiling = level.limiter {
            steps.append(TruePeakLimiter(channels: plan.channels, sampleRate: plan.sampleRate, ceiling: ceiling))
        }
        return steps
    }

    /// The steps after the level: fades (positions counted after the trim). The trim's and the
    /// fade's warnings are said here, once.
    func postLevelSteps(_ plan: Plan, first: Pass?, warnings: inout [String]) -> [AudioProcessor] {
        guard let edit = edit(first: first, rate: plan.sampleRate) else { return [] }
        warnings += edit.warnings
        return edit.fadeStep(channels: plan.channels).map { [$0] } ?? []
    }

    /// One pass over the stream: decode → mix → resample → `steps` → measure → write (when
    /// `writer` is given). Measuring costs a look at every sample, so only what `measures` asks.
    private func stream(_ reader: AudioSource, plan: Plan, cut: CutFrames? = nil, steps: [AudioProcessor], writer: AudioSink?,
                        measures: Measures) throws -> Pass {
        let inChannels = reader.info.channels, outChannels = plan.channels
        let mixer = inChannels == outChannels ? nil : ChannelMixer.standard(from: inChannels, to: outChannels)
        let resampler = reader.info.sampleRate == plan.sampleRate ? nil
            : try Resampler(quality: settings.converterQuality.converter, channels: outChannels,
                            from: reader.info.sampleRate, to: plan.sampleRate)
        // The frames before a cut are skipped unheard when a frame of the stream is a frame of the output
        // (no resampler, whose output depends on what came before): a seek where the decoder has one
        // (libsndfile's PCM), else decoded and dropped before any mixing, metering or writing.
        var skipped = 0
        if let cut, cut.start > 0, resampler == nil { skipped = try reader.skip(frames: cut.start) }
        // The cut comes first: every step after it (trim, level, fade) and every measure see the kept part alone.
        let cutStep = cut.map { TrimProcessor(start: $0.start - skipped, end: $0.end == Int.max ? Int.max : $0.end - skipped, channels: plan.channels) }
        let steps = (cutStep.map { [$0] } ?? []) + steps
        let frames = Self.blockFrames
        let input = UnsafeMutablePointer<Float>.allocate(capacity: frames * inChannels)
        let mixed = UnsafeMutablePointer<Float>.allocate(capacity: frames * outChannels)
        let capacity = Int((Double(frames) * (resampler?.ratio ?? 1)).rounded(.up)) + 64
        let resampled = UnsafeMutablePointer<Float>.allocate(capacity: capacity * outChannels)
        defer { input.deallocate(); mixed.deallocate(); resampled.deallocate() }
        var meter = measures.meter ? Meter(channels: outChannels) : nil
        var extent = measures.extent ? settings.trim.map { SoundExtent(threshold: Float(pow10($0.silence / 20)), channels: outChannels) } : nil
        var levels = measures.levels ? LevelStatistics(channels: outChannels, sampleRate: plan.sampleRate) : nil
        let loudness = measures.loudness
            ? try LoudnessMeter(channels: outChannels, sampleRate: plan.sampleRate, options: measures.loudnessOptions) : nil
        var produced = 0, clipped = 0
        let counting = writer != nil && Self.clips(plan)

        let chain = AudioChain(steps) { block, count in
            meter?.add(block, frames: count)
            extent?.add(block, frames: count)
            levels?.add(block, frames: count)
            try loudness?.add(block, frames: count)
            if counting {
                for index in 0..<(count * outChannels) where block[index] > 1 || block[index] < -1 { clipped += 1 }
            }
            produced += count
            try writer?.write(block, frames: count)
        }
        func emit(_ block: UnsafeMutablePointer<Float>, _ count: Int) throws {
            try chain.push(block, count: count)
        }

        var decoded = skipped
        // Past the cut's end nothing more is heard: the stream stops there (a segment of a long recording
        // does not decode the rest of it).
        var stopped = false
        while true {
            if let cutStep, cutStep.received >= cutStep.end {
                stopped = true
                break
            }
            let read = try reader.read(into: input, frames: frames)
            decoded += read
            // A header that understates the length (a FLAC's STREAMINFO total is only a hint)
            // passed `check`; the decode itself must not run past the system-sound limit.
            if settings.systemSound, Double(decoded) > Self.systemSoundLimit * Double(reader.info.sampleRate) {
                throw ItemFailure(.limit, String(format: "is longer than %.0f s (its header says %.1f s); system sounds must be at most %.0f s",
                                         Self.systemSoundLimit, reader.info.duration, Self.systemSoundLimit))
            }
            let end = read < frames
            var block = input
            if let mixer {
                mixer.mix(input, frames: read, into: mixed)
                block = mixed
            }
            if let resampler {
                var offset = 0
                repeat {
                    let (used, made) = try resampler.process(block + offset * outChannels, frames: read - offset,
                                                             into: resampled, capacity: capacity, end: end)
                    offset += used
                    try emit(resampled, made)
                    if end && made == 0 && offset >= read { break }
                } while offset < read || end
            } else {
                try emit(block, read)
            }
            if end { break }
        }
        try chain.finish()
        // A stream that ends before its header says is damaged, even when the decoder stays quiet
        // (libsndfile reads a cut FLAC to the cut). MP3 headers only estimate their length, and
        // MP4 durations include the encoder's priming and padding.
        // Through FFmpeg, only FLAC's count is exact (a cut file decodes short, with or without
        // decode errors); more than it says is fine, since the count is only a hint.
        let exactCount = (reader as? FFmpegAudioReader).map { $0.info.container == "flac" && $0.countIsStated }
            ?? !reader.info.container.contains("MPEG")
        if !stopped, reader.info.frames > 0, decoded < reader.info.frames, exactCount {
            throw ItemFailure(.decode, "truncated: the stream ends after \(decoded) of \(reader.info.frames) frames")
        }
        return Pass(meter: meter, loudness: try loudness?.measurement(), loudnessMeter: loudness, levels: levels,
                    frames: produced, clipped: clipped, extent: extent, uncut: cutStep.map { $0.received + skipped })
    }
}

/// The stage an audio item goes through, and the measuring stage of a stream as it is.
extension AudioStage {
    /// The job's transcode stage, if it can take this stream (checked before anything is named);
    /// nil for a job that only tags (`tag:` without `transcode:`), whose audio is copied with new
    /// tags (`Steps/AudioCopyStep`).
    static func taking(_ reader: AudioSource, format: String, _ stage: AudioStage?, job: Job? = nil) throws -> AudioStage? {
        guard let stage else {
            if job?.tag != nil { return nil }
            throw ItemFailure(.unsupported, "\(format) audio needs a 'transcode' stage in this job")
        }
        // `AVFormatIDKey: copy`: the stream as it is, with the tags (Steps/AudioCopyStep).
        if stage.settings.copyAudio { return nil }
        try stage.check(reader)
        return stage
    }

    /// This stage for one part of a recording (`transcode.segment`): the part's bounds as its cut.
    func part(_ segment: SegmentPart?) -> AudioStage {
        guard let segment, let every = settings.segment else { return self }
        var cut = settings
        cut.cut = TimeCut.segment(segment, every: every, of: settings.cut)
        var stage = AudioStage(settings: cut, metering: metering)
        stage.measuresLoudness = measuresLoudness
        return stage
    }

    /// A stage and plan that measure a stream as it is (its own rate and channels), writing nothing.
    static func measuring(_ info: AudioStreamInfo) -> (AudioStage, AudioStage.Plan) {
        let stage = AudioStage(settings: TranscodeSettings(), metering: false)
        let plan = AudioStage.Plan.sndfile(AudioOutputFormat(container: .wav, encoding: .float(bits: 32),
                                                             sampleRate: info.sampleRate, channels: info.channels))
        return (stage, plan)
    }
}

/// `cut:` in the stream: frame positions at the output rate, and what a cut past the end does.
extension AudioStage {
    /// The frames a cut keeps, `start..<end` of the decoded stream at the output rate.
    struct CutFrames: Equatable {
        var start: Int
        var end: Int
    }

    /// The cut's frames; for a share of the item (`25%`) the stream is decoded once first to count
    /// them (its header's length is only an estimate for MP3 and a hint for FLAC). nil without a cut.
    func cutFrames(_ reader: AudioSource, plan: Plan) throws -> CutFrames? {
        guard let cut = settings.cut else { return nil }
        var total: Int?
        if cut.needsLength {
            total = try stream(reader, plan: plan, steps: [], writer: nil, measures: Measures()).frames
            try reader.rewind()
        }
        let (start, end) = cut.frames(rate: plan.sampleRate, total: total)
        return CutFrames(start: start, end: end)
    }

    /// A cut that starts at or past the end of the stream keeps nothing: the item fails, naming both.
    func checkCut(_ cut: CutFrames?, pass: Pass?, rate: Int) throws {
        guard let cut, let total = pass?.uncut, cut.start >= total else { return }
        throw ItemFailure(.stage, "cut starts at \(AudioEdit.seconds(Double(cut.start) / Double(max(rate, 1)))) s, "
                          + "past the end of the item (\(AudioEdit.seconds(Double(total) / Double(max(rate, 1)))) s)")
    }

    /// A cut whose end is past the item's end keeps up to the end, said (as sox says it).
    func cutWarnings(_ cut: CutFrames?, pass: Pass, rate: Int) -> [String] {
        guard let cut, cut.end != Int.max, let total = pass.uncut, cut.end > total else { return [] }
        return ["cut ends at \(AudioEdit.seconds(Double(cut.end) / Double(max(rate, 1)))) s, past the end of the item "
                + "(\(AudioEdit.seconds(Double(total) / Double(max(rate, 1)))) s): kept to the end"]
    }
}
