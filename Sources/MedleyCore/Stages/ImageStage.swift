import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// Decodes, filters and encodes one image. libvips streams the pixels: the file is read strip
/// by strip as the encoder asks for them, the fused kernels run on each strip on libvips'
/// worker threads, and memory stays at a few strips unless the image must be rotated.
struct ImageStage {
    let renderer: ImageRenderer
    let export: ExportStage
    /// Decompression-bomb guard: a header may claim any size; refuse before allocating.
    let maxPixels: Int

    /// sharp's default (0x3FFF²): big enough for any camera, small enough to stop a bomb.
    static let defaultMaxPixels = 268_402_689

    init(job: Job, export: ExportStage) throws {
        maxPixels = job.maxPixels ?? Self.defaultMaxPixels
        renderer = ImageRenderer(plan: try job.imageGraph.map { RenderPlan(try $0.recipe(workingSpace: job.workingSpace)) },
                                 workingSpace: job.workingSpace, autoOrient: export.autoOrient, maxPixels: maxPixels)
        self.export = export
    }

    /// Opens the header only (no pixels) and checks it is safe to decode.
    func openHeader(_ path: String, messages: inout LibraryMessages) throws -> VipsImage {
        let header: VipsImage
        do {
            header = try Vips.collectingMessages(into: &messages) {
                try Vips.attributed { _ in try VipsImage.open(path, access: .sequential) }
            }
        } catch let error as MediaError {
            throw ItemFailure("cannot decode: \(error.reason)")
        }
        try Self.checkPixels(width: header.width, height: header.height, limit: maxPixels, of: "image")
        return header
    }

    /// Refuses a picture whose stored size (from a header, before any decoding) is over `limit`.
    static func checkPixels(width: Int, height: Int, limit: Int, of what: String) throws {
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > limit || width <= 0 || height <= 0 {
            throw ItemFailure(String(format: "%@ claims %d × %d pixels (%.0f MP), over the %.0f MP limit (limits.maxPixels); not decoded",
                                     what, width, height, Double(width) * Double(height) / 1e6, Double(limit) / 1e6))
        }
    }

    /// The format to write: the job's, or for `same` the input's when libvips can write it.
    func outputFormat(for header: VipsImage) -> ImageFormat {
        switch export.format {
        case .image(let format): return format
        case .same:
            if let format = ImageFormat(loader: header.loader), Vips.canSave(format) { return format }
            return .png
        }
    }

    /// Renders `header`'s file into `temporaryPath`; returns the item's warnings. libvips' log
    /// messages are added to `messages` (a run repeated alone after a failure: only its own).
    func render(_ path: String, header: VipsImage, format: ImageFormat, to temporaryPath: String,
                messages: inout LibraryMessages) throws -> [String] {
        do {
            var collected = LibraryMessages()
            defer { messages.merge(collected) }
            return try Vips.attributed { again in
                collected = LibraryMessages()
                return try Vips.collectingMessages(into: &collected) {
                    let source = again ? try VipsImage.open(path, access: .sequential) : header
                    let (image, warnings) = try renderer.render(path, header: source)
                    try image.attributedToCurrentItem().save(to: temporaryPath, format: format,
                                   quality: format.isLossy ? export.quality : nil, strip: export.strip)
                    let dropped = export.strip ? [] : image.metadataKinds.filter { !format.carries.contains($0) }
                    if dropped.isEmpty { return warnings }
                    return warnings + [".\(format.fileExtension) output cannot hold the input's \(dropped.map(\.rawValue).joined(separator: ", ")); not written"]
                }
            }
        } catch let error as MediaError {
            throw ItemFailure("cannot decode or encode: \(error.reason)")
        }
    }
}
