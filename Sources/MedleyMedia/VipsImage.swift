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
    /// Whether the last band is alpha.
    public var hasAlpha: Bool { bands == 2 || bands == 4 }

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

    /// A lazy image whose rows are `kernel` applied to this image's rows (RGB or RGBA, 8/16-bit).
    /// The kernel runs later, on libvips' worker threads, strip by strip as the image is saved.
    public func mapRows(_ kernel: RowKernel) throws -> VipsImage {
        let box = Unmanaged.passRetained(KernelBox(kernel)).toOpaque()
        let mapped = medley_image_map_rows(handle, { context, input, output, width, bands, sampleBytes, x, y in
            guard let context, let input, let output else { return }
            Unmanaged<KernelBox>.fromOpaque(context).takeUnretainedValue().kernel
                .apply(row: input, to: output, width: Int(width), bands: Int(bands), sampleBytes: Int(sampleBytes),
                       x: Int(x), y: Int(y))
        }, box, { context in
            guard let context else { return }
            Unmanaged<KernelBox>.fromOpaque(context).release()
        })
        return try Self.wrap(mapped, "cannot run kernel")
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

/// Keeps a kernel alive while libvips holds a pointer to it.
private final class KernelBox {
    let kernel: RowKernel
    init(_ kernel: RowKernel) { self.kernel = kernel }
}
