import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// Decodes, filters and encodes one image. libvips streams the pixels: the file is read strip
/// by strip as the encoder asks for them, the fused kernels run on each strip on libvips'
/// worker threads, and memory stays at a few strips unless the image must be rotated.
struct ImageStage {
    /// The optimised filter passes (planned once per job, shared by all items); empty when
    /// the job only converts or copies images.
    let steps: [PixelStep]
    let workingSpace: Transfer
    let export: ExportStage

    /// Decompression-bomb guard: a header may claim any size; refuse before allocating.
    static let maxPixels = 1_000_000_000

    init(job: Job, export: ExportStage) throws {
        steps = try job.imageGraph.map { RenderPlan(try $0.recipe()).steps } ?? []
        workingSpace = job.workingSpace
        self.export = export
    }

    /// Opens the header only (no pixels) and checks it is safe to decode.
    func openHeader(_ path: String) throws -> VipsImage {
        let header: VipsImage
        do {
            header = try VipsImage.open(path, access: .sequential)
        } catch let error as MediaError {
            throw ItemFailure("cannot decode: \(error.reason)")
        }
        let pixels = header.width * header.height
        if pixels > Self.maxPixels || header.width <= 0 || header.height <= 0 {
            throw ItemFailure(String(format: "image claims %d × %d pixels (%.0f MP), over the %d MP limit; not decoded",
                                     header.width, header.height, Double(pixels) / 1e6, Self.maxPixels / 1_000_000))
        }
        return header
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

    /// Renders `header`'s file into `temporaryPath`.
    func render(_ path: String, header: VipsImage, format: ImageFormat, to temporaryPath: String) throws {
        do {
            let rotate = export.autoOrient && header.orientation != 1
            // Rotation reads rows out of order, so it needs random access; everything else streams.
            var image = rotate ? try VipsImage.open(path, access: .random).autoOriented() : header
            if !steps.isEmpty {
                image = try image.rgb(deep: image.sampleBytes > 1)
                for step in steps {
                    image = try image.mapRows(step.kernel(transfer: workingSpace, imageWidth: image.width,
                                                          imageHeight: image.height))
                }
            }
            try image.save(to: temporaryPath, format: format,
                           quality: format.isLossy ? export.quality : nil, strip: export.strip)
        } catch let error as MediaError {
            throw ItemFailure("cannot decode or encode: \(error.reason)")
        }
    }
}
