import CFFmpegShim
import CVipsShim
import Foundation

/// How an animation is made from a movie: `animation: {from, duration, fps, width, format, loop, palette}`.
public struct AnimationSettings: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable { case gif, webp }
    /// GIF colours: one palette quantised from every frame of the clip (ffmpeg's palettegen +
    /// paletteuse), or one per frame.
    public enum Palette: String, Sendable, CaseIterable { case clip, frame }

    public var from: Double = 0
    /// Seconds; nil: to the end of the movie.
    public var duration: Double?
    public var fps: Double = 10
    /// Displayed width in pixels; nil: the movie's own. The height keeps the displayed aspect.
    public var width: Int?
    public var format: Format = .gif
    /// The file's loop count as ffmpeg's `-loop N` writes it: 0 for ever, else GIF's NETSCAPE repeat
    /// count (it plays N + 1 times) or WebP's ANIM loop count.
    public var loop: Int = 0
    public var palette: Palette = .clip
    /// GIF: 0…1 (libimagequant's Floyd–Steinberg).
    public var dither: Double = 1
    /// GIF: libimagequant's effort 1…10 (libvips' default 7): more is slower and closer colours.
    public var effort: Int = 7
    /// WebP: 1…100; nil: lossless.
    public var quality: Int? = 75

    public init() {}

    /// The seconds the clip lasts in a movie of `length` seconds (0 when it starts at or past the end).
    public func clipLength(movieLength: Double) -> Double {
        let rest = movieLength > 0 ? max(0, movieLength - from) : (duration ?? 0)
        return min(duration ?? rest, rest)
    }

    /// Pictures in a clip of `length` seconds.
    public func frameCount(clipLength length: Double) -> Int {
        let count = (length * fps - 1e-9).rounded(.up)
        return count.isFinite && count > 0 ? Int(min(count, 1e9)) : 0
    }

    /// Displayed output size for a movie: `width` (or the movie's) and the height at the displayed
    /// aspect, rounded to the nearest pixel (as `scale=W:-1`).
    public func size(displayWidth: Int, displayHeight: Int) -> (width: Int, height: Int) {
        let w = max(1, width ?? displayWidth)
        let h = max(1, Int((Double(w) * Double(displayHeight) / Double(max(1, displayWidth))).rounded()))
        return (w, h)
    }

    /// Each picture's delay in milliseconds: whole centiseconds for GIF (its unit), so that the
    /// sum up to each picture stays within half a centisecond of its time; milliseconds for WebP.
    public func delays(count: Int) -> [Int] {
        let unit = format == .gif ? 100.0 : 1000.0, scale = format == .gif ? 10 : 1
        // The last picture's delay is its whole length cut to the unit, as ffmpeg's GIF muxer writes it.
        return (0..<count).map { n in
            n == count - 1 && format == .gif ? Int((unit / fps).rounded(.down)) * scale
                : Int((Double(n + 1) * unit / fps).rounded() - (Double(n) * unit / fps).rounded()) * scale
        }
    }
}

/// What `Movie.animation` wrote.
public struct AnimationResult: Sendable, Equatable {
    public var frames: Int
    public var width: Int
    public var height: Int
    public var duration: Double
}

extension Movie {
    /// The clip's pictures, displayed (turned by the movie's rotation), `width` × `height` as
    /// displayed, one every 1/fps s from `from` for `duration` s, packed RGB one after another.
    public static func clip(path: String, from: Double, duration: Double, fps: Double,
                            width: Int, height: Int) throws -> (rgb: [UInt8], frames: Int) {
        final class Collector {
            var rgb: [UInt8] = []
            var rotation: Int32 = 0
        }
        let probeRotation = try probe(path: path).rotation
        let turned = probeRotation % 180 != 0
        let (storedWidth, storedHeight) = turned ? (height, width) : (width, height)
        let collector = Collector()
        var rotation: Int32 = 0
        let count = try withExtendedLifetime(collector) {
            try checked("decode the clip", path: path) { error, size -> Int32? in
                let n = medley_movie_clip(path, from, duration, fps, Int32(storedWidth), Int32(storedHeight), { context, pixels, w, h, _ in
                    guard let context, let pixels else { return 1 }
                    let sink = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
                    sink.rgb.append(contentsOf: UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * 3))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque(), &rotation, error, size)
                return n < 0 ? nil : n
            }
        }
        var rgb = collector.rgb
        if rotation != 0 {
            let frameBytes = storedWidth * storedHeight * 3
            var turnedPixels: [UInt8] = []
            turnedPixels.reserveCapacity(rgb.count)
            for index in 0..<Int(count) {
                let frame = MovieFrame(width: storedWidth, height: storedHeight, time: 0,
                                       rgb: Array(rgb[index * frameBytes..<(index + 1) * frameBytes]))
                turnedPixels += frame.rotated(clockwise: Int(rotation)).rgb
            }
            rgb = turnedPixels
        }
        return (rgb, Int(count))
    }

    /// An animated GIF or WebP of a stretch of the movie at `output`.
    @discardableResult
    public static func animation(path: String, settings: AnimationSettings, to output: String) throws -> AnimationResult {
        let info = try probe(path: path)
        let length = settings.clipLength(movieLength: info.duration)
        guard length > 0 else {
            throw MediaError(.medley, "animation", String(format: "the clip starts at %.3f s, past the end (the movie lasts %.3f s)",
                                                         settings.from, info.duration), cause: .unsupported)
        }
        let size = settings.size(displayWidth: info.displayWidth, displayHeight: info.displayHeight)
        let clip = try self.clip(path: path, from: settings.from, duration: length, fps: settings.fps,
                                 width: size.width, height: size.height)
        let delays = settings.delays(count: clip.frames).map(Int32.init)
        var options = MedleyAnimationOptions(
            format: settings.format == .gif ? Int32(MEDLEY_SAVE_GIF) : Int32(MEDLEY_SAVE_WEBP),
            clip_palette: settings.palette == .clip ? 1 : 0, dither: settings.dither, effort: Int32(settings.effort),
            interframe_maxerror: 0, quality: Int32(settings.quality ?? 101))
        // libvips' GIF "loop" is the number of plays, one more than the NETSCAPE repeat count it writes.
        let loopField = Int32(settings.format == .gif && settings.loop > 0 ? settings.loop + 1 : settings.loop)
        try Vips.start()
        errno = 0
        let failed = clip.rgb.withUnsafeBufferPointer { pixels in
            delays.withUnsafeBufferPointer { delays in
                medley_animation_save(pixels.baseAddress, Int32(size.width), Int32(size.height), Int32(clip.frames),
                                      delays.baseAddress, loopField, &options, output)
            }
        }
        guard failed == 0 else { throw Vips.saveFailure(path: output, errno: errno) }
        return AnimationResult(frames: clip.frames, width: size.width, height: size.height,
                               duration: Double(delays.reduce(0, +)) / 1000)
    }
}
