import CVipsShim
import Foundation
import MedleyKernels

/// A libvips image: a lazy recipe until it is saved. Each transform returns a new image; the
/// handle is released when the Swift object goes.
public final class VipsImage: @unchecked Sendable {
    // @unchecked: libvips images are immutable once built and reference-counted thread-safely.
    let handle: OpaquePointer

    private init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { medley_image_unref(handle) }

    /// `handle`, or libvips' error for `what`, for `cause` (a loader's: `loadCause`).
    /// Why a loader failed on `path`: the file's content (it can be read, so libvips refused what it
    /// holds), or the errno that stops it being read at all (a missing file, a refused permission).
    static func loadCause(_ path: String) -> MediaError.Cause {
        access(path, R_OK) == 0 ? .corruptData : .system(errno: errno)
    }

    static func wrap(_ handle: OpaquePointer?, _ what: String, cause: MediaError.Cause = .unspecified, path: String? = nil) throws -> VipsImage {
        guard let handle else { throw MediaError(.libvips, what, "\(what): \(Vips.takeError())", cause: cause, path: path) }
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
        return try wrap(medley_image_open(path, access == .sequential ? 1 : 0, 1), "cannot open", cause: loadCause(path), path: path)
    }

    /// Every frame of an animated file, stacked top to bottom into one tall image. Frames that
    /// will be rotated (EXIF orientation) read rows out of order, so they need `.random` access.
    public static func openAnimation(_ path: String, access: Access = .sequential) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_open_pages(path, access == .sequential ? 1 : 0, 1), "cannot open", cause: loadCause(path), path: path)
    }

    /// An image file held in memory (a Hald CLUT a pipeline names) as RGB(A) samples, 16-bit when
    /// `deep`. Images wider or taller than `maximumSide` are refused from their header, before decoding.
    public static func decodedPixels(bytes: [UInt8], maximumSide: Int, deep: Bool) throws
        -> (width: Int, height: Int, bands: Int, sampleBytes: Int, pixels: [UInt8]) {
        let size = try headerSize(bytes: bytes)
        guard size.width <= maximumSide, size.height <= maximumSide else {
            throw MediaError(.libvips, "load", "the image is \(size.width)×\(size.height) pixels, more than \(maximumSide) on a side", cause: .unsupported)
        }
        let rgb = try decoded(bytes: bytes).rgb(deep: deep)
        return (rgb.width, rgb.height, rgb.bands, rgb.sampleBytes, try rgb.pixels())
    }

    /// Pages (frames) in the file: 1 for a still image.
    public var pages: Int { Int(medley_image_pages(handle)) }
    /// The height of one frame of a stacked animation (the image's height otherwise).
    public var pageHeight: Int { Int(medley_image_page_height(handle)) }

    /// Frames of one size as an animation, with the delays and loop count the first carries.
    public static func animation(frames: [VipsImage]) throws -> VipsImage {
        var handles: [OpaquePointer?] = frames.map { $0.handle }
        let joined = withExtendedLifetime(frames) {
            handles.withUnsafeMutableBufferPointer { medley_image_join_pages($0.baseAddress, Int32($0.count)) }
        }
        return try wrap(joined, "cannot join the frames")
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
        let mapped = medley_image_map_regions(handle, try Self.int32(kernel.margin, "a kernel margin"), { context, input, inputStride, output,
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

    /// This float image resampled along one axis to `size` pixels by a cubic kernel.
    public func resampled(_ kernel: CubicResampleKernel, to size: Int, margin: Int) throws -> VipsImage {
        let box = Unmanaged.passRetained(Box(kernel)).toOpaque()
        let mapped = medley_image_resample(handle, kernel.horizontal ? 1 : 0, try Self.int32(size), kernel.scale,
                                           try Self.int32(margin, "a kernel margin"), { context, input, inputStride, output,
                                                                                         outputStride, width, height, bands, x, y,
                                                                                         first, count in
            guard let context, let input, let output else { return }
            (Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().value as! CubicResampleKernel)
                .apply(input: input.assumingMemoryBound(to: Float.self), inputStride: inputStride / 4,
                       output: output.assumingMemoryBound(to: Float.self), outputStride: outputStride / 4,
                       width: Int(width), height: Int(height), bands: Int(bands), x: Int(x), y: Int(y),
                       inputFirst: Int(first), inputCount: Int(count))
        }, box, Self.releaseBox)
        return try Self.wrap(mapped, "cannot resample")
    }

    /// A size or position for libvips' C int, or a MediaError: `Int32(_:)` would trap.
    static func int32(_ value: Int, _ what: String = "a size") throws -> Int32 {
        guard let narrow = Int32(exactly: value) else { throw MediaError(.libvips, "address", "\(what) of \(value) is beyond what libvips can address", cause: .unsupported) }
        return narrow
    }

    private static let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        guard let context else { return }
        Unmanaged<Box>.fromOpaque(context).release()
    }

    public func cropped(left: Int, top: Int, width: Int, height: Int) throws -> VipsImage {
        try Self.wrap(medley_image_crop(handle, try Self.int32(left), try Self.int32(top), try Self.int32(width), try Self.int32(height)), "cannot crop")
    }

    public func flipped(horizontally: Bool) throws -> VipsImage {
        try Self.wrap(medley_image_flip(handle, horizontally ? 1 : 0), "cannot flip")
    }

    /// Rotated clockwise by a multiple of 90°.
    public func rotated(quarterTurns: Int) throws -> VipsImage {
        try Self.wrap(medley_image_rotate(handle, Int32(quarterTurns & 3)), "cannot rotate")
    }

    /// Output (X, Y) = [a b; c d]·(x, y) + (dx, dy), sampled bicubically into width × height.
    public func affine(a: Double, b: Double, c: Double, d: Double, dx: Double, dy: Double,
                       width: Int, height: Int) throws -> VipsImage {
        try Self.wrap(medley_image_affine(handle, a, b, c, d, dx, dy, try Self.int32(width), try Self.int32(height)), "cannot transform")
    }

    /// Each output pixel sampled bilinearly where `index` (two float bands: x, y in this image's pixel
    /// coordinates, centres at integers) says; transparent black outside. The output has the index's size.
    public func mapped(by index: VipsImage) throws -> VipsImage {
        try Self.wrap(medley_image_mapim(handle, index.handle), "cannot warp")
    }

    /// Lanczos-3 resampling by scale factors.
    public func resized(horizontal: Double, vertical: Double) throws -> VipsImage {
        try Self.wrap(medley_image_resize(handle, horizontal, vertical), "cannot resize")
    }

    /// A file decoded straight to at most width × height (shrink-on-load), EXIF orientation applied.
    /// A CMYK file becomes sRGB with `intent`.
    public static func thumbnail(_ path: String, width: Int, height: Int, crop: ThumbnailCrop, force: Bool,
                                 intent: RenderingIntent = .relative) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_thumbnail(path, try int32(width), try int32(height), crop.rawValue, force ? 1 : 0, 1,
                                               intent.rawValue),
                        "cannot decode")
    }

    /// What a shrink-on-load thumbnail crops to fill its box (libvips' `VipsInteresting`).
    public enum ThumbnailCrop: Int32, Sendable {
        case none = 0, centre = 1, entropy = 2, attention = 3
    }

    /// The width × height box of the image libvips' `vips_smartcrop` picks: `attention` or `entropy`
    /// (`centre` is a plain crop). A box bigger than the image is the image's own side.
    public func smartCropped(width: Int, height: Int, strategy: ThumbnailCrop) throws -> VipsImage {
        let (w, h) = (min(width, self.width), min(height, self.height))
        guard strategy == .attention || strategy == .entropy else {
            return try cropped(left: (self.width - w) / 2, top: (self.height - h) / 2, width: w, height: h)
        }
        return try Self.wrap(medley_image_smartcrop(handle, try Self.int32(w), try Self.int32(h), strategy.rawValue), "cannot find the crop")
    }

    /// An 8-bit image copied from interleaved pixels (rows packed), e.g. a decoded movie frame.
    /// Three bands are sRGB.
    public static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws -> VipsImage {
        let area = width.multipliedReportingOverflow(by: height), bytes = area.partialValue.multipliedReportingOverflow(by: bands)
        guard width > 0, height > 0, bands > 0, !area.overflow, !bytes.overflow, pixels.count == bytes.partialValue else {
            throw MediaError(.libvips, "wrap pixels", "\(pixels.count) bytes are not \(width)×\(height) pixels of \(bands) bands", cause: .unsupported)
        }
        try Vips.start()
        let (w, h, b) = (try int32(width), try int32(height), try int32(bands))
        let handle = pixels.withUnsafeBufferPointer { medley_image_from_uchar($0.baseAddress, w, h, b) }
        return try wrap(handle, "cannot build an image from pixels")
    }

    /// A float image filled with one colour (one value per band).
    public static func constant(width: Int, height: Int, values: [Double]) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_constant(try int32(width), try int32(height), try int32(values.count), values),
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
        try Self.wrap(medley_image_embed(handle, try Self.int32(x), try Self.int32(y), try Self.int32(width), try Self.int32(height)), "cannot embed")
    }

    /// With one more band of a constant value (an opaque alpha).
    public func appendingBand(_ value: Double) throws -> VipsImage {
        try Self.wrap(medley_image_append_band(handle, value), "cannot add a band")
    }

    /// Only bands first ..< first + count.
    public func bands(_ first: Int, count: Int) throws -> VipsImage {
        try Self.wrap(medley_image_extract_bands(handle, try Self.int32(first), try Self.int32(count)), "cannot extract bands")
    }

    /// Converted from its embedded ICC profile to sRGB (same depth).
    public func importingICCProfile(intent: RenderingIntent = .relative) throws -> VipsImage {
        try Self.wrap(medley_image_import_icc(handle, nil, intent.rawValue), "cannot apply the embedded ICC profile")
    }

    /// This image in a space the kernels take — sRGB or grey, 8 or 16 bits, at most one alpha —
    /// and what could not be carried over, as sentences for the item's warnings.
    ///
    /// libvips loads CMYK, CIELAB/XYZ (TIFF), float and many-band images as they are stored.
    /// CMYK goes through its embedded ICC profile, or libvips' default CMYK profile when it has
    /// none (as `vips icc_import` does); other colour spaces through `vips colourspace`. Bands
    /// beyond what the space holds (e.g. a 6-band TIFF) are dropped, with a warning; samples of
    /// more than 16 bits become 16-bit, with a warning.
    /// CMYK goes to sRGB with `intent`.
    public func inRGBSpace(intent: RenderingIntent = .relative) throws -> (image: VipsImage, warnings: [String]) {
        let kind = interpretation, format = medley_image_format(handle)
        let rgbKinds: Set<String> = ["srgb", "rgb", "rgb16"], greyKinds: Set<String> = ["b-w", "grey16"]
        let stored = format == 0 || format == 2  // uchar, ushort
        // The bands a space holds: its colours plus one alpha; unknown spaces are read as RGB.
        let keep: Int
        switch kind {
        case "cmyk": keep = 5
        case _ where greyKinds.contains(kind): keep = 2
        case _ where rgbKinds.contains(kind), "lab", "labs", "lch", "cmc", "xyz", "yxy", "hsv", "scrgb": keep = 4
        default: keep = 3
        }
        if stored && bands <= keep && (rgbKinds.contains(kind) || greyKinds.contains(kind)) { return (self, []) }
        var image = self, warnings: [String] = []
        if bands > keep {
            image = try bands(0, count: keep)
            warnings.append("\(bands) bands (\(kind)): only the first \(keep) are kept; the other \(bands - keep) are dropped")
        }
        // 16-bit samples stay 16-bit; 32-bit (float, as scRGB and CIELAB TIFFs hold) and 64-bit ones
        // become 16-bit too, the deepest the kernels and most formats take, never 8-bit.
        let deep = image.sampleBytes >= 2
        if image.sampleBytes > 2 {
            let float = format == 6 || format == 8  // float, double
            warnings.append("\(image.sampleBytes * 8)-bit \(float ? "float" : "integer") samples (\(kind)): written as 16-bit integers"
                            + (float ? "; values outside 0…1 after the conversion to sRGB are clipped" : ""))
        }
        switch kind {
        case "cmyk":
            image = try Self.wrap(medley_image_import_icc(image.handle, "cmyk", intent.rawValue), "cannot convert CMYK to sRGB")
        case "lab", "labs", "lch", "cmc", "xyz", "yxy", "hsv", "scrgb", "b-w", "grey16", "srgb", "rgb", "rgb16":
            image = try image.rgb(deep: deep)
        default:
            // Multiband, Fourier, histogram…: the first bands as they are, read as RGB.
            image = try Self.wrap(medley_image_reinterpret(image.handle, deep ? "rgb16" : "srgb"),
                                  "cannot read the bands as RGB")
            image = try image.rgb(deep: deep)
            warnings.append("a \(kind) image: its first \(min(bands, keep)) bands are read as sRGB")
        }
        return (image, warnings)
    }

    /// The same image (no copy) whose pixels, computed on libvips' worker threads, log into the
    /// collection of `Vips.collectingMessages` open on this thread: messages of the loaders and
    /// operations upstream are this item's.
    public func attributedToCurrentItem() throws -> VipsImage {
        try Self.wrap(medley_image_attributed(handle), "cannot attribute the image's messages")
    }

    /// The kinds of metadata the image carries, of EXIF, XMP, IPTC and ICC.
    public var metadataKinds: [ImageFormat.Metadata] {
        ImageFormat.Metadata.allCases.filter { medley_image_has_field(handle, $0.field) != 0 }
    }

    /// Renders and writes the image. `quality` is 1…100 for lossy formats (nil: the format's
    /// default); `strip` drops EXIF, ICC and XMP. The export stage's saver with only those options.
    public func save(to path: String, format: ImageFormat, quality: Int?, strip: Bool) throws {
        try save(to: path, format: format, options: SaveOptions(quality: quality, strip: strip))
    }

    /// The image computed once into memory, so that it can be read more than once (a file opened for one
    /// sequential read cannot be).
    public func copiedToMemory() throws -> VipsImage {
        try Self.wrap(medley_image_copy_memory(handle), "cannot hold the image in memory")
    }

    /// All samples of a float image, interleaved (small images only: tables, palettes).
    public func floatPixels() throws -> [Float] {
        var length = 0
        guard let memory = medley_image_render_to_memory(handle, &length) else {
            throw MediaError(.libvips, "render", Vips.takeError())
        }
        defer { free(memory) }
        guard sampleBytes == 4 else { throw MediaError(.libvips, "render", "expected float samples, found \(sampleBytes)-byte ones", cause: .unsupported) }
        return Array(UnsafeBufferPointer(start: memory.assumingMemoryBound(to: Float.self), count: length / 4))
    }

    /// All pixels, interleaved, as stored (tests and small images only).
    public func pixels() throws -> [UInt8] {
        var length = 0
        guard let memory = medley_image_render_to_memory(handle, &length) else {
            throw MediaError(.libvips, "render", Vips.takeError())
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

/// How the export stage's saver is set: libvips' options per format, nil for its default.
public struct SaveOptions: Sendable, Equatable {
    /// 1…100 for lossy formats.
    public var quality: Int?
    /// Drop EXIF, XMP and IPTC, and the ICC profile unless `keepProfile`.
    public var strip = false
    public var keepProfile = false
    /// WebP, HEIF/AVIF, JPEG XL.
    public var lossless: Bool?
    /// CPU effort: WebP 0–6, HEIF/AVIF 0–9, JPEG XL 3–9.
    public var effort: Int?
    /// Chroma subsampling (JPEG, HEIF/AVIF): libvips' `subsample_mode`.
    public var subsampling: Subsampling?
    /// Bits a sample for HEIF/AVIF: 8, 10 or 12.
    public var bitDepth: Int?

    /// libvips' `VipsForeignSubsample`.
    public enum Subsampling: String, Sendable, CaseIterable {
        case auto, on, off
        var code: Int32 { self == .auto ? 0 : self == .on ? 1 : 2 }
    }

    public init(quality: Int? = nil, strip: Bool = false, keepProfile: Bool = false, lossless: Bool? = nil,
                effort: Int? = nil, subsampling: Subsampling? = nil, bitDepth: Int? = nil) {
        self.quality = quality
        self.strip = strip
        self.keepProfile = keepProfile
        self.lossless = lossless
        self.effort = effort
        self.subsampling = subsampling
        self.bitDepth = bitDepth
    }
}

extension VipsImage {
    /// Renders and writes the image with the export stage's options: Medley's one saver. With `strip`,
    /// the metadata is removed from the image before libvips writes it, and from a WebP file after
    /// (libvips 8.14's webpsave writes an EXIF chunk of its own).
    public func save(to path: String, format: ImageFormat, options: SaveOptions) throws {
        // jpegsave cannot keep a profile without writing an EXIF block: stripped whole, the profile added after.
        let profileAfter = options.strip && options.keepProfile && format == .jpeg ? iccProfile : []
        var settings = MedleySaveOptions(
            format: format.code, quality: Int32(clamping: options.quality ?? 0), strip: options.strip ? 1 : 0,
            keep_icc: options.keepProfile && profileAfter.isEmpty ? 1 : 0, lossless: options.lossless.map { $0 ? 1 : 0 } ?? -1,
            effort: Int32(clamping: options.effort ?? -1), subsample: options.subsampling?.code ?? -1,
            bitdepth: Int32(clamping: options.bitDepth ?? -1))
        errno = 0
        guard medley_image_save(handle, path, &settings) == 0 else { throw Vips.saveFailure(path: path, errno: errno) }
        if !profileAfter.isEmpty { try JPEGSegments.insertICCProfile(profileAfter, fileAt: path) }
        if options.strip && format == .webp {
            do { try WebPChunks.stripMetadata(fileAt: path, keepICC: options.keepProfile) } catch {
                throw MediaError(.medley, "strip WebP metadata", "cannot remove the metadata libvips wrote into the WebP file: \(error.localizedDescription)")
            }
        }
    }

    /// The pixels converted into the ICC profile `profile` (which is then attached), same bit
    /// depth, with `intent`. They are read in the embedded profile when `fromEmbedded`
    /// and the image has one, else as sRGB.
    public func converted(toProfile profile: [UInt8], fromEmbedded: Bool, intent: RenderingIntent = .relative) throws -> VipsImage {
        let converted = profile.withUnsafeBytes {
            medley_image_icc_convert(handle, $0.baseAddress, $0.count, fromEmbedded ? 1 : 0, intent.rawValue)
        }
        guard let converted else {
            throw MediaError(.libvips, "convert to the ICC profile", "cannot convert to the ICC profile '\(ICCProfile.description(profile) ?? "unnamed")': \(Vips.takeError())")
        }
        return VipsImage(converted)
    }

    /// The same pixels with `profile` as their ICC profile (none when empty).
    public func withICCProfile(_ profile: [UInt8]) throws -> VipsImage {
        let tagged = profile.withUnsafeBytes { medley_image_with_icc(handle, $0.baseAddress, $0.count) }
        guard let tagged else { throw MediaError(.libvips, "attach the ICC profile", "cannot attach the ICC profile: \(Vips.takeError())") }
        return VipsImage(tagged)
    }

    /// Alpha flattened onto an sRGB colour (each 0…1); images without alpha unchanged.
    public func flattened(onto colour: (red: Double, green: Double, blue: Double)) throws -> VipsImage {
        guard let flat = medley_image_flatten_onto(handle, colour.red, colour.green, colour.blue) else {
            throw MediaError(.libvips, "flatten", "cannot flatten the alpha channel: \(Vips.takeError())")
        }
        return VipsImage(flat)
    }

    /// A file decoded straight to at most width × height, EXIF orientation applied, never
    /// larger than it is (libvips' `size: down`, vipsthumbnail's `>`).
    public static func thumbnailWithoutEnlarging(_ path: String, width: Int, height: Int, crop: ThumbnailCrop,
                                                 intent: RenderingIntent = .relative) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_thumbnail_down(path, try int32(width), try int32(height), crop.rawValue, 1, intent.rawValue),
                        "cannot decode", cause: loadCause(path), path: path)
    }

    /// A file decoded straight to at most width × height as its pixels are stored (libvips' `no_rotate`):
    /// the EXIF orientation is not applied and its tag stays. `enlarge: false` is libvips' `size: down`.
    public static func thumbnailAsStored(_ path: String, width: Int, height: Int, crop: ThumbnailCrop, force: Bool,
                                         enlarge: Bool, intent: RenderingIntent = .relative) throws -> VipsImage {
        try Vips.start()
        return try wrap(medley_image_thumbnail_stored(path, try int32(width), try int32(height), crop.rawValue, force ? 1 : 0,
                                                      enlarge ? 1 : 0, 1, intent.rawValue), "cannot decode", cause: loadCause(path), path: path)
    }

    /// The text of one metadata field (e.g. "heif-compression"), or nil.
    public func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }
}

extension ICCProfile {
    /// libvips' built-in sRGB profile (the one its `srgb` name stands for).
    public static let sRGB: [UInt8] = {
        guard (try? Vips.start()) != nil else { return [] }
        var length = 0
        guard let data = medley_srgb_profile(&length) else { return [] }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }()

    /// Nil when lcms takes the bytes as an RGB output profile; else why not, in lcms' or libvips' words.
    public static func problemAsRGBOutput(_ bytes: [UInt8]) -> String? {
        guard (try? Vips.start()) != nil else { return "libvips could not start" }
        let failed = bytes.withUnsafeBytes { medley_icc_check_rgb($0.baseAddress, $0.count) } != 0
        return failed ? Vips.takeError() : nil
    }
}

// MARK: watermarks and text

extension VipsImage {
    /// An image decoded from bytes in memory (a pipeline's logo or mask, read once at validation),
    /// decoded whole: it outlives the bytes and any thread may read it. Damaged data fails.
    public static func decoded(bytes: [UInt8]) throws -> VipsImage {
        try Vips.start()
        guard !bytes.isEmpty else { throw MediaError(.libvips, "decode", "cannot decode: no bytes", cause: .corruptData) }
        let handle = bytes.withUnsafeBytes { medley_image_from_buffer($0.baseAddress, $0.count, 1) }
        return try wrap(handle, "cannot decode", cause: .corruptData)
    }

    /// The size an image's header claims, read from bytes in memory without decoding its pixels.
    public static func headerSize(bytes: [UInt8]) throws -> (width: Int, height: Int) {
        try Vips.start()
        guard !bytes.isEmpty else { throw MediaError(.libvips, "load", "the file is empty", cause: .corruptData) }
        var width: Int32 = 0, height: Int32 = 0
        let status = bytes.withUnsafeBytes { medley_image_buffer_size($0.baseAddress, $0.count, &width, &height) }
        guard status == 0 else { throw MediaError(.libvips, "load", Vips.takeError(), cause: .corruptData) }
        return (Int(width), Int(height))
    }

    /// Pango markup (already escaped: see `TextImage`) drawn in one colour, as 8-bit sRGB plus alpha
    /// (alpha = the glyphs' coverage × `rgba`'s alpha). `font` is a Pango font description without
    /// its size; `pixelSize` is the em size in pixels.
    public static func text(markup: String, font: String, pixelSize: Int, rgba: SIMD4<Double>) throws -> VipsImage {
        try Vips.start()
        guard pixelSize >= 1 else { throw MediaError(.libvips, "draw text", "cannot draw text of \(pixelSize) pixels", cause: .unsupported) }
        // At 72 dots per inch a point is a pixel.
        let description = "\(font) \(pixelSize)"
        let clamped = rgba.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1)) * 255
        return try wrap(medley_image_text_rgba(markup, description, 72, clamped.x, clamped.y, clamped.z, clamped.w),
                        "cannot draw the text")
    }

    /// `mark` (8-bit sRGB + alpha) resized by `scale` (alpha-aware Lanczos), composited source-over
    /// onto this image with its alpha × `opacity`, its top-left corner at (x, y) in this image's
    /// pixels (y down); `tile` repeats it with `gap` pixels between copies. In linear light when
    /// `linear`, else on the stored sRGB values. The result keeps this image's depth; grey becomes RGB.
    public func watermarked(by mark: VipsImage, scale: Double, x: Int, y: Int, opacity: Double, linear: Bool,
                            tile: Bool, gap: (x: Int, y: Int)) throws -> VipsImage {
        guard mark.bands == 4 else { throw MediaError(.libvips, "watermark", "a watermark needs RGB + alpha, not \(mark.bands) bands", cause: .unsupported) }
        guard scale.isFinite, scale > 0 else { throw MediaError(.libvips, "watermark", "a watermark cannot be scaled by \(scale)", cause: .unsupported) }
        let handle = medley_image_watermark(self.handle, mark.handle, scale, try Self.int32(x), try Self.int32(y),
                                            min(max(opacity, 0), 1), linear ? 1 : 0, tile ? 1 : 0,
                                            try Self.int32(max(0, gap.x)), try Self.int32(max(0, gap.y)))
        return try withExtendedLifetime(mark) { try Self.wrap(handle, "cannot composite the watermark") }
    }
}
