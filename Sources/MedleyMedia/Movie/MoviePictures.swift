import CFFmpegShim

/// `transcode: {deinterlace: …}`: whether pictures go through bwdif (docs/movies.md#deinterlacing).
public enum Deinterlacing: String, Sendable, CaseIterable {
    /// Decided from the frames, as HandBrake's decomb detection: the decoder's field flags, else
    /// libavfilter's idet over sampled stretches.
    case auto
    case on, off
}

/// `transcode: {crop: …}`: black bars taken off before scaling.
public enum MovieCrop: Sendable, Equatable {
    case none
    /// HandBrake's autocrop: the picture inside the bars of every sampled frame.
    case auto
    /// Pixels off each edge of the stored picture (made even).
    case edges(top: Int, bottom: Int, left: Int, right: Int)
}

/// `transcode: {hdr: …}`: what becomes of a PQ or HLG (BT.2020) source.
public enum HDRHandling: String, Sendable, CaseIterable {
    /// Kept where the output can carry it (10-bit HEVC, AV1 or VP9), else tone-mapped to BT.709 SDR.
    case auto
    /// 10 bits, the transfer, primaries and mastering display / light levels kept.
    case keep
    /// Always tone-mapped to BT.709 SDR.
    case tonemap
}

/// The tone-mapping curves of FFmpeg's `tonemap` filter that Medley offers.
public enum ToneMapCurve: String, Sendable, CaseIterable {
    case hable, mobius, reinhard, clip
}

/// What the picture side of a re-encode asks beyond the codec: deinterlacing, black bars, HDR.
public struct MoviePictureSettings: Sendable, Equatable {
    public var deinterlace: Deinterlacing = .auto
    public var crop: MovieCrop = .none
    public var hdr: HDRHandling = .auto
    public var curve: ToneMapCurve = .hable

    public init() {}
}

/// What `Movie.analyze` finds in a movie's sampled frames.
public struct MovieAnalysis: Sendable, Equatable {
    public var width = 0, height = 0
    public var sampledFrames = 0
    public var flaggedInterlaced = 0, flaggedTopFirst = 0
    public var idetTopFirst = 0, idetBottomFirst = 0, idetProgressive = 0
    /// The picture inside black bars, stored pixels.
    public var crop = (x: 0, y: 0, width: 0, height: 0)
    public var blackFrames = 0
    /// FFmpeg's AVColorTransferCharacteristic: 16 PQ, 18 HLG.
    public var transfer = 2
    /// AVColorPrimaries (9 BT.2020, 2 unspecified) and AVColorSpace (9 BT.2020 NCL, 2 unspecified).
    public var primaries = 2, matrix = 2
    /// Mastering display metadata present, and its peak (cd/m²).
    public var hasMasteringDisplay = false
    public var masterPeak = 0.0
    /// The mastering display as ten numbers: CIE x, y of green, blue, red and white, then peak and
    /// black (cd/m²); empty without one.
    public var mastering: [Double] = []
    public var bitDepth = 8
    /// x265's master-display option ("" when not all known), and the content light levels.
    public var masterDisplay = ""
    public var maxCLL = 0, maxFALL = 0
    public var hasHDR10Plus = false
    public var dolbyVisionProfile = 0

    public static func == (a: MovieAnalysis, b: MovieAnalysis) -> Bool {
        a.width == b.width && a.height == b.height && a.sampledFrames == b.sampledFrames && a.crop == b.crop
            && a.transfer == b.transfer && a.flaggedInterlaced == b.flaggedInterlaced
    }

    /// "pq", "hlg", or nil for an SDR source.
    public var hdrTransfer: String? { transfer == 16 ? "pq" : transfer == 18 ? "hlg" : nil }

    /// Whether the source is interlaced, and why (the manifest's words).
    public var interlaced: (Bool, String) {
        if sampledFrames > 0, flaggedInterlaced * 2 >= sampledFrames {
            let order = flaggedTopFirst * 2 >= flaggedInterlaced ? "top field first" : "bottom field first"
            return (true, "the decoder marks \(flaggedInterlaced) of \(sampledFrames) sampled frames interlaced (\(order))")
        }
        let fields = idetTopFirst + idetBottomFirst, judged = fields + idetProgressive
        // idet alone is fooled by fast motion in progressive pictures (a third of them on a moving
        // test pattern): without the decoder's flags it must be near unanimous.
        if fields >= 10, Double(fields) >= 0.9 * Double(judged) {
            return (true, "the frames carry no field flags, but idet finds \(fields) of \(judged) sampled frames interlaced")
        }
        return (false, "progressive: \(flaggedInterlaced) of \(sampledFrames) sampled frames marked interlaced, idet \(fields) of \(judged)")
    }
}

extension Movie {
    /// Looks at `samples` stretches of frames spread over the movie: field flags and idet, black
    /// bars, the colour description and HDR metadata.
    public static func analyze(path: String, samples: Int = 10) throws -> MovieAnalysis {
        var raw = MedleyMovieAnalysis()
        _ = try checked("look at the frames", path: path) { error, size -> Bool? in
            medley_movie_analyze(path, Int32(max(1, min(100, samples))), &raw, error, size) == 0 ? true : nil
        }
        var a = MovieAnalysis()
        a.width = Int(raw.width)
        a.height = Int(raw.height)
        a.sampledFrames = Int(raw.sampled_frames)
        a.flaggedInterlaced = Int(raw.flagged_interlaced)
        a.flaggedTopFirst = Int(raw.flagged_top_first)
        a.idetTopFirst = Int(raw.idet_tff)
        a.idetBottomFirst = Int(raw.idet_bff)
        a.idetProgressive = Int(raw.idet_progressive)
        a.crop = (Int(raw.crop_x), Int(raw.crop_y), Int(raw.crop_width), Int(raw.crop_height))
        a.blackFrames = Int(raw.black_frames)
        a.transfer = Int(raw.transfer)
        a.primaries = Int(raw.primaries)
        a.matrix = Int(raw.matrix)
        a.hasMasteringDisplay = raw.has_mastering_display != 0
        a.masterPeak = raw.master_max_luminance.isFinite ? raw.master_max_luminance : 0
        if a.hasMasteringDisplay, a.masterPeak > 0 {
            let primaries = withUnsafeBytes(of: raw.master_primaries) { Array($0.bindMemory(to: Double.self)) }
            let white = withUnsafeBytes(of: raw.master_white) { Array($0.bindMemory(to: Double.self)) }
            let all = primaries + white + [raw.master_max_luminance, raw.master_min_luminance]
            if all.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 100_000 }) { a.mastering = all }
        }
        a.bitDepth = Int(raw.bit_depth)
        a.masterDisplay = cText(&raw.master_display)
        a.maxCLL = raw.has_content_light != 0 ? Int(raw.max_cll) : 0
        a.maxFALL = raw.has_content_light != 0 ? Int(raw.max_fall) : 0
        a.hasHDR10Plus = raw.has_hdr10_plus != 0
        a.dolbyVisionProfile = Int(raw.dolby_vision_profile)
        return a
    }
}

/// What a re-encode decided about the pictures, and why: the manifest's `movie` record.
public struct MoviePictureDecisions: Sendable, Equatable {
    public var deinterlaced = false
    public var deinterlaceReason = ""
    /// The stored-pixel rectangle encoded, when bars were taken off.
    public var crop: (x: Int, y: Int, width: Int, height: Int)?
    public var cropReason = ""
    /// "pq", "hlg" or nil (SDR source); and what was done: "kept", "tone-mapped (hable)", "none".
    public var hdrSource: String?
    public var hdrReason = ""
    public var toneMapped = false
    /// The subtitle track drawn onto the picture, as warnings name streams; nil for none.
    public var burned: String?

    public init() {}

    public static func == (a: MoviePictureDecisions, b: MoviePictureDecisions) -> Bool {
        a.deinterlaced == b.deinterlaced && a.deinterlaceReason == b.deinterlaceReason && a.cropReason == b.cropReason
            && a.hdrSource == b.hdrSource && a.hdrReason == b.hdrReason && a.toneMapped == b.toneMapped && a.burned == b.burned
            && a.crop.map { [$0.x, $0.y, $0.width, $0.height] } == b.crop.map { [$0.x, $0.y, $0.width, $0.height] }
    }
}

extension MoviePictureSettings {
    /// The decisions for a source as analysed, written by `codec` at `tenBit`: each with its
    /// reason; `warnings` for what an HDR source loses.
    func decide(_ a: MovieAnalysis, info: MovieInfo, codec: VideoCodec, tenBit: Bool)
        -> (decisions: MoviePictureDecisions, warnings: [String]) {
        var d = MoviePictureDecisions(), warnings: [String] = []
        switch deinterlace {
        case .on: (d.deinterlaced, d.deinterlaceReason) = (true, "deinterlace: on")
        case .off: (d.deinterlaced, d.deinterlaceReason) = (false, "deinterlace: off")
        case .auto where info.fieldOrder == 1:
            (d.deinterlaced, d.deinterlaceReason) = (false, "progressive: the video stream's headers say so")
        case .auto: (d.deinterlaced, d.deinterlaceReason) = a.interlaced
        }
        switch crop {
        case .none: d.cropReason = "crop: none"
        case .edges(let top, let bottom, let left, let right):
            let x = left & ~1, y = top & ~1
            let width = (info.width - x - right) & ~1, height = (info.height - y - bottom) & ~1
            d.crop = (x, y, width, height)
            d.cropReason = "crop: top \(top), bottom \(bottom), left \(left), right \(right)"
        case .auto:
            let c = a.crop
            let whole = c.x == 0 && c.y == 0 && c.width == info.width && c.height == info.height
            if whole || c.width < 2 || c.height < 2 || c.width > info.width || c.height > info.height {
                d.cropReason = "no black bars in \(a.sampledFrames) sampled frames"
            } else {
                d.crop = c
                d.cropReason = "black bars: top \(c.y), bottom \(info.height - c.y - c.height), left \(c.x), right \(info.width - c.x - c.width) "
                    + "in every one of \(a.sampledFrames - a.blackFrames) sampled frames"
                    + (a.blackFrames > 0 ? " (\(a.blackFrames) black ones left out)" : "")
            }
        }
        guard let source = a.hdrTransfer else {
            d.hdrReason = "SDR source"
            return (d, warnings)
        }
        d.hdrSource = source
        let name = source.uppercased()
        // Damaged or missing HDR descriptions: said, and what was assumed instead.
        let unstated = [a.primaries == 2 ? "primaries" : nil, a.matrix == 2 ? "matrix" : nil].compactMap { $0 }
        if !unstated.isEmpty {
            warnings.append("the \(name) picture states no \(unstated.joined(separator: " or ")): taken as BT.2020, as HDR10 and BT.2100 define \(name)")
        }
        if a.hasMasteringDisplay, !(a.masterPeak > 0) {
            warnings.append("the mastering display metadata gives no peak luminance: not used (tone mapping takes the content light level or its default peak)")
        }
        let carries = tenBit && codec != .h264
        if hdr != .tonemap && carries {
            d.hdrReason = "\(name) kept: 10-bit \(codec.rawValue.uppercased())"
            if a.hasHDR10Plus { warnings.append("HDR10+ dynamic metadata is not carried (FFmpeg 5.1's encoders write none); the static HDR10 metadata is") }
            if codec != .hevc, !a.mastering.isEmpty {
                warnings.append("the mastering display and light levels go into the container only; FFmpeg 5.1's \(codec.encoder) writes none into the stream")
            }
        } else {
            d.toneMapped = true
            let why = hdr == .tonemap ? "hdr: tonemap" : tenBit ? "\(codec.rawValue.uppercased()) cannot carry it" : "the output is 8-bit"
            d.hdrReason = "\(name) tone-mapped to BT.709 SDR (\(curve.rawValue)): \(why)"
        }
        if a.dolbyVisionProfile > 0 {
            warnings.append("Dolby Vision profile \(a.dolbyVisionProfile): its metadata is not carried; the picture is its \(name) base layer")
        }
        return (d, warnings)
    }
}
