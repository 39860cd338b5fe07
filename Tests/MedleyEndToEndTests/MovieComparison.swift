import Foundation

/// Pictures of movies compared as the movie tests compare them: packed 8-bit RGB frames as ffmpeg
/// decodes them, and their PSNR (99 dB for identical frames, 0 when the sizes differ).
enum MovieComparison {
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<a.count { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// The frame `ffmpeg -ss seconds -i path` shows, optionally through a filter graph, as RGB.
    static func frame(_ path: String, at seconds: Double, filter: String? = nil) throws -> [UInt8] {
        var arguments = ["-v", "error", "-ss", String(seconds), "-i", path, "-frames:v", "1"]
        if let filter { arguments += ["-vf", filter] }
        return [UInt8](try Tool.run("ffmpeg", arguments + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data)
    }
}
