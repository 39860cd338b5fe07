import Foundation

/// The length of an MPEG audio file (MP3, MP2) in the samples a decoder hands out, counted from
/// its frame headers the way FFmpeg walks it: an MP3 without a Xing/Info/VBRI header states no
/// length (estimating one from the first frame's bit rate and the file size overshoots by the tags
/// and any padding), and one with a LAME tag names the encoder's delay and padding, which FFmpeg,
/// iTunes and every gapless player drop (with the decoder's own 529-sample delay).
public enum MPEGFrameScan {
    /// The decoder's delay of an MP3 decoder (ISO 11172-3 synthesis filter bank plus the overlap):
    /// 528 + 1 samples, as LAME's and FFmpeg's gapless code count it.
    public static let decoderDelay = 529

    /// Samples per channel that FFmpeg decodes from the file (after the gapless trimming a LAME tag
    /// asks for) and the sample rate, or nil when the file has no frames.
    public static func count(ofFileAt path: String) -> (frames: Int, sampleRate: Int)? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { raw -> (Int, Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            return count(bytes)
        }
    }

    /// What the Xing/Info (or VBRI) header in the first frame says.
    struct InfoHeader: Equatable {
        /// Audio frames after the header frame, when stated.
        var frames: Int?
        /// The encoder's delay and padding from a LAME tag (written by LAME and by FFmpeg's
        /// libmp3lame as "LAME", "Lavf" or "Lavc"), nil without one.
        var delay: Int?
        var padding: Int?
    }

    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        var start = 0, end = bytes.count
        // ID3v2 at the start (repeated tags happen): 10-byte header, syncsafe size, optional footer.
        while end - start >= 10, bytes[start] == 0x49, bytes[start + 1] == 0x44, bytes[start + 2] == 0x33 {
            let size = (4..<8).reduce(0) { $0 << 7 | Int(bytes[start + 2 + $1] & 0x7F) }
            start += 10 + size + (bytes[start + 5] & 0x10 != 0 ? 10 : 0)
        }
        // At the end: an ID3v1 tag ("TAG", 128 bytes), then an APE tag (footer "APETAGEX" with its size).
        if end - start >= 128, bytes[end - 128] == 0x54, bytes[end - 127] == 0x41, bytes[end - 126] == 0x47 { end -= 128 }
        if end - start >= 32, matches(bytes, at: end - 32, "APETAGEX") {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[end - 20 + $1]) << (8 * $1) }
            let hasHeader = bytes[end - 9] & 0x80 != 0
            end = max(start, end - size - (hasHeader ? 32 : 0))
        }
        var offset = start, samples = 0, rate = 0, first = true, samplesPerFrame = 0
        var header: InfoHeader?
        while offset + 4 <= end {
            guard let frame = Frame(bytes, at: offset), first || frame.sampleRate == rate else {
                // Damage or junk: resync on the next header that is followed by another.
                offset += 1
                while offset + 4 <= end {
                    if let frame = Frame(bytes, at: offset), rate == 0 || frame.sampleRate == rate,
                       offset + frame.length == end || (offset + frame.length + 4 <= end && Frame(bytes, at: offset + frame.length) != nil) {
                        break
                    }
                    offset += 1
                }
                continue
            }
            if first {
                first = false
                rate = frame.sampleRate
                samplesPerFrame = frame.samples
                // The header frame holds no audio: FFmpeg reads it and starts decoding after it.
                if let info = frame.infoHeader(bytes, at: offset, end: end) {
                    header = info
                    offset += frame.length
                    continue
                }
            }
            // A frame cut by the end of the file still decodes (in part); FFmpeg counts it whole.
            samples += frame.samples
            offset += frame.length
        }
        guard rate > 0, samples > 0 || header != nil else { return nil }
        guard let header else { return (samples, rate) }
        return (playable(header, decoded: samples, samplesPerFrame: samplesPerFrame), rate)
    }

    /// The samples left of `decoded` once the LAME tag's trimming is applied as libavformat's MP3
    /// demuxer applies it (mp3dec.c): the delay plus the decoder's 529 samples are skipped at the
    /// start; at the end, the samples from `stated − padding + 529` up to the stated end are
    /// discarded (none when the padding is shorter than the decoder's delay), and frames past the
    /// stated count (a file longer than its header says) are kept.
    static func playable(_ header: InfoHeader, decoded: Int, samplesPerFrame: Int) -> Int {
        guard let delay = header.delay, let padding = header.padding else { return decoded }
        var discarded = 0
        if let frames = header.frames, frames > 0 {
            let stated = frames * samplesPerFrame
            let firstDiscarded = stated - padding + decoderDelay
            discarded = max(0, min(decoded, stated) - firstDiscarded)
        }
        return max(0, decoded - delay - decoderDelay - discarded)
    }

    static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ ascii: String) -> Bool {
        let needle = Array(ascii.utf8)
        guard offset >= 0, offset + needle.count <= bytes.count else { return false }
        return (0..<needle.count).allSatisfy { bytes[offset + $0] == needle[$0] }
    }

    /// One frame header: MPEG 1, 2 or 2.5, Layer I, II or III, no reserved or free-format values.
    struct Frame {
        let length: Int
        let samples: Int
        let sampleRate: Int
        let isMPEG1: Bool
        let mono: Bool
        let layer: Int

        init?(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { return nil }
            let version = Int(bytes[offset + 1] >> 3) & 0x3   // 0 = 2.5, 1 = reserved, 2 = 2, 3 = 1
            let layerBits = Int(bytes[offset + 1] >> 1) & 0x3 // 3 = I, 2 = II, 1 = III, 0 = reserved
            let bitrateIndex = Int(bytes[offset + 2] >> 4)
            let rateIndex = Int(bytes[offset + 2] >> 2) & 0x3
            let padding = Int(bytes[offset + 2] >> 1) & 0x1
            guard version != 1, layerBits != 0, (1...14).contains(bitrateIndex), rateIndex != 3,
                  bytes[offset + 3] & 0x3 != 2 else { return nil }
            layer = 4 - layerBits
            isMPEG1 = version == 3
            mono = bytes[offset + 3] >> 6 == 3
            let table: [Int]
            switch (isMPEG1, layer) {
            case (true, 1): table = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (true, 2): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (true, _): table = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (false, 1): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            default: table = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
            let bitRate = table[bitrateIndex] * 1000
            sampleRate = [44_100, 48_000, 32_000][rateIndex] >> (version == 3 ? 0 : (version == 2 ? 1 : 2))
            switch layer {
            case 1:
                samples = 384
                length = (12 * bitRate / sampleRate + padding) * 4
            case 2:
                samples = 1152
                length = 144 * bitRate / sampleRate + padding
            default:
                samples = isMPEG1 ? 1152 : 576
                length = (isMPEG1 ? 144 : 72) * bitRate / sampleRate + padding
            }
        }

        /// A Xing/Info header sits after the side information of the first Layer III frame; a
        /// VBRI header 32 bytes after the frame header. The Xing header's flags say which of
        /// frames (4 bytes), bytes (4), table of contents (100) and quality (4) follow; the LAME
        /// tag comes next: a 9-byte version, then 12 bytes of other fields, then the delay and
        /// padding as two 12-bit numbers.
        func infoHeader(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int) -> InfoHeader? {
            guard layer == 3 else { return nil }
            let frameEnd = min(end, offset + length)
            if MPEGFrameScan.matches(bytes, at: offset + 36, "VBRI"), offset + 36 + 18 <= frameEnd {
                let frames = (14..<18).reduce(0) { $0 << 8 | Int(bytes[offset + 36 + $1]) }
                return InfoHeader(frames: frames, delay: nil, padding: nil)
            }
            let side = isMPEG1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
            let tag = offset + 4 + side
            guard tag + 8 <= frameEnd, MPEGFrameScan.matches(bytes, at: tag, "Xing") || MPEGFrameScan.matches(bytes, at: tag, "Info") else {
                return nil
            }
            func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
            let flags = u32(tag + 4)
            var field = tag + 8
            var header = InfoHeader()
            if flags & 1 != 0 {
                guard field + 4 <= frameEnd else { return header }
                header.frames = u32(field)
                field += 4
            }
            if flags & 2 != 0 { field += 4 }
            if flags & 4 != 0 { field += 100 }
            if flags & 8 != 0 { field += 4 }
            guard field + 24 <= frameEnd,
                  ["LAME", "Lavf", "Lavc"].contains(where: { MPEGFrameScan.matches(bytes, at: field, $0) }) else { return header }
            let packed = (21..<24).reduce(0) { $0 << 8 | Int(bytes[field + $1]) }
            header.delay = packed >> 12
            header.padding = packed & 0xFFF
            return header
        }
    }
}
