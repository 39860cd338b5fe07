import CFFmpegShim
import Foundation

/// Movies (MP4, M4V, MOV, 3GP, MKV, WebM and whatever else FFmpeg demuxes): probe, the frame at a
/// time, and re-encoding to H.264 + AAC in MP4. Damaged files throw `MediaError`, never hang:
/// decoding stops at the end of the file or after 100 rejected packets.
public enum Movie {
    /// Reads the container and stream headers.
    public static func probe(path: String) throws -> MovieInfo {
        final class Tags { var values: [String: String] = [:]; var ordered: [MovieTag] = [] }
        let tags = Tags()
        var raw = MedleyMovieInfo()
        _ = try withExtendedLifetime(tags) {
            try checked("probe", path: path) { error, size -> Bool? in
                medley_movie_probe(path, &raw, { context, key, value in
                    guard let context, let key, let value else { return }
                    let spelt = String(cString: key), name = spelt.lowercased()
                    guard !Movie.structuralTags.contains(name) else { return }
                    let tags = Unmanaged<Tags>.fromOpaque(context).takeUnretainedValue()
                    tags.values[name] = String(cString: value)
                    tags.ordered.append(MovieTag(key: spelt, value: String(cString: value)))
                }, Unmanaged.passUnretained(tags).toOpaque(), error, size) == 0 ? true : nil
            }
        }
        let audio = cText(&raw.audio_codec)
        var info = MovieInfo(
            duration: raw.duration, startTime: raw.start_time, width: Int(raw.width), height: Int(raw.height),
            pixelAspectNumerator: raw.sar_num > 0 ? Int(raw.sar_num) : 1, pixelAspectDenominator: raw.sar_num > 0 ? Int(raw.sar_den) : 1,
            frameRateNumerator: Int(raw.frame_rate_num), frameRateDenominator: Int(raw.frame_rate_den),
            videoCodec: cText(&raw.video_codec), audioCodec: audio.isEmpty ? nil : audio,
            sampleRate: Int(raw.sample_rate), channels: Int(raw.channels), bitRate: Int(raw.bit_rate),
            rotation: Int(raw.rotation), tags: tags.values, format: cText(&raw.format), pixelFormat: cText(&raw.pixel_format),
            containerTags: tags.ordered)
        info.videoStream = Int(raw.video_stream)
        info.fieldOrder = Int(raw.field_order)
        info.transfer = Int(raw.transfer)
        info.audioTracks = Int(raw.audio_tracks)
        info.subtitleTracks = Int(raw.subtitle_tracks)
        info.chapters = Int(raw.chapters)
        info.audioLanguages = cText(&raw.audio_languages)
        info.subtitleLanguages = cText(&raw.subtitle_languages)
        return info
    }

    /// How far short of the container's duration a re-encode's decoded pictures and sound may
    /// end before the source counts as truncated (rounded durations, a trailing audio frame).
    static let truncationSlack = 0.5

    /// MP4 brand fields: they describe the file's structure, not the movie.
    static let structuralTags: Set<String> = ["major_brand", "minor_version", "compatible_brands"]

    /// The frame on screen at `seconds` from the container's start, exactly: seeks to the keyframe
    /// before it, then decodes forward to the first frame whose timestamp is at or after `seconds`,
    /// which is what `ffmpeg -ss seconds -i path -frames:v 1` returns. Past the last timestamp
    /// but before the container's end, the last frame. 8-bit RGB converted as FFmpeg's CLI does
    /// (bicubic swscale, the stream's YUV matrix and range). `displayed`: turned by the movie's
    /// rotation (as players and FFmpeg's CLI show it); pixel aspect is never applied.
    public static func frame(path: String, at seconds: Double, displayed: Bool = true) throws -> MovieFrame {
        var width: Int32 = 0, height: Int32 = 0, rotation: Int32 = 0, time = 0.0
        let pixels = try checked("decode a frame", path: path) { error, size in
            medley_movie_frame_rgb(path, seconds, &width, &height, &time, &rotation, error, size)
        }
        defer { free(pixels) }
        let rgb = Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3))
        let stored = MovieFrame(width: Int(width), height: Int(height), time: time, rgb: rgb)
        return displayed && rotation != 0 ? stored.rotated(clockwise: Int(rotation)) : stored
    }

    /// The poster frame at a time or a fraction of the duration, as displayed, as a libvips image.
    public static func poster(path: String, at time: PosterTime) throws -> VipsImage {
        let seconds: Double
        switch time {
        case .seconds(let value): seconds = value
        case .fraction(let value): seconds = try probe(path: path).duration * value
        }
        return try frame(path: path, at: seconds).image()
    }

    /// Re-encodes `path` into an MP4 at `output` per `preset`, fitting the picture by `mode`.
    /// Container tags (title, artist, comment, date, …) and the display matrix are copied; the
    /// pixels stay in stored orientation. A partial output is deleted when this throws.
    @discardableResult
    public static func transcode(path: String, to output: String, preset: VideoQualityPreset,
                                 mode: MovieScalingMode = .aspectFit) throws -> MovieTranscodeResult {
        try transcode(path: path, to: output, encoding: preset.encoding, mode: mode)
    }

    /// Re-encodes with explicit settings (what a preset stands for; see `VideoQualityPreset`) into
    /// the container `container` names (an extension: mp4, m4v, mov, mkv, webm).
    @discardableResult
    ///
    /// `tracks` says which audio and subtitle tracks come along (all, by default), with the
    /// chapters and attachments; `copyVideo` copies the picture's packets instead of re-encoding
    /// them (`videoCodec: copy`; the sound is then copied or re-encoded per `encoding.audio`).
    public static func transcode(path: String, to output: String, encoding: VideoEncoding,
                                 mode: MovieScalingMode = .aspectFit, container: String = "mp4",
                                 tracks: MovieTracks = MovieTracks(), copyVideo: Bool = false,
                                 subtitleFiles: [(path: String, language: String, flags: Int32)] = []) throws -> MovieTranscodeResult {
        let source = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        guard source != URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath() else {
            throw MediaError(.medley, "transcode", "the output would overwrite the movie being read", cause: .unsupported)
        }
        var hdrMetadata = (masterDisplay: "", maxCLL: 0, maxFALL: 0)
        var mastering: [Double] = []
        let info = try probe(path: path)
        // The pictures looked at: interlacing, black bars and HDR decided from sampled frames.
        var decisions = MoviePictureDecisions(), pictureWarnings: [String] = []
        var framed = info, origin = (x: 0, y: 0)
        if !copyVideo {
            let p = encoding.pictures
            // A stream whose headers say it is progressive is taken at its word (a short clip would
            // otherwise be decoded about twice); black bars and the rest are sampled as asked.
            let scan = p.crop == .auto || (p.deinterlace == .auto && info.fieldOrder != 1)
            var analysis = MovieAnalysis()
            do {
                analysis = try analyze(path: path, samples: scan ? 10 : 1)
            } catch {
                // A movie whose sampled frames do not decode (cut short, damaged) is re-encoded as
                // far as it goes, by its headers alone; the re-encode says what is wrong with it.
                analysis.transfer = info.transfer
                pictureWarnings.append("the frames could not be looked at (\((error as? MediaError)?.reason ?? "\(error)")): "
                                       + "deinterlacing and black bars decided from the headers alone")
            }
            let decided = p.decide(analysis, info: info, codec: encoding.codec, tenBit: encoding.tenBit)
            decisions = decided.decisions
            pictureWarnings += decided.warnings
            if let crop = decisions.crop {
                guard crop.x >= 0, crop.y >= 0, crop.width >= 2, crop.height >= 2,
                      crop.x + crop.width <= info.width, crop.y + crop.height <= info.height else {
                    throw MediaError(.medley, "transcode", "the crop (\(decisions.cropReason)) leaves no picture of the "
                                     + "\(info.width)×\(info.height) stored frame", cause: .unsupported)
                }
                framed.width = crop.width
                framed.height = crop.height
                origin = (crop.x, crop.y)
            }
            if decisions.hdrSource != nil, !decisions.toneMapped {
                hdrMetadata = (encoding.codec == .hevc ? analysis.masterDisplay : "", analysis.maxCLL, analysis.maxFALL)
                mastering = analysis.mastering
            }
        }
        var geometry = encodingGeometry(framed, encoding: encoding, mode: mode)
        geometry.crop.x += origin.x
        geometry.crop.y += origin.y
        var settings = MedleyTranscodeSettings()
        settings.width = Int32(geometry.size.width)
        settings.height = Int32(geometry.size.height)
        settings.crop_x = Int32(geometry.crop.x)
        settings.crop_y = Int32(geometry.crop.y)
        settings.crop_width = Int32(geometry.crop.width)
        settings.crop_height = Int32(geometry.crop.height)
        settings.sar_num = Int32(geometry.pixelAspect.numerator)
        settings.sar_den = Int32(geometry.pixelAspect.denominator)
        settings.crf = Int32(encoding.crf)
        settings.max_bit_rate = Int64(encoding.maxBitRate ?? 0)
        settings.buffer_bits = Int64(encoding.maxBitRate ?? 0)
        settings.gop = Int32(encoding.keyframeInterval ?? 0)
        if let rate = encoding.frameRate {
            settings.fps_num = Int32(rate.numerator)
            settings.fps_den = Int32(rate.denominator)
        }
        if let seconds = encoding.keyframeSeconds {
            let fps = encoding.frameRate?.value
                ?? (info.frameRateDenominator > 0 && info.frameRateNumerator > 0
                    ? Double(info.frameRateNumerator) / Double(info.frameRateDenominator) : 25)
            settings.gop = Int32(max(1, min(10_000, (seconds * fps).rounded())))
        }
        let sound = encoding.audio ?? .encode(codec: .aac, bitRate: encoding.audioBitRate, sampleRate: nil,
                                              channels: encoding.audioChannels)
        var audioEncoder = "aac"
        switch sound {
        case .copy:
            settings.audio_copy = 1
        case .encode(let codec, let bitRate, let sampleRate, let channels):
            audioEncoder = codec.encoder
            settings.audio_bit_rate = Int64(bitRate ?? 0)
            settings.audio_sample_rate = Int32(sampleRate ?? Self.audioRate(codec, source: info.sampleRate))
            settings.audio_channels = Int32(info.audioCodec == nil ? 0 : channels)
        }
        settings.rotation = Int32(info.rotation)
        settings.video_copy = copyVideo ? 1 : 0
        settings.deinterlace = decisions.deinterlaced ? 1 : 0
        settings.max_cll = Int32(hdrMetadata.maxCLL)
        settings.max_fall = Int32(hdrMetadata.maxFALL)
        settings.ten_bit = encoding.tenBit ? 1 : 0
        settings.passes = Int32(encoding.passes)
        settings.chapters = tracks.chapters ? 1 : 0
        let listing = try streams(path: path)
        let chosen = tracks.choose(from: listing.streams, video: info.videoStream)
        // One buffer for the three lists: audio, then subtitles, then attachments.
        let indexes = (chosen.audio + chosen.subtitles + chosen.attachments).map { Int32($0) }
        if let burned = chosen.burn, !copyVideo,
           let nth = listing.streams.filter({ $0.kind == .subtitle }).firstIndex(where: { $0.index == burned.index }) {
            settings.burn_subtitle = Int32(nth + 1)
            decisions.burned = burned.described
        }
        if let bitRate = encoding.bitRate { settings.video_bit_rate = Int64(bitRate) }
        if let size = encoding.targetSize {
            let attached = listing.streams.filter { chosen.attachments.contains($0.index) }.reduce(0) { $0 + $1.attachedBytes }
            let rate = try videoBitRate(forSize: size, attachedBytes: attached, duration: info.duration, sound: sound, tracks: chosen.audio.count,
                                        streams: listing.streams.filter { chosen.audio.contains($0.index) })
            settings.video_bit_rate = Int64(rate)
        }
        // The first pass's statistics files of x264 and x265, beside the output (its temporary).
        let stats = output + ".pass"
        defer {
            for suffix in ["", ".mbtree", ".cutree", ".temp", ".mbtree.temp", ".cutree.temp"] {
                try? FileManager.default.removeItem(atPath: stats + suffix)
            }
        }
        let speed = encoding.codec.speedOption(encoding.x264Preset)
        var report = MedleyTranscodeReport()
        // The subtitle files' paths and languages as C strings, alive through the call.
        let filePaths = subtitleFiles.map { strdup($0.path) }, fileLanguages = subtitleFiles.map { strdup($0.language) }
        defer { (filePaths + fileLanguages).forEach { free($0) } }
        let paths = filePaths.map { UnsafePointer($0) }, languages = fileLanguages.map { UnsafePointer($0) }
        let fileFlags = subtitleFiles.map(\.flags)
        settings.subtitle_file_count = Int32(subtitleFiles.count)
        do {
            _ = try paths.withUnsafeBufferPointer { pathList in
            try languages.withUnsafeBufferPointer { languageList in
            try fileFlags.withUnsafeBufferPointer { flagList in
            settings.subtitle_files = pathList.baseAddress
            settings.subtitle_file_languages = languageList.baseAddress
            settings.subtitle_file_dispositions = flagList.baseAddress
            return try mastering.withUnsafeBufferPointer { masteringList in
            settings.mastering = mastering.count == 10 ? masteringList.baseAddress : nil
            return try indexes.withUnsafeBufferPointer { lists in
            settings.audio_streams = lists.baseAddress
            settings.audio_stream_count = Int32(chosen.audio.count)
            settings.subtitle_streams = lists.baseAddress.map { $0 + chosen.audio.count }
            settings.subtitle_stream_count = Int32(chosen.subtitles.count)
            settings.attachment_streams = lists.baseAddress.map { $0 + chosen.audio.count + chosen.subtitles.count }
            settings.attachment_stream_count = Int32(chosen.attachments.count)
            return try stats.withCString { statsPath in
            try encoding.pictures.curve.rawValue.withCString { curveName in
            try hdrMetadata.masterDisplay.withCString { masterDisplay in
            try speed.withCString { preset in
                try encoding.codec.encoder.withCString { videoEncoder in
                    try audioEncoder.withCString { audioName in
                        try container.withCString { containerName in
                            try (encoding.codec.profile ?? "").withCString { profile in
                                settings.x264_preset = preset
                                settings.stats_path = statsPath
                                settings.tonemap = decisions.toneMapped ? curveName : nil
                                settings.master_display = hdrMetadata.masterDisplay.isEmpty ? nil : masterDisplay
                                settings.video_encoder = videoEncoder
                                settings.audio_encoder = audioName
                                settings.container = containerName
                                settings.video_profile = encoding.codec.profile == nil ? nil : profile
                                return try checked(copyVideo ? "remux" : "transcode", path: output) { error, size -> Bool? in
                                    medley_movie_transcode(path, output, &settings, &report, error, size) == 0 ? true : nil
                                }
                            }
                        }
                    }
                }
            }
            }
            }
            }
            }
            }
            }
            }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        // A file cut short still demuxes up to where it stops, while its index declares the whole.
        let decodedEnd = max(report.video_end, report.audio_end)
        if info.duration > 0, decodedEnd < info.duration - truncationSlack {
            try? FileManager.default.removeItem(atPath: output)
            throw MediaError(.ffmpeg, "decode", String(format: "truncated: %.3f s decoded of the %.3f s the container declares", decodedEnd, info.duration), cause: .corruptData)
        }
        let written = try probe(path: output)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output))?[.size] as? Int ?? 0
        var result = MovieTranscodeResult(bytes: bytes, duration: written.duration, width: written.width,
                                          height: written.height, videoFrames: Int(report.video_frames),
                                          audioSamples: Int(report.audio_samples), skippedPackets: Int(report.decode_errors),
                                          damagedFrames: Int(report.damaged_frames),
                                          tagsNotKept: tagsNotKept(from: info.containerTags, in: written.containerTags,
                                                                        container: container))
        result.timing = MovieTimingRepairs(report)
        result.chapters = Int(report.chapters_written)
        result.pictures = decisions

        let notes = withUnsafeBytes(of: &report.notes) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        result.tracksNotKept = pictureWarnings + chosen.warnings + notes.split(separator: "\n").map(String.init)
        if report.subtitle_packets_skipped > 0 {
            result.tracksNotKept.append("\(report.subtitle_packets_skipped) subtitle cue(s) could not be read or converted and were skipped")
        }
        let keptCount = min(Int(report.kept_count), 64)
        let kept = withUnsafeBytes(of: &report.kept) { Array($0.bindMemory(to: Int32.self).prefix(keptCount)).map(Int.init) }
        if let written = try? streams(path: output).streams {
            result.tracksNotKept += streamTagsNotKept(source: listing.streams, written: written, kept: kept, container: container)
        }
        result.keptSubtitles = kept.compactMap { index in listing.streams.first { $0.index == index && $0.kind == .subtitle } }
        // Audio and subtitle tracks the output holds: the source's kept ones and the files muxed in (−1).
        result.tracks = kept.filter { index in
            index < 0 || listing.streams.contains { $0.index == index && ($0.kind == .audio || $0.kind == .subtitle) }
        }.count
        return result
    }

    /// The average video bit rate that fills `size` bytes (the attachments' bytes already taken
    /// off) over `duration` seconds beside the sound (each kept track at its encoder's rate, or its
    /// own when copied; 192 kb/s when unknown), less 1 % for the container, as HandBrake's target
    /// size works it out.
    static func videoBitRate(forSize size: Int, attachedBytes: Int = 0, duration: Double, sound: MovieAudio, tracks: Int,
                             streams: [MovieStream]) throws -> Int {
        guard duration > 0 else {
            throw MediaError(.medley, "transcode", "a target size needs the movie's duration, which its container does not state",
                             cause: .unsupported)
        }
        var audio = 0.0
        switch sound {
        case .encode(_, let bitRate, _, _): audio = Double(tracks) * Double(bitRate ?? 0)
        case .copy: audio = streams.reduce(0) { $0 + Double($1.bitRate > 0 ? $1.bitRate : 192_000) }
        }
        let total = Double(size - attachedBytes) * 8 * 0.99 / duration
        // A container that claims a tiny duration would ask for an absurd rate: the encoders' ceiling.
        let video = min(total - audio, 500_000_000)
        guard video >= 50_000 else {
            let fonts = attachedBytes > 0 ? " and the attachments \(attachedBytes) bytes" : ""
            throw MediaError(.medley, "transcode", String(format: "a target size of %d bytes leaves %.0f kb/s for the picture over %.1f s (the sound takes %.0f kb/s",
                                                          size, max(0, video) / 1000, duration, audio / 1000) + fonts + "); give more room",
                             cause: .unsupported)
        }
        return Int(video.rounded())
    }

    /// The sample rate a codec's encoder gets for a source rate: AAC as the presets; Opus always
    /// 48 kHz; MP3 the source's rate when an MPEG audio rate, else 44.1 or 48 kHz; lossless ones keep it.
    static func audioRate(_ codec: MovieAudioCodec, source: Int) -> Int {
        switch codec {
        case .aac: return VideoEncoding.audioSampleRate(forSource: source)
        case .opus: return 48_000
        case .mp3:
            return [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000].contains(source)
                ? source : VideoEncoding.audioSampleRate(forSource: source)
        case .flac, .alac, .vorbis: return source > 0 ? source : 48_000
        }
    }

    /// Copies the packets of `path`'s video and best audio stream (`audioOnly`: its sound alone)
    /// into the container `container` names (an extension), with the container tags, as `ffmpeg
    /// -c copy` (or `-vn -acodec copy`) does. A partial output is deleted when this throws.
    @discardableResult
    public static func remux(path: String, to output: String, container: String, audioOnly: Bool,
                             tracks: MovieTracks = MovieTracks()) throws -> MovieTranscodeResult {
        if !audioOnly {
            // Every track and the chapters come along: the transcoder with both kinds copied.
            var encoding = VideoQualityPreset.typeHigh.encoding
            encoding.audio = .copy
            return try transcode(path: path, to: output, encoding: encoding, container: container, tracks: tracks, copyVideo: true)
        }
        let source = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        guard source != URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath() else {
            throw MediaError(.medley, "remux", "the output would overwrite the movie being read", cause: .unsupported)
        }
        var report = MedleyTranscodeReport()
        do {
            _ = try checked(audioOnly ? "extract the sound" : "remux", path: path) { error, size -> Bool? in
                medley_movie_remux(path, output, container, audioOnly ? 1 : 0, &report, error, size) == 0 ? true : nil
            }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output))?[.size] as? Int ?? 0
        var result = MovieTranscodeResult(bytes: bytes, duration: max(report.video_end, report.audio_end), width: 0, height: 0,
                                          videoFrames: Int(report.video_frames), audioSamples: 0, skippedPackets: 0)
        result.timing = MovieTimingRepairs(report)
        return result
    }

    /// Each source container tag the output does not hold byte for byte, as "key (why)". The
    /// muxer writes its own `encoder`.
    static func tagsNotKept(from source: [MovieTag], in written: [MovieTag], container: String = "mp4") -> [String] {
        var kept: [String: String] = [:], folded: [String: String] = [:]
        for tag in written { kept[tag.key] = tag.value; folded[tag.key.lowercased()] = tag.value }
        return source.compactMap { tag in
            guard tag.key.lowercased() != "encoder" else { return nil }
            // Matroska's tags are upper case by convention (ARTIST); libavformat reads them so.
            guard let value = kept[tag.key] ?? folded[tag.key.lowercased()] else { return "\(tag.key) (\(container.uppercased()) cannot hold it)" }
            return value == tag.value ? nil : "\(tag.key) (written as \"\(value)\", not \"\(tag.value)\")"
        }
    }

    /// The stored-orientation output size, source crop and pixel aspect for an encoding. The box is
    /// turned with the picture, so it applies as displayed; `.none` and source-size presets keep the
    /// stored pixels and their aspect, the others make square pixels.
    static func encodingGeometry(_ info: MovieInfo, encoding: VideoEncoding, mode: MovieScalingMode)
        -> (size: (width: Int, height: Int), crop: (x: Int, y: Int, width: Int, height: Int),
            pixelAspect: (numerator: Int, denominator: Int)) {
        let turned = info.rotation % 180 != 0
        let keep = mode == .none || encoding.boxWidth == nil || encoding.boxHeight == nil
        let sourceWidth = keep ? info.width : info.squareWidth
        let geometry = MovieGeometry.fitting(
            sourceWidth: sourceWidth, sourceHeight: info.height,
            boxWidth: turned ? encoding.boxHeight : encoding.boxWidth,
            boxHeight: turned ? encoding.boxWidth : encoding.boxHeight, mode: mode, upscale: encoding.upscale)
        // Crop coordinates are in square pixels; the decoder's are stored ones.
        let toStored = keep ? 1 : Double(info.width) / Double(sourceWidth)
        let cropX = Int((Double(geometry.cropX) * toStored).rounded()) & ~1
        let cropWidth = min(info.width - cropX, Int((Double(geometry.cropWidth) * toStored).rounded()))
        let aspect = keep ? (info.pixelAspectNumerator, info.pixelAspectDenominator) : (1, 1)
        return ((geometry.width, geometry.height), (cropX, geometry.cropY, cropWidth, geometry.cropHeight), aspect)
    }

}

/// When a poster frame is taken: `poster: {at: 1.5}` or `poster: {at: "10%"}`.
public enum PosterTime: Sendable, Equatable {
    /// Seconds from the start.
    case seconds(Double)
    /// A fraction of the duration (0.1 for "10%").
    case fraction(Double)

    /// "1.5" (seconds) or "10%" (of the duration); nil for anything else or a negative time.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%") {
            guard let percent = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)),
                  percent >= 0, percent <= 100 else { return nil }
            self = .fraction(percent / 100)
        } else {
            guard let seconds = Double(trimmed), seconds >= 0, seconds.isFinite else { return nil }
            self = .seconds(seconds)
        }
    }
}

/// One decoded picture: 8-bit RGB, rows packed (width · 3 bytes each).
public struct MovieFrame: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The frame's timestamp in seconds from the container's start.
    public var time: Double
    public var rgb: [UInt8]

    public init(width: Int, height: Int, time: Double, rgb: [UInt8]) {
        self.width = width
        self.height = height
        self.time = time
        self.rgb = rgb
    }

    /// The same frame turned clockwise by 90, 180 or 270 degrees.
    public func rotated(clockwise degrees: Int) -> MovieFrame {
        let turns = ((degrees / 90) % 4 + 4) % 4
        guard turns != 0 else { return self }
        let (w, h) = (width, height)
        let (outWidth, outHeight) = turns == 2 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 0, count: rgb.count)
        rgb.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The stored pixel that lands at (x, y) after the turn.
                        let (sx, sy): (Int, Int)
                        switch turns {
                        case 1: (sx, sy) = (y, h - 1 - x)
                        case 2: (sx, sy) = (w - 1 - x, h - 1 - y)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = (sy * w + sx) * 3, to = (y * outWidth + x) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return MovieFrame(width: outWidth, height: outHeight, time: time, rgb: out)
    }

    /// As a libvips sRGB image, for filters and export.
    public func image() throws -> VipsImage {
        try VipsImage.fromPixels(rgb, width: width, height: height, bands: 3)
    }
}

/// What `Movie.transcode` wrote.
public struct MovieTranscodeResult: Sendable, Equatable {
    /// Size of the MP4 in bytes.
    public var bytes: Int
    /// Seconds, as the written container states.
    public var duration: Double
    /// Stored picture size of the output.
    public var width: Int
    public var height: Int
    public var videoFrames: Int
    /// Samples per channel of AAC; 0 when the source had no (decodable) sound.
    public var audioSamples: Int
    /// Packets the decoders rejected and skipped (a damaged source).
    public var skippedPackets: Int
    /// Video frames the decoder concealed damage in (re-encoded as the decoder guessed them).
    public var damagedFrames: Int = 0
    /// Source container tags the output lacks or holds changed, as "key (why)".
    public var tagsNotKept: [String] = []
    /// What was mended of the source's timing.
    public var timing = MovieTimingRepairs()
    /// Audio and subtitle tracks kept beside the picture, and chapters written.
    public var tracks = 0
    public var chapters = 0
    /// Each track, chapter or track field that was not kept, and why (item warnings).
    public var tracksNotKept: [String] = []
    /// Deinterlacing, black bars and HDR as decided, with the reasons.
    public var pictures = MoviePictureDecisions()
    /// The source's subtitle streams the output holds, in its order.
    public var keptSubtitles: [MovieStream] = []
}

/// Repairs of a movie's broken timing, as ffmpeg makes them, and where the written streams end.
public struct MovieTimingRepairs: Sendable, Equatable {
    /// Decoded pictures whose timestamp repeats or goes back, re-timed one frame after the one before.
    public var droppedPictures = 0
    /// Copied packets whose decoding timestamp went back or repeated, moved on.
    public var movedPackets = 0
    /// The longest jump in the pictures' timestamps (seconds beyond a frame's duration), and where.
    public var largestGap = 0.0
    public var gapAt = 0.0
    /// Where the written picture and sound end, seconds (0 without one).
    public var videoEnd = 0.0
    public var audioEnd = 0.0

    public init() {}

    init(_ report: MedleyTranscodeReport) {
        droppedPictures = Int(report.repeated_frames)
        movedPackets = Int(report.fixed_packets)
        largestGap = report.largest_gap
        gapAt = report.gap_at
        videoEnd = report.written_video_end
        audioEnd = report.written_audio_end
    }

    /// The item warnings these repairs make (a gap of more than a second is said too: the picture
    /// before it stays on screen, as players show it).
    public var warnings: [String] {
        var out: [String] = []
        if droppedPictures > 0 {
            out.append("\(droppedPictures) picture(s) with repeated or backward timestamps re-timed one frame after the picture before them"
                       + String(format: " (picture ends at %.3f s, sound at %.3f s)", videoEnd, audioEnd))
        }
        if movedPackets > 0 {
            out.append("\(movedPackets) packet(s) with repeated or backward timestamps moved on, as ffmpeg's stream copy does")
        }
        if largestGap > 1 {
            out.append(String(format: "the picture's timestamps jump %.3f s at %.3f s; the frame before the gap is held", largestGap, gapAt))
        }
        return out
    }
}

/// One container tag as libavformat names it, in the container's order, case kept.
public struct MovieTag: Sendable, Equatable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
