import MedleyKernels

/// An audio item drawn small: per column the lowest and highest sample over all channels, and
/// the stream's metering (AVAudioPlayer's peak and average power per channel).
public struct Waveform: Sendable {
    public var minimum: [Float]
    public var maximum: [Float]
    public var meter: Meter
    public var duration: Double
}

extension AudioSource {
    /// Reads the stream from where it is to its end and folds it into `columns` columns.
    /// A stream whose length the header does not give is gathered in 1024-frame columns first.
    public func waveform(columns: Int) throws -> Waveform {
        let channels = info.channels, block = 4096
        let perColumn = info.frames > 0 ? max(1, (info.frames + columns - 1) / columns) : 1024
        var low: [Float] = [], high: [Float] = []
        var meter = Meter(channels: channels)
        var columnLow = Float.infinity, columnHigh = -Float.infinity, inColumn = 0, total = 0
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        defer { buffer.deallocate() }
        while true {
            let read = try read(into: buffer, frames: block)
            meter.add(buffer, frames: read)
            for frame in 0..<read {
                let samples = buffer + frame * channels
                for channel in 0..<channels {
                    columnLow = min(columnLow, samples[channel])
                    columnHigh = max(columnHigh, samples[channel])
                }
                inColumn += 1
                if inColumn == perColumn {
                    low.append(columnLow)
                    high.append(columnHigh)
                    columnLow = .infinity
                    columnHigh = -.infinity
                    inColumn = 0
                }
            }
            total += read
            if read < block { break }
        }
        if inColumn > 0 {
            low.append(columnLow)
            high.append(columnHigh)
        }
        // Unknown length: fold the 1024-frame columns into the columns asked for.
        if low.count > columns {
            let step = Double(low.count) / Double(columns)
            var foldedLow: [Float] = [], foldedHigh: [Float] = []
            for column in 0..<columns {
                let range = Int(Double(column) * step)..<max(Int(Double(column) * step) + 1, Int(Double(column + 1) * step))
                foldedLow.append(low[range].min() ?? 0)
                foldedHigh.append(high[range].max() ?? 0)
            }
            (low, high) = (foldedLow, foldedHigh)
        }
        return Waveform(minimum: low, maximum: high, meter: meter, duration: Double(total) / Double(max(1, info.sampleRate)))
    }
}
