/// What `Movie.probe` reads from a movie file: the container, its video stream (the first that is
/// not cover art) and its best audio stream.
public struct MovieInfo: Sendable, Equatable {
    /// Seconds, the container's duration (ffprobe's `format.duration`); 0 when unknown.
    public var duration: Double
    /// Seconds, the container's first timestamp (`format.start_time`). Frame times count from it.
    public var startTime: Double
    /// Stored picture size, before rotation.
    public var width: Int
    public var height: Int
    /// Width over height of one stored pixel as a fraction (1/1 for square pixels and when unknown).
    public var pixelAspectNumerator: Int
    public var pixelAspectDenominator: Int
    /// Frames per second as a fraction (`avg_frame_rate`, else `r_frame_rate`); 0/1 when unknown.
    public var frameRateNumerator: Int
    public var frameRateDenominator: Int
    /// FFmpeg's codec names, as ffprobe prints them: "h264", "hevc", "vp9", "mpeg4", …
    public var videoCodec: String
    /// nil without an audio stream: "aac", "opus", "mp3", …
    public var audioCodec: String?
    /// Of the audio stream; 0 without one.
    public var sampleRate: Int
    public var channels: Int
    /// Whole-file bits per second (`format.bit_rate`); 0 when unknown.
    public var bitRate: Int
    /// Clockwise degrees the stored picture is turned to be displayed: 0, 90, 180 or 270. From the
    /// display matrix, else from an older `rotate` tag; mirroring is not reported.
    public var rotation: Int
    /// Container tags with lower-case keys ("title", "artist", "comment", "date", "creation_time",
    /// "encoder", …), without the MP4 brand fields, which describe the file rather than the movie.
    public var tags: [String: String]
    /// The demuxer's names, as ffprobe's `format_name`: "mov,mp4,m4a,3gp,3g2,mj2" for the whole
    /// MP4/MOV/3GP family, "matroska,webm" for MKV and WebM (the ingest sniffer tells them apart).
    public var format: String
    /// FFmpeg's pixel format name of the video stream ("yuv420p", …).
    public var pixelFormat: String
    /// The same tags as `tags`, with their keys as the container spells them, in its order
    /// (what `ffprobe -show_entries format_tags` prints, less the brand fields).
    public var containerTags: [MovieTag]
    /// The index of the video stream described (the first that is not cover art, the default one
    /// first); −1 when not known.
    public var videoStream = -1
    /// FFmpeg's AVFieldOrder as the video stream's headers state it: 0 unknown, 1 progressive,
    /// 2–5 interlaced.
    public var fieldOrder = 0
    /// FFmpeg's AVColorTransferCharacteristic as the headers state it (16 PQ, 18 HLG; 2 unspecified).
    public var transfer = 2
    /// Audio and subtitle tracks and chapters the file holds, and the tracks' languages, each once
    /// in file order ("eng, fra").
    public var audioTracks = 0, subtitleTracks = 0, chapters = 0
    public var audioLanguages = "", subtitleLanguages = ""

    public init(duration: Double, startTime: Double, width: Int, height: Int, pixelAspectNumerator: Int,
                pixelAspectDenominator: Int, frameRateNumerator: Int, frameRateDenominator: Int, videoCodec: String, audioCodec: String?,
                sampleRate: Int, channels: Int, bitRate: Int, rotation: Int, tags: [String: String], format: String,
                pixelFormat: String, containerTags: [MovieTag] = []) {
        self.containerTags = containerTags
        self.duration = duration
        self.startTime = startTime
        self.width = width
        self.height = height
        self.pixelAspectNumerator = pixelAspectNumerator
        self.pixelAspectDenominator = pixelAspectDenominator
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.videoCodec = videoCodec
        self.audioCodec = audioCodec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.rotation = rotation
        self.tags = tags
        self.format = format
        self.pixelFormat = pixelFormat
    }

    /// Width over height of one stored pixel.
    public var pixelAspectRatio: Double {
        pixelAspectNumerator > 0 && pixelAspectDenominator > 0 ? Double(pixelAspectNumerator) / Double(pixelAspectDenominator) : 1
    }

    /// Frames per second; 0 when unknown.
    public var frameRate: Double {
        frameRateDenominator > 0 ? Double(frameRateNumerator) / Double(frameRateDenominator) : 0
    }

    /// The picture as shown: pixel aspect applied to the width, then the rotation. (`Movie.frame`
    /// turns frames but keeps stored pixels, so for non-square pixels its width differs.)
    public var displayWidth: Int { rotation % 180 == 0 ? squareWidth : height }
    public var displayHeight: Int { rotation % 180 == 0 ? height : squareWidth }

    /// The stored width in square pixels.
    var squareWidth: Int { max(1, Int((Double(width) * pixelAspectRatio).rounded())) }
}
