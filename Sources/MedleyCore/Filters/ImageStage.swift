import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// Decodes, filters and encodes one image. libvips streams the pixels: the file is read strip
/// by strip as the encoder asks for them, the fused kernels run on each strip on libvips'
/// worker threads, and memory stays at a few strips unless the image must be rotated.
struct ImageStage {
    private(set) var renderer: ImageRenderer
    let export: ExportStage
    /// Written into each output's metadata after libvips saved it (`MetadataWrite`).
    let metadata: MetadataWrite
    /// Decompression-bomb guard: a header may claim any size; refuse before allocating.
    let maxPixels: Int
    /// The job's graph and working space, for the per-item renderer of `autoAdjust`.
    let graph: ImageGraph?
    /// `autoAdjust:` (nil: the job's one renderer serves every item).
    let autoAdjust: AutoAdjustSettings?
    /// `analyze:`'s image analyses, measured on each output.
    let analyses: Set<ImageAnalysisKind>
    /// `ingest.raw`: a camera RAW developed or its embedded preview (`Steps/RawStep.swift`).
    let raw: RawMode

    /// sharp's default (0x3FFF²): big enough for any camera, small enough to stop a bomb.
    static let defaultMaxPixels = 268_402_689

    /// `sources` and `overlay` make the graph's pictures and the watermark from the job, once, after its plan.
    init(job: Job, export: ExportStage, sources: (Job) throws -> (any GraphImageSources)?,
         overlay: (Job) throws -> (any ImageOverlay)?) throws {
        maxPixels = job.maxPixels ?? Self.defaultMaxPixels
        var renderer = ImageRenderer(plan: try job.imageGraph.map { Self.plan(try $0.recipe(workingSpace: job.workingSpace), export: export) },
                                     workingSpace: job.workingSpace, autoOrient: export.autoOrient, maxPixels: maxPixels)
        // Pictures the pipeline names are decoded once here, for every item of the job.
        renderer.sources = try sources(job)
        renderer.watermark = try overlay(job)
        renderer.intent = export.intent
        renderer.vector = VectorLoad(density: job.ingest.density, page: job.ingest.page)
        self.renderer = renderer
        self.export = export
        // What the output's metadata gets after it is saved: export.strip lists and keep, the tag stage's image fields.
        var metadata = export.metadata
        metadata.set = job.tag?.assignments.map(\.property).filter { MetadataWrite.writable[$0] != nil } ?? []
        metadata.shift = job.tag?.shiftDates
        metadata.sidecar = job.tag?.sidecar ?? false
        self.metadata = metadata
        graph = job.imageGraph
        autoAdjust = job.autoAdjust?.enhance == true ? job.autoAdjust : nil
        analyses = job.imageAnalyses
        raw = job.ingest.raw
    }

    /// The optimised plan of a recipe. With the export's `autoOrient` (the default) the renderer turns every
    /// input upright before the plan, so the plan's own `autoOrient` steps over the input go: a job
    /// `[autoOrient, resize]` then shrinks on load as `[resize]` does, and resamples an upright photo and a
    /// rotated copy by one rule — the stored sRGB values, as vips_thumbnail and sharp do.
    static func plan(_ recipe: FilterImage, export: ExportStage) -> RenderPlan {
        let plan = RenderPlan(recipe)
        return export.autoOrient ? plan.forUprightInput : plan
    }

    /// This stage for one page of a PDF (`ingest.page: all`): that page drawn, and no warning that the others are not.
    func page(_ number: Int) -> ImageStage {
        var stage = self
        stage.renderer.vector.page = number
        stage.renderer.vector.everyPage = true
        return stage
    }

    /// The renderer of one item whose auto-adjustment chose `adjustment`: the three filters, then the job's graph.
    func renderer(for adjustment: AutoAdjustment) throws -> ImageRenderer {
        let plan = Self.plan(try adjustment.prefixing(graph).recipe(workingSpace: renderer.workingSpace), export: export)
        var adjusted = ImageRenderer(plan: plan, workingSpace: renderer.workingSpace, autoOrient: renderer.autoOrient, maxPixels: maxPixels)
        adjusted.intent = renderer.intent
        adjusted.vector = renderer.vector
        return adjusted
    }

    /// Opens the header only (no pixels) and checks it is safe to decode. A vector (`vector`: SVG, PDF) is
    /// opened at its page and, when the job's first step names no size, at `ingest.density`: the header's size
    /// is then the size it renders at, checked against the pixel limit before anything is drawn.
    func openHeader(_ path: String, vector: SniffedFormat? = nil, messages: inout LibraryMessages) throws -> VipsImage {
        let header: VipsImage
        let load = vector?.isVector == true
            ? renderer.vector.path(path, density: renderer.resizeOnLoad == nil && renderer.vectorResize == nil, pages: vector == .pdf) : path
        do {
            header = try Vips.run(collectingInto: &messages) { _ in try VipsImage.open(load, access: .sequential) }
        } catch let error as MediaError {
            throw ItemFailure(error, context: "cannot decode")
        }
        try Self.checkPixels(width: header.width, height: header.height, limit: maxPixels, of: "image")
        return header
    }

    /// The path an SVG or PDF is reopened by, with its page and density (any other file's: `path`).
    func vectorPath(_ path: String, loader: String) -> String {
        guard VectorLoad.loaders.contains(loader) else { return path }
        return renderer.vector.path(path, density: renderer.resizeOnLoad == nil && renderer.vectorResize == nil,
                                    pages: loader == "pdfload")
    }

    /// Refuses a picture whose stored size (from a header, before any decoding) is over `limit`.
    static func checkPixels(width: Int, height: Int, limit: Int, of what: String) throws {
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > limit || width <= 0 || height <= 0 {
            throw ItemFailure(.limit, String(format: "%@ claims %d × %d pixels (%.0f MP), over the %.0f MP limit (limits.maxPixels); not decoded",
                                     what, width, height, Double(width) * Double(height) / 1e6, Double(limit) / 1e6))
        }
    }

    /// The format to write: the job's, or for `same` the input's when libvips can write it.
    func outputFormat(for header: VipsImage) -> ImageFormat {
        switch export.format {
        case .image(let format): return format
        case .same:
            let compression = header.loader.hasPrefix("heif") ? header.field("heif-compression") : nil
            if let format = ImageFormat(loader: header.loader, heifCompression: compression), Vips.canSave(format) { return format }
            return .png
        }
    }

    /// The job's saver options as `format` takes them (with `format: same`, those it has).
    func saveOptions(for format: ImageFormat) -> SaveOptions {
        let takes = { (key: String) in SchemaReader.optionFormats[key]?.contains(format) == true }
        let encoder = export.encoder
        return SaveOptions(quality: format.isLossy ? export.quality : nil, strip: export.strip, keepProfile: export.keepProfile,
                           lossless: takes("lossless") ? encoder.lossless : nil,
                           effort: takes("effort") ? encoder.effort.map { min(max($0, SchemaReader.effortRange(format).lowerBound),
                                                                                 SchemaReader.effortRange(format).upperBound) } : nil,
                           subsampling: takes("subsampling") ? encoder.subsampling : nil,
                           // 10-bit AV1 aborts libaom here (validation refuses it; `same` could still reach it).
                           bitDepth: takes("bitdepth") && !(format == .avif && encoder.bitDepth == 10) ? encoder.bitDepth : nil)
    }

    /// Whether the file is an animation kept animated: a GIF or WebP of several frames, written
    /// as GIF or WebP.
    func isAnimation(_ header: VipsImage, to format: ImageFormat) -> Bool {
        header.pages > 1 && ["gifload", "webpload"].contains(header.loader) && (format == .gif || format == .webp)
    }

    /// Every frame through the plan, joined again with the file's delays and loop count.
    private func renderAnimation(_ path: String, header: VipsImage, renderer: ImageRenderer,
                                 property: (String) -> TemplateValue?) throws -> (image: VipsImage, warnings: [String]) {
        if renderer.plan?.root.needsAlpha == true {
            throw ItemFailure(.unsupported, "an animation (GIF/WebP of several frames) cannot go through a graph that composites or generates images; run it with point or geometry filters only")
        }
        // Each frame is turned upright by the file's EXIF orientation, as a still is (the orientation
        // tag goes with it, so the output is not turned twice).
        let rotate = renderer.autoOrient && header.orientation != 1
        let stack = try VipsImage.openAnimation(path, access: rotate ? .random : .sequential)
        let frameHeight = stack.pageHeight, count = stack.pages
        guard frameHeight > 0, count > 1, frameHeight * count == stack.height else {
            throw ItemFailure(.unsupported, "the animation's \(count) frames do not fill its \(stack.height) rows evenly")
        }
        var warnings: [String] = []
        var frames: [VipsImage] = []
        for index in 0..<count {
            var frame = try stack.cropped(left: 0, top: index * frameHeight, width: stack.width, height: frameHeight)
            if rotate { frame = try frame.autoOriented() }
            frames.append(try renderer.render(frame: frame, property: property, warnings: &warnings))
        }
        guard frames.allSatisfy({ $0.width == frames[0].width && $0.height == frames[0].height }) else {
            throw ItemFailure(.unsupported, "the animation's frames came out of different sizes")
        }
        return (try VipsImage.animation(frames: frames), Array(Set(warnings)).sorted())
    }

    /// Renders `header`'s file into `temporaryPath`; returns the item's warnings. libvips' log
    /// messages are added to `messages` (a run repeated alone after a failure: only its own).
    /// `renderer`: this item's own (auto-adjusted) one instead of the job's; `property` gives the item's
    /// properties (for text the graph or watermark draws).
    func render(_ path: String, header: VipsImage, format: ImageFormat, to temporaryPath: String,
                messages: inout LibraryMessages, renderer itemRenderer: ImageRenderer? = nil,
                property: (String) -> TemplateValue? = { _ in nil }) throws -> [String] {
        let renderer = itemRenderer ?? self.renderer
        do {
            return try Vips.run(collectingInto: &messages) { again in
                let source = again ? try VipsImage.open(vectorPath(path, loader: header.loader), access: .sequential) : header
                var (image, warnings) = try isAnimation(header, to: format)
                    ? try renderAnimation(path, header: header, renderer: renderer, property: property)
                    : try renderer.render(path, header: source, property: property)
                image = try OutputColour(export: export).prepare(image, input: source, format: format, warnings: &warnings)
                image = try image.attributedToCurrentItem()
                var options = saveOptions(for: format)
                if export.sameQuality { options = SameQuality.options(options, input: path, header: header, format: format, warnings: &warnings) }
                try image.save(to: temporaryPath, format: format, options: options)
                if header.loader == "pdfload" && header.pages > 1 {
                    // Under `ingest.page: all` every other page is an item of its own.
                    if !renderer.vector.everyPage { warnings.append("a PDF of \(header.pages) pages: page \(renderer.vector.page) is written (ingest.page chooses another, or all)") }
                } else if header.pages > 1 && !isAnimation(header, to: format) {
                    // libvips' jp2kload counts a JPEG 2000's resolution levels as pages: the first is the
                    // whole picture and nothing is left out. Other loaders' pages (TIFF, HEIF) are
                    // pictures of their own, not frames.
                    if ["gifload", "webpload"].contains(header.loader) {
                        warnings.append("an animation of \(header.pages) frames: .\(format.fileExtension) holds one, so only the first is written (export as gif or webp to keep them all)")
                    } else if header.loader != "jp2kload" {
                        warnings.append("a file of \(header.pages) pages: only the first is written")
                    }
                }
                let kept = export.strip ? (export.keepProfile ? [ImageFormat.Metadata.icc] : []) : image.metadataKinds
                // What libvips' saver leaves out, exiv2 writes afterwards where the format holds it (MetadataStep).
                let dropped = kept.filter { kind in !format.carries.contains(kind) && !format.exiv2Writes.contains { $0.kind == kind } }
                if dropped.isEmpty { return warnings }
                return warnings + [".\(format.fileExtension) output cannot hold the input's \(dropped.map(\.rawValue).joined(separator: ", ")); not written"]
            }
        } catch let error as MediaError {
            throw ItemFailure(error, context: "cannot decode or encode")
        }
    }
}

extension ImageStage {
    /// About how many bytes rendering `header`'s image takes, from its header and the plan, for admission under
    /// a memory limit (`MemoryBudget`). libvips streams: what is in memory is a few strips per stage and worker
    /// (of the stored samples, or of float RGBA on the float path, plus each neighbourhood kernel's margin), the
    /// decoder's and encoder's line buffers, and — only when the image must be read out of order (rotation by its
    /// EXIF orientation) — the whole decoded image, or libvips' windows onto it once it is too big for memory and
    /// goes to a temporary file. `threads` counts libvips' workers for this image; each also has a stack.
    func workingMemory(_ header: VipsImage, threads: Int) -> Int {
        let width = Double(header.width), height = Double(header.height)
        let stored = Double(max(1, header.bands) * header.sampleBytes)
        let workers = Double(max(1, threads))
        let strip = 64.0  // rows a worker holds per stage: libvips strips of 16–128 rows, double-buffered
        var bytes = width * stored * 256  // decoder and encoder line buffers, libvips' sequential cache
        if renderer.resizeOnLoad == nil && renderer.autoOrient && header.orientation != 1 {
            let whole = width * height * stored
            bytes += whole <= Double(ProcessMemory.vipsDiscThreshold) ? whole : width * stored * min(height, 2048)
        }
        if renderer.plan?.root.isMeasured == true {
            // A measured step (a palette, a gradient map, Otsu's threshold) reads the source twice: it is held decoded.
            bytes += width * height * stored
        }
        if let root = renderer.plan?.root {
            let (stages, margin) = Self.shape(of: root)
            let pixel = root.isPointOnly ? max(stored, 3 * Double(header.sampleBytes)) : 16  // float RGBA
            var perStage = width * pixel * (strip + 2 * Double(margin)) * workers * 2
            if margin > 8 {
                // Wide margins run on 128-pixel tiles, each with its margin all round.
                let tile = 128 + 2 * Double(margin)
                perStage = width * pixel * strip * workers * 2 + tile * tile * pixel * workers * 2
            }
            bytes += Double(stages + 2) * perStage
        }
        bytes += workers * Double(ResourceLimits.threadStackBytes)
        return bytes < Double(Int.max / 2) ? Int(bytes) : Int.max / 2
    }

    /// Passes in a plan and its widest neighbourhood margin, walked without recursion.
    static func shape(of root: RenderNode) -> (stages: Int, margin: Int) {
        var pending = [root], stages = 0, margin = 0
        while let node = pending.popLast() {
            stages += 1
            switch node {
            case .source, .constant:
                break
            case .points(_, let next), .geometry(_, let next):
                pending.append(next)
            case .region(let kernel, let next):
                margin = max(margin, kernel.margin)
                pending.append(next)
            case .composite(_, let foreground, let background):
                pending.append(foreground)
                pending.append(background)
            case .measured(_, let next, let table):
                pending.append(next)
                if let table { pending.append(table) }
            }
        }
        return (stages, margin)
    }
}
