import Foundation

/// Pictures of sound: the columns of a spectrogram (short-time Fourier magnitudes in dB, as `sox
/// spectrogram` draws them) and of a waveform (each column's lowest and highest sample).
public enum SoundPicture {
    /// Column `column` of `columns` over `frames` samples covers frames start ..< end (an exact partition).
    public static func span(column: Int, columns: Int, frames: Int) -> Range<Int> {
        (column * frames / columns)..<((column + 1) * frames / columns)
    }

    /// The sample at the middle of column `column`: where its spectrum's window is centred.
    public static func centre(column: Int, columns: Int, frames: Int) -> Int {
        Int(((Double(column) + 0.5) * Double(frames) / Double(columns)).rounded(.down))
    }

    /// The transform length for a picture `height` rows tall: the power of two at least twice the
    /// rows, so every row has a bin of its own.
    public static func transformLength(height: Int) -> Int {
        var n = 16
        while n < 2 * height { n *= 2 }
        return n
    }

    /// The level in dB full scale (a full-scale sine is 0 dB) of each row, bottom (0 Hz) to top
    /// (half the sample rate), of the Hann-windowed spectrum of `window` (transformLength samples).
    public static func spectrumColumn(_ window: [Float], height: Int) -> [Double] {
        let n = window.count
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        var gain = 0.0
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            gain += w
            re[i] = Double(window[i]) * w
        }
        fft(&re, &im)
        let bins = n / 2
        var levels = [Double](repeating: 0, count: height)
        let magnitude = { (k: Int) in (re[k] * re[k] + im[k] * im[k]).squareRoot() * (k == 0 || k == bins ? 1 : 2) / gain }
        let spacing = height > 1 ? Double(bins) / Double(height - 1) : 0
        for row in 0..<height {
            // Row r is the frequency r/(height−1) of Nyquist: the strongest bin within half a row of it
            // (a sine between two rows still shows at its level), or between bins, linearly interpolated.
            let position = Double(row) * spacing
            let first = max(0, Int((position - spacing / 2).rounded(.up))), last = min(bins, Int((position + spacing / 2).rounded(.down)))
            let value: Double
            if first <= last {
                value = (first...last).map(magnitude).max() ?? 0
            } else {
                let low = min(bins, Int(position)), high = min(bins, low + 1), t = position - Double(low)
                value = magnitude(low) * (1 - t) + magnitude(high) * t
            }
            levels[row] = 20 * log10(max(value, 1e-300))
        }
        return levels
    }

    /// In-place radix-2 complex FFT (length a power of two).
    public static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            let (wr, wi) = (cos(angle), sin(angle))
            var start = 0
            while start < n {
                var (cr, ci) = (1.0, 0.0)
                for k in 0..<length / 2 {
                    let a = start + k, b = a + length / 2
                    let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    (cr, ci) = (cr * wr - ci * wi, cr * wi + ci * wr)
                }
                start += length
            }
            length *= 2
        }
    }

    /// 0…1 of a level between `floor` dB (0) and 0 dB (1).
    public static func intensity(_ level: Double, floor: Double) -> Double {
        min(1, max(0, (level - floor) / -floor))
    }

    /// A colour for intensity 0…1: `grey` from black to white, `heat` (as sox's: black, blue,
    /// magenta, red, yellow, white).
    public static func colour(_ value: Double, palette: Palette) -> (UInt8, UInt8, UInt8) {
        let v = min(1, max(0, value))
        switch palette {
        case .grey:
            let g = UInt8((v * 255).rounded())
            return (g, g, g)
        case .heat:
            let stops: [(Double, Double, Double)] = [(0, 0, 0), (0, 0, 0.6), (0.6, 0, 0.6), (1, 0, 0), (1, 1, 0), (1, 1, 1)]
            let position = v * Double(stops.count - 1), index = min(stops.count - 2, Int(position)), t = position - Double(index)
            let (a, b) = (stops[index], stops[index + 1])
            func mix(_ x: Double, _ y: Double) -> UInt8 { UInt8(((x + (y - x) * t) * 255).rounded()) }
            return (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
        }
    }

    public enum Palette: String, Sendable, CaseIterable { case heat, grey }

    /// The row (0 at the top, `height − 1` at the bottom) a waveform sample lands on: linear full scale, or
    /// on a dB scale above `floor` (the sign kept, `floor` and below at the middle).
    public static func waveformRow(_ sample: Float, height: Int, decibelFloor: Double?) -> Int {
        var v = Double(max(-1, min(1, sample)))
        if let floor = decibelFloor {
            let level = 20 * log10(max(abs(v), 1e-300))
            v = (v < 0 ? -1 : 1) * intensity(level, floor: floor)
        }
        return Int(((1 - v) / 2 * Double(height - 1)).rounded())
    }
}
