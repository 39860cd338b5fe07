import MedleyKernels

/// `spectrogram: {width, height, floor, colors, channels}`: as `sox in.wav -n spectrogram -x W -y H -z R`.
public struct SpectrogramSettings: Sendable, Equatable {
    public var width = 800
    /// Rows per channel, 0 Hz at the bottom to half the sample rate at the top.
    public var height = 257
    /// The level drawn black (dB full scale; sox's -z 120 is −120).
    public var floor = -120.0
    public var palette: SoundPicture.Palette = .heat
    /// Each channel in a band of its own (as sox), or the channels mixed.
    public var split = true
    public init() {}
}

/// `waveform: {width, height, scale, color, background, channels}`: as audiowaveform's PNG.
public struct WaveformSettings: Sendable, Equatable {
    public var width = 1800
    /// Rows per channel.
    public var height = 140
    /// nil: linear; a dB floor: a logarithmic scale from it (audiowaveform's amplitude scale is linear).
    public var floor: Double?
    public var colour: [UInt8] = [0x3A, 0x55, 0x9F]
    public var background: [UInt8] = [255, 255, 255]
    public var split = false
    public init() {}
}

extension AudioSource {
    /// Frames in the stream, counted by decoding it (then back to the start).
    func countedFrames() throws -> Int {
        let channels = max(1, info.channels), block = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let read = try read(into: buffer, frames: block)
            total += read
            if read < block { break }
        }
        try rewind()
        return total
    }

    /// Reads the stream to its end in blocks, each as one array per drawn channel (mixed: the mean).
    func forEachBlock(split: Bool, _ body: ([[Float]]) throws -> Void) throws {
        let channels = max(1, info.channels), block = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        defer { buffer.deallocate() }
        while true {
            let read = try read(into: buffer, frames: block)
            if read > 0 {
                if split {
                    try body((0..<channels).map { c in (0..<read).map { buffer[$0 * channels + c] } })
                } else {
                    try body([(0..<read).map { frame in
                        var sum: Float = 0
                        for c in 0..<channels { sum += buffer[frame * channels + c] }
                        return sum / Float(channels)
                    }])
                }
            }
            if read < block { break }
        }
    }

    private func noSamples() -> MediaError {
        MediaError(.medley, "draw", "the stream has no samples to draw", cause: .unsupported)
    }

    /// The spectrogram as an 8-bit RGB image, width × (height · bands).
    public func spectrogram(_ settings: SpectrogramSettings) throws -> VipsImage {
        let frames = try countedFrames()
        guard frames > 0 else { throw noSamples() }
        let bands = settings.split ? max(1, info.channels) : 1
        let (w, h) = (settings.width, settings.height)
        let n = SoundPicture.transformLength(height: h)
        var pixels = [UInt8](repeating: 0, count: w * h * bands * 3)
        var held = [[Float]](repeating: [], count: bands)
        var heldStart = 0, column = 0
        func draw(upTo available: Int, final: Bool) {
            while column < w {
                let centre = SoundPicture.centre(column: column, columns: w, frames: frames)
                let start = centre - n / 2
                guard final || start + n <= available else { break }
                for band in 0..<bands {
                    var window = [Float](repeating: 0, count: n)
                    for i in 0..<n {
                        let at = start + i - heldStart
                        if at >= 0, at < held[band].count { window[i] = held[band][at] }
                    }
                    let levels = SoundPicture.spectrumColumn(window, height: h)
                    for row in 0..<h {
                        let (r, g, b) = SoundPicture.colour(SoundPicture.intensity(levels[row], floor: settings.floor), palette: settings.palette)
                        let y = band * h + (h - 1 - row), at = (y * w + column) * 3
                        pixels[at] = r; pixels[at + 1] = g; pixels[at + 2] = b
                    }
                }
                column += 1
            }
            // Samples before the next window are not needed again.
            let keepFrom = column < w ? SoundPicture.centre(column: column, columns: w, frames: frames) - n / 2 : heldStart + held[0].count
            let drop = min(held[0].count, max(0, keepFrom - heldStart))
            if drop > 0 {
                for band in 0..<bands { held[band].removeFirst(drop) }
                heldStart += drop
            }
        }
        try forEachBlock(split: settings.split) { block in
            for band in 0..<bands { held[band] += block[band] }
            draw(upTo: heldStart + held[0].count, final: false)
        }
        draw(upTo: heldStart + held[0].count, final: true)
        return try VipsImage.fromPixels(pixels, width: w, height: h * bands, bands: 3)
    }

    /// Each column's lowest and highest sample per drawn channel (columns partition the frames exactly).
    public func waveformColumns(width: Int, split: Bool) throws -> (minimum: [[Float]], maximum: [[Float]]) {
        let frames = try countedFrames()
        guard frames > 0 else { throw noSamples() }
        let bands = split ? max(1, info.channels) : 1
        var low = [[Float]](repeating: [Float](repeating: .infinity, count: width), count: bands)
        var high = [[Float]](repeating: [Float](repeating: -.infinity, count: width), count: bands)
        var position = 0
        try forEachBlock(split: split) { block in
            for i in 0..<block[0].count {
                let frame = position + i
                // The column of frame f: the largest c with c·frames/width ≤ f.
                var column = min(width - 1, frame * width / frames)
                while column + 1 < width, SoundPicture.span(column: column + 1, columns: width, frames: frames).lowerBound <= frame { column += 1 }
                while column > 0, SoundPicture.span(column: column, columns: width, frames: frames).lowerBound > frame { column -= 1 }
                for band in 0..<bands {
                    let v = block[band][i]
                    if v < low[band][column] { low[band][column] = v }
                    if v > high[band][column] { high[band][column] = v }
                }
            }
            position += block[0].count
        }
        // A column with no frame of its own (more columns than frames) shows silence.
        for band in 0..<bands {
            for c in 0..<width where low[band][c] > high[band][c] { low[band][c] = 0; high[band][c] = 0 }
        }
        return (low, high)
    }

    /// The waveform as an 8-bit RGB image, width × (height · bands).
    public func waveformImage(_ settings: WaveformSettings) throws -> VipsImage {
        let (w, h) = (settings.width, settings.height)
        let columns = try waveformColumns(width: w, split: settings.split)
        let bands = columns.minimum.count
        var pixels = [UInt8](repeating: 0, count: w * h * bands * 3)
        for i in 0..<(w * h * bands) {
            pixels[i * 3] = settings.background[0]; pixels[i * 3 + 1] = settings.background[1]; pixels[i * 3 + 2] = settings.background[2]
        }
        for band in 0..<bands {
            for c in 0..<w {
                let top = SoundPicture.waveformRow(columns.maximum[band][c], height: h, decibelFloor: settings.floor)
                let bottom = SoundPicture.waveformRow(columns.minimum[band][c], height: h, decibelFloor: settings.floor)
                for y in min(top, bottom)...max(top, bottom) {
                    let at = ((band * h + y) * w + c) * 3
                    pixels[at] = settings.colour[0]; pixels[at + 1] = settings.colour[1]; pixels[at + 2] = settings.colour[2]
                }
            }
        }
        return try VipsImage.fromPixels(pixels, width: w, height: h * bands, bands: 3)
    }
}
