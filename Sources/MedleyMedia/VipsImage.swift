import CVipsShim
import Foundation
import MedleyKernels

/// A libvips image: a lazy recipe until it is saved. Each transform returns a new image; the
/// handle is released when the Swift object goes.
public final class VipsImage: @unchecked Sendable {
    // @unchecked: libvips images are immutable once built and reference-counted thread-safely.
    fileprivate let handle: OpaquePointer

    private init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { medley_image_unref(handle) }

    private static func wrap(_ handle: OpaquePointer?, _ what: String) throws -> VipsImage {
        guard let handle else { throw MediaError("\(what): \(Vips.takeError())") }
        return VipsImage(handle)
    }

    /// How an image will be read.
    public enum Access: Sendable {
        /// Top to bottom once: streams, so memory stays at a few strips.
        case sequential
        /// Any order (needed to rotate).
        case random
    }

    /// Opens a file; only the header is read until pixels are needed. Damaged or truncated
    /// data fails the save, never decodes silently to grey.
    public static func open(_ path: String, access: Access) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_open(path, access == .sequential ? 1 : 0, 1), "cannot open")
    }

    public var width: Int { Int(medley_image_width(handle)) }
    public var height: Int { Int(medley_image_height(handle)) }
    public var bands: Int { Int(medley_image_bands(handle)) }
    /// Bytes per sample of the stored pixels for integer formats (1 or 2); 4/8 for float/double.
    public var sampleBytes: Int {
        switch medley_image_format(handle) {
        case 0, 1: return 1  // uchar, char
        case 2, 3: return 2  // ushort, short
        case 8, 9: return 8  // double, dpcomplex
        default: return 4
        }
    }
    /// Bits per sample as a person says it: 8, 16, 32.
    public var bitDepth: Int { sampleBytes * 8 }
    /// libvips' interpretation: "srgb", "b-w", "rgb16", "grey16", "cmyk", …
    public var interpretation: String { String(cString: medley_image_interpretation(handle)) }
    /// EXIF orientation 1…8.
    public var orientation: Int { Int(medley_image_orientation(handle)) }
    /// Bytes of the embedded ICC profile (0 when none).
    public var iccProfileLength: Int { Int(medley_image_icc_length(handle)) }
    /// The loader that read the file, e.g. "jpegload".
    public var loader: String { String(cString: medley_image_loader(handle)) }
    /// Whether the last band is alpha: libvips' rule, by band count and interpretation (a CMYK image's fourth
    /// band is black, not alpha).
    public var hasAlpha: Bool { medley_image_has_alpha(handle) != 0 }

    /// Every text or number metadata field (`exif-ifd0-Make` → "Medley (Medley, ASCII, 7 components…)").
    public var fields: [(name: String, value: String)] {
        final class Sink { var fields: [(String, String)] = [] }
        let sink = Sink()
        withExtendedLifetime(sink) {
            medley_image_visit_fields(handle, { context, name, value in
                guard let context, let name, let value else { return }
                Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                    .fields.append((String(cString: name), String(cString: value)))
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        return sink.fields.map { (name: $0.0, value: $0.1) }
    }

    /// Rotated/flipped upright by its EXIF orientation, which is then reset to 1.
    public func autoOriented() throws -> VipsImage {
        try Self.wrap(medley_image_autorot(handle), "cannot apply EXIF orientation")
    }

    /// Widened or narrowed to RGB(A) in sRGB coding, 8-bit or (when `deep`) 16-bit.
    public func rgb(deep: Bool) throws -> VipsImage {
        try Self.wrap(medley_image_to_rgb(handle, deep ? 1 : 0), "cannot convert to RGB")
    }

    /// 8-bit sRGB without alpha (transparent parts on white): what a JPEG thumbnail needs.
    public func flattened() throws -> VipsImage {
        let rgb = try rgb(deep: false)
        return try Self.wrap(medley_image_flatten_white(rgb.handle), "cannot flatten the alpha channel")
    }

    /// Sample formats a kernel can produce.
    public enum SampleFormat: Int32, Sendable {
        case uchar = 0, ushort = 2, float = 6
    }

    /// A lazy image whose rows are `kernel` applied to this image's rows, in the same sample
    /// format or converted to `format`. The kernel runs later, on libvips' worker threads, strip
    /// by strip as the image is saved.
    public func mapRows(_ kernel: RowKernel, to format: SampleFormat? = nil) throws -> VipsImage {
        let box = Unmanaged.passRetained(Box(kernel)).toOpaque()
        let mapped = medley_image_map_rows(handle, format?.rawValue ?? -1, { context, input, output, width, bands,
                                                                              inputBytes, outputBytes, x, y in
            guard let context, let input, let output else { return }
            (Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().value as! RowKernel)
                .apply(row: input, to: output, width: Int(width), bands: Int(bands), inputBytes: Int(inputBytes),
                       outputBytes: Int(outputBytes), x: Int(x), y: Int(y))
        }, box, Self.releaseBox)
        return try Self.wrap(mapped, "cannot run kernel")
    }

    /// Rows of this image and `other` (both float, same size and bands) combined by `kernel`.
    public func mapRows(with other: VipsImage, _ kernel: RowKernel2) throws -> VipsImage {
        let box = Unmanaged.passRetained(Box(kernel)).toOpaque()
        let mapped = medley_image_map_rows2(handle, other.handle, { context, first, second, output, width, bands, x, y in
            guard let context, let first, let second, let output else { return }
            (Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().value as! RowKernel2)
                .apply(first: first.assumingMemoryBound(to: Float.self), second: second.assumingMemoryBound(to: Float.self),
                       to: output.assumingMemoryBound(to: Float.self), width: Int(width), bands: Int(bands),
                       x: Int(x), y: Int(y))
        }, box, Self.releaseBox)
        return try Self.wrap(mapped, "cannot composite")
    }

    /// A float image whose blocks are `kernel` applied to this (float) image's blocks plus margin.
    public func mapRegions(_ kernel: RegionKernel) throws -> VipsImage {
        let box = Unmanaged.passRetained(Box(SizedRegionKernel(kernel: kernel, width: width, height: height))).toOpaque()
        let mapped = medley_image_map_regions(handle, Int32(kernel.margin), { context, input, inputStride, output,
                                                                              outputStride, width, height, bands, x, y in
            guard let context, let input, let output else { return }
            let sized = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().value as! SizedRegionKernel
            sized.kernel.apply(input: input.assumingMemoryBound(to: Float.self), inputStride: inputStride / 4,
                               output: output.assumingMemoryBound(to: Float.self), outputStride: outputStride / 4,
                               width: Int(width), height: Int(height), bands: Int(bands), x: Int(x), y: Int(y),
                               imageWidth: sized.width, imageHeight: sized.height)
        }, box, Self.releaseBox)
        return try Self.wrap(mapped, "cannot run kernel")
    }

    private static let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        guard let context else { return }
        Unmanaged<Box>.fromOpaque(context).release()
    }

    public func cropped(left: Int, top: Int, width: Int, height: Int) throws -> VipsImage {
        try Self.wrap(medley_image_crop(handle, Int32(left), Int32(top), Int32(width), Int32(height)), "cannot crop")
    }

    public func flipped(horizontally: Bool) throws -> VipsImage {
        try Self.wrap(medley_image_flip(handle, horizontally ? 1 : 0), "cannot flip")
    }

    /// Rotated clockwise by a multiple of 90°.
    public func rotated(quarterTurns: Int) throws -> VipsImage {
        try Self.wrap(medley_image_rotate(handle, Int32(quarterTurns)), "cannot rotate")
    }

    /// Output (X, Y) = [a b; c d]·(x, y) + (dx, dy), sampled bicubically into width × height.
    public func affine(a: Double, b: Double, c: Double, d: Double, dx: Double, dy: Double,
                       width: Int, height: Int) throws -> VipsImage {
        try Self.wrap(medley_image_affine(handle, a, b, c, d, dx, dy, Int32(width), Int32(height)), "cannot transform")
    }

    /// Lanczos-3 resampling by scale factors.
    public func resized(horizontal: Double, vertical: Double) throws -> VipsImage {
        try Self.wrap(medley_image_resize(handle, horizontal, vertical), "cannot resize")
    }

    /// A file decoded straight to at most width × height (shrink-on-load), EXIF orientation applied.
    public static func thumbnail(_ path: String, width: Int, height: Int, crop: Bool, force: Bool) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_thumbnail(path, Int32(width), Int32(height), crop ? 1 : 0, force ? 1 : 0, 1),
                        "cannot decode")
    }

    /// An 8-bit image copied from interleaved pixels (rows packed), e.g. a decoded movie frame.
    /// Three bands are sRGB.
    public static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws -> VipsImage {
        guard width > 0, height > 0, bands > 0, pixels.count == width * height * bands else {
            throw MediaError("\(pixels.count) bytes are not \(width)×\(height) pixels of \(bands) bands")
        }
        try Vips.start()
        let handle = pixels.withUnsafeBufferPointer {
            medley_image_from_uchar($0.baseAddress, Int32(width), Int32(height), Int32(bands))
        }
        return try wrap(handle, "cannot build an image from pixels")
    }

    /// A float image filled with one colour (one value per band).
    public static func constant(width: Int, height: Int, values: [Double]) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_constant(Int32(width), Int32(height), Int32(values.count), values),
                        "cannot make a constant image")
    }

    /// The embedded ICC profile's bytes (empty when none).
    public var iccProfile: [UInt8] {
        var length = 0
        guard let data = medley_image_icc_data(handle, &length), length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Placed at (x, y) on a width × height canvas of zeros.
    public func embedded(x: Int, y: Int, width: Int, height: Int) throws -> VipsImage {
        try Self.wrap(medley_image_embed(handle, Int32(x), Int32(y), Int32(width), Int32(height)), "cannot embed")
    }

    /// With one more band of a constant value (an opaque alpha).
    public func appendingBand(_ value: Double) throws -> VipsImage {
        try Self.wrap(medley_image_append_band(handle, value), "cannot add a band")
    }

    /// Only bands first ..< first + count.
    public func bands(_ first: Int, count: Int) throws -> VipsImage {
        try Self.wrap(medley_image_extract_bands(handle, Int32(first), Int32(count)), "cannot extract bands")
    }

    /// Converted from its embedded ICC profile to sRGB (same depth).
    public func importingICCProfile() throws -> VipsImage {
        try Self.wrap(medley_image_import_icc(handle), "cannot apply the embedded ICC profile")
    }

    /// Renders and writes the image. `quality` is 1…100 for lossy formats (nil: the format's
    /// default); `strip` drops EXIF, ICC and XMP.
    public func save(to path: String, format: ImageFormat, quality: Int?, strip: Bool) throws {
        guard medley_image_save(handle, path, format.code, Int32(quality ?? 0), strip ? 1 : 0) == 0 else {
            throw MediaError(Vips.takeError())
        }
    }

    /// All pixels, interleaved, as stored (tests and small images only).
    public func pixels() throws -> [UInt8] {
        var length = 0
        guard let memory = medley_image_render_to_memory(handle, &length) else {
            throw MediaError(Vips.takeError())
        }
        defer { free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: length))
    }
}

/// A region kernel with the size of the image it runs over.
private struct SizedRegionKernel {
    let kernel: RegionKernel
    let width: Int
    let height: Int
}

/// Keeps a kernel alive while libvips holds a pointer to it.
private final class Box {
    let value: Any
    init(_ value: Any) { self.value = value }
}
