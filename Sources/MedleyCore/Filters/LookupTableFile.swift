import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// A filter's `file:` (a `.file` parameter: CIColorCube's LUT) read while the pipeline is
/// validated: the asset is checked and read once (`assetFile`), then parsed here — a `.cube` as
/// text, a PNG as a Hald CLUT decoded by libvips from the bytes — so the filter gets a table and
/// a bad file fails validation at the `file:` value, naming the file's line that is wrong.
extension SchemaReader {
    func lookupTableFile(_ node: YAMLNode, what: String) -> ColorLookupTable? {
        guard let asset = assetFile(node, what: what) else { return nil }
        let parsed: Result<ColorLookupTable, LUTFileError>
        if asset.bytes.starts(with: LookupTableFile.pngSignature) {
            parsed = LookupTableFile.hald(asset.bytes)
        } else {
            parsed = CubeFile.parse(asset.bytes)
        }
        switch parsed {
        case .success(let table):
            return table
        case .failure(let problem):
            sink.error(node, "\(what): \(asset.path) " + (problem.line > 0 ? "" : "is not a usable LUT: ") + "\(problem)",
                       suggestion: "a .cube file (LUT_3D_SIZE or LUT_1D_SIZE, then one 'r g b' line per entry) or a Hald CLUT PNG (convert hald:8 hald.png)")
            return nil
        }
    }
}

enum LookupTableFile {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Level 11 (1331 pixels a side, a 121³ cube) is the largest Hald image within the cube limit.
    static let maximumHaldSide = 1331

    /// A Hald CLUT PNG's table, decoded at 16 bits.
    static func hald(_ bytes: [UInt8]) -> Result<ColorLookupTable, LUTFileError> {
        let decoded: (width: Int, height: Int, bands: Int, sampleBytes: Int, pixels: [UInt8])
        do {
            decoded = try VipsImage.decodedPixels(bytes: bytes, maximumSide: maximumHaldSide, deep: true)
        } catch {
            return .failure(LUTFileError(line: 0, text: "", reason: "the PNG cannot be read as a Hald CLUT: \(error)"))
        }
        let samples: [Float]
        switch decoded.sampleBytes {
        case 2:
            // Native-endian 16-bit samples (libvips' in-memory order, little-endian here).
            let pixels = decoded.pixels
            samples = stride(from: 0, to: pixels.count - 1, by: 2).map { i in
                Float(UInt16(pixels[i]) | UInt16(pixels[i + 1]) << 8) / 65535
            }
        case 1:
            samples = decoded.pixels.map { Float($0) / 255 }
        default:
            return .failure(LUTFileError(line: 0, text: "", reason: "the PNG has \(decoded.sampleBytes)-byte samples; a Hald CLUT has 8 or 16 bits"))
        }
        return HaldCLUT.table(samples: samples, width: decoded.width, height: decoded.height, bands: decoded.bands)
    }
}
