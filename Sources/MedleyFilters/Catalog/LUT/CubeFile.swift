import MedleyKernels

/// Why a LUT file cannot be used: the line (1-based; 0 when no one line is at fault), that line's
/// text, and what is wrong.
public struct LUTFileError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let text: String
    public let reason: String

    public init(line: Int, text: String, reason: String) {
        self.line = line
        self.text = text
        self.reason = reason
    }

    public var description: String {
        line > 0 ? "line \(line) ('\(text)'): \(reason)" : reason
    }
}

/// The Adobe/Resolve `.cube` text format (Adobe Cube LUT Specification 1.0, with Resolve's
/// `LUT_1D_INPUT_RANGE` / `LUT_3D_INPUT_RANGE`): keywords first — `TITLE "…"`, `LUT_3D_SIZE N` or
/// `LUT_1D_SIZE N`, `DOMAIN_MIN r g b`, `DOMAIN_MAX r g b` — then one `r g b` line per entry, red
/// index fastest; `#` starts a comment. Anything else (an unknown keyword such as
/// `LUT_IN_VIDEO_RANGE`, whose meaning Medley does not apply) is an error, never ignored.
public enum CubeFile {
    public static func parse(_ bytes: [UInt8]) -> Result<ColorLookupTable, LUTFileError> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(LUTFileError(line: 0, text: "", reason: "the file is not UTF-8 text (a .cube file is text)"))
        }
        var shape: ColorLookupTable.Shape?
        var size = 0, sizeLine = 0
        var domainMinimum = SIMD3<Float>(0, 0, 0), domainMaximum = SIMD3<Float>(1, 1, 1)
        var entries: [SIMD4<Float>] = []
        var expected = 0
        var lastLine = (number: 0, text: "")
        func failure(_ number: Int, _ line: Substring, _ reason: String) -> Result<ColorLookupTable, LUTFileError> {
            .failure(LUTFileError(line: number, text: String(line.prefix(80)), reason: reason))
        }
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let keyword = words.first else { continue }
            let display = rawLine.trimmingSuffix("\r")
            lastLine = (number, String(display.prefix(80)))
            if let first = keyword.first, first.isNumber || first == "-" || first == "+" || first == "." {
                guard let shape else {
                    return failure(number, display, "a data line before LUT_3D_SIZE or LUT_1D_SIZE: the size must come first")
                }
                guard words.count == 3 else {
                    return failure(number, display, "a data line has three numbers (red green blue), this one has \(words.count)")
                }
                var entry = SIMD4<Float>(0, 0, 0, 1)
                for c in 0..<3 {
                    guard let value = Self.number(words[c]) else {
                        return failure(number, display, "'\(words[c])' is not a finite number")
                    }
                    entry[c] = value
                }
                guard entries.count < expected else {
                    return failure(number, display, "more data lines than the \(expected) "
                                   + (shape == .cube ? "LUT_3D_SIZE \(size) (\(size)³)" : "LUT_1D_SIZE \(size)") + " needs")
                }
                entries.append(entry)
                continue
            }
            guard entries.isEmpty else {
                return failure(number, display, "keyword '\(keyword)' after the data: keywords must come before the first data line")
            }
            let arguments = words.dropFirst()
            switch keyword {
            case "TITLE":
                continue
            case "LUT_3D_SIZE", "LUT_1D_SIZE":
                let wanted: ColorLookupTable.Shape = keyword == "LUT_3D_SIZE" ? .cube : .curves
                if let shape {
                    return failure(number, display, shape == wanted ? "the size is given twice"
                                   : "a file is either a 3D LUT (LUT_3D_SIZE) or a 1D LUT (LUT_1D_SIZE), not both")
                }
                let limit = wanted == .cube ? ColorLookupTable.maximumCubeSize : ColorLookupTable.maximumCurveSize
                guard arguments.count == 1, let n = Int(arguments[arguments.startIndex]) else {
                    return failure(number, display, "\(keyword) takes one whole number")
                }
                guard n >= 2 else { return failure(number, display, "\(keyword) must be at least 2") }
                guard n <= limit else {
                    return failure(number, display, "\(keyword) \(n) is over Medley's limit of \(limit)"
                                   + (wanted == .cube ? " (a 129³ table already holds 2.1 million entries, 34 MB)" : ""))
                }
                (shape, size, sizeLine) = (wanted, n, number)
                expected = wanted == .cube ? n * n * n : n
            case "DOMAIN_MIN", "DOMAIN_MAX":
                guard arguments.count == 3 else { return failure(number, display, "\(keyword) takes three numbers (red green blue)") }
                var v = SIMD3<Float>()
                for (c, word) in arguments.enumerated() {
                    guard let value = Self.number(word) else { return failure(number, display, "'\(word)' is not a finite number") }
                    v[c] = value
                }
                if keyword == "DOMAIN_MIN" { domainMinimum = v } else { domainMaximum = v }
            case "LUT_1D_INPUT_RANGE", "LUT_3D_INPUT_RANGE":
                guard arguments.count == 2, let low = Self.number(arguments[arguments.startIndex]),
                      let high = Self.number(arguments[arguments.index(after: arguments.startIndex)]) else {
                    return failure(number, display, "\(keyword) takes two numbers (minimum maximum)")
                }
                domainMinimum = SIMD3(repeating: low)
                domainMaximum = SIMD3(repeating: high)
            default:
                return failure(number, display, "unknown keyword '\(keyword)'; Medley reads TITLE, LUT_3D_SIZE, LUT_1D_SIZE, "
                               + "DOMAIN_MIN, DOMAIN_MAX, LUT_1D_INPUT_RANGE and LUT_3D_INPUT_RANGE")
            }
        }
        guard let shape else {
            return .failure(LUTFileError(line: 0, text: "", reason: "no LUT_3D_SIZE or LUT_1D_SIZE line: the file does not say its size"))
        }
        guard entries.count == expected else {
            return .failure(LUTFileError(line: lastLine.number, text: lastLine.text,
                                         reason: "the file ends after \(entries.count) data lines, but "
                                            + (shape == .cube ? "LUT_3D_SIZE \(size) (line \(sizeLine)) needs \(size)³ = \(expected)"
                                                : "LUT_1D_SIZE \(size) (line \(sizeLine)) needs \(expected)")))
        }
        for c in 0..<3 where !(domainMinimum[c] < domainMaximum[c]) {
            return .failure(LUTFileError(line: 0, text: "", reason: "the domain's minimum must be below its maximum in every channel"))
        }
        guard let table = ColorLookupTable(shape: shape, size: size, entries: entries,
                                           domainMinimum: domainMinimum, domainMaximum: domainMaximum) else {
            return .failure(LUTFileError(line: 0, text: "", reason: "the table is not usable"))
        }
        return .success(table)
    }

    /// A number a Float holds, finite.
    static func number(_ word: Substring) -> Float? {
        guard let value = Double(word), value.isFinite, abs(value) <= Double(Float.greatestFiniteMagnitude) else { return nil }
        return Float(value)
    }
}

private extension Substring {
    func trimmingSuffix(_ suffix: Character) -> Substring { last == suffix ? dropLast() : self }
}

/// A Hald CLUT image (Eskil Steenberg's format, as ImageMagick's `hald:` makes it): level L is an
/// L³ × L³ image holding an L²-sided cube, its pixels in raster order being the cube's entries
/// red fastest, then green, then blue.
public enum HaldCLUT {
    /// The table from decoded samples: `samples` holds width × height pixels of `bands` (3 or 4;
    /// a fourth is ignored) values in 0…1, rows packed.
    public static func table(samples: [Float], width: Int, height: Int, bands: Int) -> Result<ColorLookupTable, LUTFileError> {
        guard width == height, width >= 8 else {
            return .failure(LUTFileError(line: 0, text: "", reason: "a Hald CLUT is square, level³ pixels on a side (e.g. 512×512 for level 8); this image is \(width)×\(height)"))
        }
        var level = 2
        while level * level * level < width { level += 1 }
        guard level * level * level == width else {
            return .failure(LUTFileError(line: 0, text: "", reason: "a Hald CLUT is level³ pixels on a side (8, 27, 64, 125, 216, 343, 512, 729, 1000 or 1331); \(width) is not a cube"))
        }
        let size = level * level
        guard size <= ColorLookupTable.maximumCubeSize else {
            return .failure(LUTFileError(line: 0, text: "", reason: "level \(level) holds a \(size)³ cube, over Medley's limit of \(ColorLookupTable.maximumCubeSize)"))
        }
        guard bands >= 3, samples.count == width * height * bands else {
            return .failure(LUTFileError(line: 0, text: "", reason: "the image is not RGB"))
        }
        var entries: [SIMD4<Float>] = []
        entries.reserveCapacity(width * height)
        for i in stride(from: 0, to: samples.count, by: bands) {
            entries.append(SIMD4(samples[i], samples[i + 1], samples[i + 2], 1))
        }
        guard let table = ColorLookupTable(shape: .cube, size: size, entries: entries) else {
            return .failure(LUTFileError(line: 0, text: "", reason: "the table is not usable"))
        }
        return .success(table)
    }
}
