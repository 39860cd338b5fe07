import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// How a vector file (SVG by librsvg, PDF by poppler) becomes pixels: `ingest.page` and `ingest.density`,
/// said to libvips' loader in its filename options (`file.pdf[page=1,dpi=144]`).
struct VectorLoad: Sendable {
    /// Dots per inch when the job names no size (nil: the file's own size, 72 dpi).
    var density: Double? = nil
    /// 1 for the first page (of a PDF; an SVG has one).
    var page: Int = 1
    /// `ingest.page: all`: each page is an item of its own.
    var everyPage = false

    /// The libvips loaders that draw at any scale.
    static let loaders: Set<String> = ["svgload", "pdfload"]

    /// `path` with the loader's options: the page (`pages`: a PDF) (0-based for libvips) and, with `density`, the density.
    func path(_ path: String, density withDensity: Bool, pages: Bool) -> String {
        var options: [String] = []
        if pages && page != 1 { options.append("page=\(page - 1)") }
        if withDensity, let density { options.append("dpi=\(density)") }
        return options.isEmpty ? path : path + "[" + options.joined(separator: ",") + "]"
    }
}

/// The pictures a graph's `{ image: }` and text nodes render from, made once per job
/// (`Watermark/RenderSources.swift`): the renderer asks for them by node name.
protocol GraphImageSources {
    /// The picture of the node `name`, fitted to `input` (nil: no such node).
    func image(_ name: String, like input: VipsImage, workingSpace: Transfer,
               property: (String) -> TemplateValue?, warnings: inout [String]) throws -> VipsImage?
}

/// What is composited over every rendered image after its plan (`watermark:`, `Watermark/Watermark.swift`).
protocol ImageOverlay {
    /// `image` with the overlay, and what could not be drawn.
    func apply(to image: VipsImage, workingSpace: Transfer, property: (String) -> TemplateValue?,
               maxPixels: Int) throws -> (image: VipsImage, warnings: [String])
}

/// Turns an optimised plan into a libvips pipeline for one image.
///
/// Two paths. When the plan is only point-wise passes, kernels run directly on the stored
/// 8/16-bit samples (the colour-matrix fast path). Otherwise the image is decoded once into
/// float RGB(A) in the working space, every node of the plan runs on floats — neighbourhood
/// kernels on strips with margins, geometry by libvips, compositing row by row — and the result
/// is encoded once at the end.
struct ImageRenderer {
    let plan: RenderPlan?
    let workingSpace: Transfer
    let autoOrient: Bool
    /// The job's pixel limit: no step may make a bigger image either.
    let maxPixels: Int
    /// The graph's image and text nodes (`Watermark/RenderSources.swift`).
    var sources: (any GraphImageSources)? = nil
    /// The job's `watermark:`, composited after the plan (`Watermark/Watermark.swift`).
    var watermark: (any ImageOverlay)? = nil
    /// `export.intent`, for the conversions into the working space (nil: `RenderingIntent.default(for:)`).
    var intent: RenderingIntent? = nil
    /// How SVG and PDF files are rendered: their page, and their density when no size is named.
    var vector = VectorLoad()

    /// The plan's first step when libvips can do it while decoding (shrink-on-load: JPEG DCT scaling,
    /// WebP/HEIF subsampling): a resize with a mode that may enlarge or does not fill (a fill that never
    /// enlarges cannot be a thumbnail). nil: the file is decoded at its own size.
    var resizeOnLoad: (width: Int, height: Int, mode: ResizeMode, enlarge: Bool, crop: ResizeCrop)? {
        guard case .resize(let width, let height, let mode, let enlarge, let crop)? = plan?.root.firstGeometry, mode != .none,
              enlarge || mode != .fill else { return nil }
        return (width, height, mode, enlarge, crop)
    }

    /// The resize that fixes a vector's output size: the plan's first geometric step when it is a resize and only
    /// point-wise, neighbourhood or measured steps come before it (an SVG or PDF is drawn at the size that resize
    /// asks for, then those steps and the resize run on it). nil: drawn at its own size (or `ingest.density`).
    var vectorResize: (width: Int, height: Int, mode: ResizeMode, enlarge: Bool, crop: ResizeCrop)? {
        /// The chain's first geometric step, and whether the chain reaches the job's input through single-input steps.
        func first(_ node: RenderNode) -> (operation: GeometryOperation?, reachesInput: Bool) {
            switch node {
            case .source(let name): return (nil, name == ImageGraph.inputName)
            case .points(_, let input), .region(_, let input), .measured(_, let input, _): return first(input)
            case .geometry(let operation, let input):
                let below = first(input)
                return below.reachesInput ? (below.operation ?? operation, true) : (nil, false)
            default: return (nil, false)
            }
        }
        guard let root = plan?.root, case let (operation?, true) = first(root),
              case .resize(let width, let height, let mode, let enlarge, let crop) = operation, mode != .none else { return nil }
        return (width, height, mode, enlarge, crop)
    }

    /// The rendered (still lazy) image of one file, ready to save, and what could not be carried
    /// over (the item's warnings).
    /// `property` gives the item's properties, for text templates.
    func render(_ path: String, header: VipsImage,
                property: (String) -> TemplateValue? = { _ in nil }) throws -> (image: VipsImage, warnings: [String]) {
        var warnings: [String] = []
        let image = try render(path, header: header, property: property, warnings: &warnings)
        return (image, warnings)
    }

    private func render(_ path: String, header: VipsImage, property: (String) -> TemplateValue?,
                        warnings: inout [String]) throws -> VipsImage {
        var shrunkOnLoad = false
        var source: VipsImage
        let intent = self.intent ?? .default(for: header.interpretation)
        if case let (width, height, mode, enlarge, crop)? = resizeOnLoad {
            // Shrink while decoding (JPEG DCT scaling, WebP/HEIF subsampling): far less to decode.
            // libvips' thumbnail applies the EXIF orientation, so the box is for the picture as shown;
            // with `autoOrient: false` it keeps the stored pixels (and the tag), and the box is for those.
            let turned = autoOrient && header.orientation >= 5
            let shownWidth = turned ? header.height : header.width, shownHeight = turned ? header.width : header.height
            let size = Geometry.resizedSize(width: Double(shownWidth), height: Double(shownHeight),
                                            boxWidth: width, boxHeight: height, mode: mode, enlarge: enlarge)
            _ = try Geometry.checkedSize(size.scaled, of: "resize", maxPixels: Int.max)
            _ = try Geometry.checkedSize(size.output, of: "resize", maxPixels: maxPixels)
            // An unbounded side (0) must not constrain: libvips reads a missing height as "square".
            // Filling or covering a box with one side unbounded keeps that side as it is (as
            // `Geometry.apply` does): fill keeps the picture's own size there, and a cover of one
            // side is a fit to it.
            let unbounded = Int(ParameterLimit.imageSide.maximum)
            let bothSides = width > 0 && height > 0
            let boxWidth = width > 0 ? width : (mode == .fill ? shownWidth : unbounded)
            let boxHeight = height > 0 ? height : (mode == .fill ? shownHeight : unbounded)
            // Covering a box crops it: the centre, or what libvips' smartcrop finds, by thumbnail itself;
            // a gravity by scaling to cover (thumbnail into the covering size) and cropping here.
            let covers = mode == .aspectFill && bothSides
            let gravity = covers ? crop.anchor.flatMap { crop == .centre ? nil : $0 } : nil
            let strategy: VipsImage.ThumbnailCrop = !covers || gravity != nil ? .none
                : crop == .attention ? .attention : crop == .entropy ? .entropy : .centre
            let loadWidth = gravity == nil ? boxWidth : Int(size.scaled.0.rounded())
            let loadHeight = gravity == nil ? boxHeight : Int(size.scaled.1.rounded())
            // SVG and PDF: libvips' thumbnail has the loader draw at the size asked (svgload's and pdfload's
            // `scale`), never a small rendering enlarged; a PDF at its page.
            let path = VectorLoad.loaders.contains(header.loader) ? vector.path(path, density: false, pages: header.loader == "pdfload") : path
            // Without enlarging (fill never shrinks on load then), libvips' `size: down` leaves a smaller picture as it is.
            source = !autoOrient
                ? try VipsImage.thumbnailAsStored(path, width: loadWidth, height: loadHeight, crop: strategy,
                                                  force: mode == .fill, enlarge: enlarge, intent: intent)
                : enlarge
                ? try VipsImage.thumbnail(path, width: loadWidth, height: loadHeight, crop: strategy, force: mode == .fill,
                                          intent: intent)
                : try VipsImage.thumbnailWithoutEnlarging(path, width: loadWidth, height: loadHeight, crop: strategy,
                                                          intent: intent)
            if let gravity {
                source = try Geometry.cropped(source, toWidth: boxWidth, height: boxHeight, anchor: gravity)
            }
            shrunkOnLoad = true
        } else if VectorLoad.loaders.contains(header.loader), let (width, height, mode, enlarge, _) = vectorResize {
            // An SVG or PDF page drawn at the size its first resize asks for (covering the box for aspectFill, whose
            // crop the resize still makes): the steps before it and the resize work on sharp pixels, never on a small
            // rendering enlarged. The size is checked against the pixel limit before anything is drawn.
            let size = Geometry.resizedSize(width: Double(header.width), height: Double(header.height),
                                            boxWidth: width, boxHeight: height, mode: mode, enlarge: enlarge)
            _ = try Geometry.checkedSize(size.scaled, of: "resize", maxPixels: maxPixels)
            source = try VipsImage.thumbnail(vector.path(path, density: false, pages: header.loader == "pdfload"),
                                             width: max(1, Int(size.scaled.0.rounded())), height: max(1, Int(size.scaled.1.rounded())),
                                             crop: .none, force: true)
        } else {
            // Rotation reads rows out of order, so it needs random access; everything else streams.
            let rotate = autoOrient && header.orientation != 1
            source = rotate ? try VipsImage.open(path, access: .random).autoOriented() : header
        }
        return try render(loaded: source, shrunkOnLoad: shrunkOnLoad, property: property, warnings: &warnings)
    }

    /// One frame of an animation (already decoded, upright) through the plan.
    func render(frame: VipsImage, property: (String) -> TemplateValue? = { _ in nil },
                warnings: inout [String]) throws -> VipsImage {
        try render(loaded: frame, shrunkOnLoad: false, property: property, warnings: &warnings)
    }

    /// The plan, then the watermark.
    private func render(loaded: VipsImage, shrunkOnLoad: Bool, property: (String) -> TemplateValue?,
                        warnings: inout [String]) throws -> VipsImage {
        let image = try renderPlan(loaded: loaded, shrunkOnLoad: shrunkOnLoad, property: property, warnings: &warnings)
        guard let watermark else { return image }
        let marked = try watermark.apply(to: image, workingSpace: workingSpace, property: property, maxPixels: maxPixels)
        warnings += marked.warnings
        return marked.image
    }

    private func renderPlan(loaded: VipsImage, shrunkOnLoad: Bool, property: (String) -> TemplateValue?,
                            warnings: inout [String]) throws -> VipsImage {
        var source = loaded
        let intent = self.intent ?? .default(for: loaded.interpretation)
        // CMYK, CIELAB, float and many-band files become sRGB (or grey) first, in every path, so
        // that bands mean colours plus at most one alpha from here on.
        let normal = try source.inRGBSpace(intent: intent)
        source = normal.image
        warnings += normal.warnings
        // Filters and the watermark work on sRGB primaries: another RGB profile's pixels are converted on the
        // way in (a job with a watermark and no filters blends as the same job with a no-op filter does). With
        // neither the pixels stay in their own profile, which the export converts once, straight to its own.
        let profile = source.iccProfile
        if (plan != nil || watermark != nil) && !profile.isEmpty && !ICCProfile.isSRGB(profile) && source.bands >= 3 {
            source = try source.importingICCProfile(intent: intent)
        }
        guard let plan else { return source }
        // A measured step reads its input (or a table made from it) before its pass reads it again; a
        // file opened for one sequential read cannot be read twice, so the decoded source is held in memory.
        if plan.root.isMeasured { source = try source.copiedToMemory() }

        if plan.root.isPointOnly {
            var image = source
            let steps = plan.steps
            if !steps.isEmpty { image = try image.rgb(deep: image.sampleBytes > 1) }
            // A filter that changes alpha (CIColorPolynomial's alpha coefficients) needs a band to put it in.
            if !image.hasAlpha && plan.root.changesAlpha { image = try image.appendingBand(image.sampleBytes > 1 ? 65535 : 255) }
            for step in steps {
                image = try image.mapRows(step.kernel(transfer: workingSpace, imageWidth: image.width,
                                                      imageHeight: image.height))
            }
            return image
        }
        if shrunkOnLoad, case .geometry(_, .source(ImageGraph.inputName)) = plan.root { return source }

        let deep = source.sampleBytes > 1
        // Alpha only when the image has one or the plan composites: blurs of opaque images run on
        // three bands.
        let addAlpha = !source.hasAlpha && (plan.root.needsAlpha || plan.root.changesAlpha)
        var rgb = try source.rgb(deep: deep)
        if addAlpha { rgb = try rgb.appendingBand(deep ? 65535 : 255) }
        let input = try rgb.mapRows(DecodeKernel(transfer: workingSpace), to: .float)
        var result = try evaluate(plan.root, input: input, skipFirstResize: shrunkOnLoad, property: property,
                                  warnings: &warnings)
        // The alpha added for the work goes again, unless a step changed alpha or left areas empty (a hole,
        // the space around a perspective): dropping it would paint those black without a word.
        if addAlpha && !plan.root.changesAlpha && !plan.root.leavesTransparency { result = try result.bands(0, count: 3) }
        return try result.mapRows(EncodeKernel(transfer: workingSpace), to: deep ? .ushort : .uchar)
    }

    /// One node on float RGBA images.
    private func evaluate(_ node: RenderNode, input: VipsImage, skipFirstResize: Bool,
                          property: (String) -> TemplateValue?, warnings: inout [String]) throws -> VipsImage {
        func below(_ next: RenderNode) throws -> VipsImage {
            try evaluate(next, input: input, skipFirstResize: skipFirstResize, property: property, warnings: &warnings)
        }
        /// A measured step in one pass with the point-wise steps around it: those after it, and — when its
        /// table is another image's — those before it too (a histogram must be of the pixels before it).
        func measuredPass(_ operation: MeasuredOperation, of next: RenderNode, table: RenderNode?,
                          then after: [PointOperation]) throws -> VipsImage {
            var source = next, before: [PointOperation] = []
            if operation.needs != .inputHistogram, case .points(let step, let deeper) = next {
                before = step.operations
                source = deeper
            }
            let image = try below(source)
            let measurement: PixelMeasurement
            switch operation.needs {
            case .inputHistogram:
                measurement = .histogram(try Self.pooledHistogram(of: image))
            case .tableRow, .tablePixels:
                guard let table else {
                    throw ItemFailure(.stage, "a measured filter step has no table image")
                }
                measurement = try Self.measure(try below(table), kind: operation.needs, maximum: operation.maximumTablePixels)
            }
            guard let pass = operation.operation(from: measurement) else {
                throw ItemFailure(.unsupported, "the gradient or palette image has no pixels to map colours to")
            }
            return try image.mapRows(PointChainKernel(operations: before + [pass] + after, transfer: .none,
                                                      imageWidth: image.width, imageHeight: image.height))
        }
        switch node {
        case .source(let name):
            if name == ImageGraph.inputName { return input }
            guard let image = try sources?.image(name, like: input, workingSpace: workingSpace, property: property,
                                                  warnings: &warnings) else {
                throw ItemFailure(.unsupported, "the graph reads an image '\(name)' that it does not define")
            }
            return image
        case .points(let step, let next):
            if case .measured(let operation, let inner, let table) = next {
                return try measuredPass(operation, of: inner, table: table, then: step.operations)
            }
            let image = try below(next)
            return try image.mapRows(PointChainKernel(operations: step.operations, transfer: .none,
                                                      imageWidth: image.width, imageHeight: image.height))
        case .region(let kernel, let next):
            // Each tile is read with the kernel's margin all round: past this, a tile's input alone would be
            // gigabytes (the sizes a pipeline's radius or scale can ask for are unbounded).
            guard kernel.margin <= Self.maximumMargin else {
                throw ItemFailure(.unsupported, "a neighbourhood filter (blur, sharpen, pixellate) here reaches \(kernel.margin) pixels "
                                  + "around each pixel, more than the \(Self.maximumMargin) Medley renders; lower its radius or scale")
            }
            return try below(next).mapRegions(kernel)
        case .geometry(let operation, let next):
            if skipFirstResize, case .source(ImageGraph.inputName) = next, case .resize = operation { return input }
            return try Geometry.apply(operation, to: try below(next), maxPixels: maxPixels)
        case .composite(let kernel, let foreground, let background):
            let back = try below(background)
            let front = try Geometry.align(try below(foreground), toExtentOf: back)
            // The blend kernels take RGBA; `render` made the input so, and nothing below changes the bands.
            guard front.bands == 4, back.bands == 4 else {
                throw ItemFailure(.unsupported, "compositing needs RGBA images; here its two sides have \(front.bands) and \(back.bands) bands")
            }
            return try front.mapRows(with: back, kernel)
        case .measured(let operation, let next, let table):
            return try measuredPass(operation, of: next, table: table, then: [])
        case .constant(let colour):
            // Already in the working space (FilterInputs.color converts CIColor values).
            return try VipsImage.constant(width: input.width, height: input.height,
                                          values: [colour.x, colour.y, colour.z, colour.w].prefix(input.bands).map(Double.init))
        }
    }
}

extension ImageRenderer {
    /// A table image's pixels for a measured step: its bottom row (Core Image's y = 0) or all of it, RGBA
    /// floats in the working space, at most `maximum` pixels.
    static func measure(_ table: VipsImage, kind: MeasurementKind, maximum: Int) throws -> PixelMeasurement {
        let region = kind == .tableRow ? try table.cropped(left: 0, top: table.height - 1, width: table.width, height: 1) : table
        let count = region.width * region.height
        guard count <= maximum else {
            throw ItemFailure(.limit, "the \(kind == .tableRow ? "gradient" : "palette") image has \(count) pixels"
                              + "\(kind == .tableRow ? " in its bottom row" : ""), more than the \(maximum) Medley maps colours to")
        }
        let values = try region.floatPixels()
        let bands = region.bands
        guard bands >= 3, values.count == count * bands else {
            throw ItemFailure(.unsupported, "the gradient or palette image has \(bands) bands; it needs red, green and blue")
        }
        let pixels = (0..<count).map { i in
            SIMD4(values[i * bands], values[i * bands + 1], values[i * bands + 2], bands > 3 ? values[i * bands + 3] : 1)
        }
        return kind == .tableRow ? .row(pixels) : .pixels(pixels)
    }

    /// 256 counts of the red, green and blue samples of a float image together (values rounded to i/255).
    static func pooledHistogram(of image: VipsImage) throws -> [Int] {
        let bytes = try image.bands(0, count: 3).mapRows(EncodeKernel(transfer: .none), to: .uchar)
        let bands = try bytes.histograms()
        return (0..<256).map { bin in bands.reduce(0) { $0 + ($1.count > bin ? $1[bin] : 0) } }
    }

    /// The widest margin a neighbourhood kernel may have (a Gaussian of σ ≈ 1365, a 4096-pixel pixellate cell).
    static let maximumMargin = 4096
}

/// Geometry in Core Image's coordinates (origin bottom-left, y up) on libvips images (y down).
enum Geometry {
    /// Every output size is checked against `maxPixels` (and libvips' longest side) before libvips
    /// is asked for it; sizes are worked out in Double, so no parameter can overflow an Int.
    static func apply(_ operation: GeometryOperation, to image: VipsImage, maxPixels: Int) throws -> VipsImage {
        let width = Double(image.width), height = Double(image.height)
        switch operation {
        case .crop(let x, let y, let w, let h):
            // Clamped to the image in Double first: a rectangle may reach ±1.8e308 (Core Image's infinite one).
            func clamped(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, 0), Double(limit))) }
            let left = clamped(x.rounded(.down), image.width), right = clamped((x + w).rounded(.up), image.width)
            let bottom = clamped(y.rounded(.down), image.height), top = clamped((y + h).rounded(.up), image.height)
            guard right > left, top > bottom else {
                throw ItemFailure(.unsupported, "CICrop: the rectangle [\(x) \(y) \(w) \(h)] lies outside the \(image.width)×\(image.height) image")
            }
            return try image.cropped(left: left, top: image.height - top, width: right - left, height: top - bottom)
        case .affine(let a, let b, let c, let d, let tx, let ty):
            if let turns = quarterTurns(a, b, c, d) { return turns == 0 ? image : try image.rotated(quarterTurns: turns) }
            if a == -1, b == 0, c == 0, d == 1 { return try image.flipped(horizontally: true) }
            if a == 1, b == 0, c == 0, d == -1 { return try image.flipped(horizontally: false) }
            let corners = [(0.0, 0.0), (width, 0.0), (0.0, height), (width, height)].map { (x, y) in
                (a * x + c * y + tx, b * x + d * y + ty)
            }
            let xs = corners.map(\.0), ys = corners.map(\.1)
            let minX = xs.reduce(.infinity, min), maxX = xs.reduce(-.infinity, max)
            let minY = ys.reduce(.infinity, min), maxY = ys.reduce(-.infinity, max)
            let (outWidth, outHeight) = try checkedSize(((maxX - minX).rounded(.up), (maxY - minY).rounded(.up)),
                                                        of: "CIAffineTransform", maxPixels: maxPixels)
            // Pixel coordinates flip y: X = a·x − c·y + (c·H + tx − minX), Y = −b·x + d·y + (maxY − d·H − ty).
            return try image.affine(a: a, b: -c, c: -b, d: d, dx: c * height + tx - minX, dy: maxY - d * height - ty,
                                    width: outWidth, height: outHeight)
        case .scale(let scale, let aspectRatio):
            // libvips makes at least one pixel of a side.
            _ = try checkedSize((max(1, (width * scale * aspectRatio).rounded()), max(1, (height * scale).rounded())),
                                of: "CILanczosScaleTransform", maxPixels: maxPixels)
            return try image.resized(horizontal: scale * aspectRatio, vertical: scale)
        case .bicubicScale(let scale, let aspectRatio, let b, let c):
            let (outWidth, outHeight) = try checkedSize((max(1, (width * scale * aspectRatio).rounded()), max(1, (height * scale).rounded())),
                                                        of: "CIBicubicScaleTransform", maxPixels: maxPixels)
            let across = CubicResampleKernel(b: b, c: c, scale: scale * aspectRatio, horizontal: true)
            let down = CubicResampleKernel(b: b, c: c, scale: scale, horizontal: false)
            // A shrink stretches the kernel: each tile then reads 4/scale input pixels per output pixel.
            let reach = max(across.radius, down.radius)
            guard reach < Double(ImageRenderer.maximumMargin) else {
                throw ItemFailure(.unsupported, "CIBicubicScaleTransform: shrinking by \(scale * aspectRatio) reaches \(Int(reach.rounded(.up))) "
                                  + "pixels around each pixel, more than the \(ImageRenderer.maximumMargin) Medley renders; shrink in steps")
            }
            let wide = try image.resampled(across, to: outWidth, margin: Int(across.radius.rounded(.up)) + 1)
            return try wide.resampled(down, to: outHeight, margin: Int(down.radius.rounded(.up)) + 1)
        case .resize(let boxWidth, let boxHeight, let mode, let enlarge, let crop):
            let size = resizedSize(width: width, height: height, boxWidth: boxWidth, boxHeight: boxHeight, mode: mode,
                                   enlarge: enlarge)
            _ = try checkedSize(size.scaled, of: "resize", maxPixels: Int.max)
            _ = try checkedSize(size.output, of: "resize", maxPixels: maxPixels)
            let w = Double(boxWidth > 0 ? boxWidth : Int.max), h = Double(boxHeight > 0 ? boxHeight : Int.max)
            switch mode {
            case .none:
                return image
            case .fill:
                let horizontal = Double(boxWidth > 0 ? boxWidth : image.width) / width
                let vertical = Double(boxHeight > 0 ? boxHeight : image.height) / height
                if !enlarge && horizontal >= 1 && vertical >= 1 { return image }
                return try image.resized(horizontal: enlarge ? horizontal : min(horizontal, 1),
                                         vertical: enlarge ? vertical : min(vertical, 1))
            case .aspectFit:
                let s = enlarge ? min(w / width, h / height) : min(w / width, h / height, 1)
                return s == 1 ? image : try image.resized(horizontal: s, vertical: s)
            case .aspectFill:
                let cover = max(boxWidth > 0 ? w / width : 0, boxHeight > 0 ? h / height : 0)
                let s = enlarge ? cover : min(cover, 1)
                let scaled = s == 1 ? image : try image.resized(horizontal: s, vertical: s)
                let cropWidth = boxWidth > 0 ? boxWidth : scaled.width
                let cropHeight = boxHeight > 0 ? boxHeight : scaled.height
                if let anchor = crop.anchor {
                    return try cropped(scaled, toWidth: cropWidth, height: cropHeight, anchor: anchor)
                }
                guard scaled.width > cropWidth || scaled.height > cropHeight else { return scaled }
                return try scaled.smartCropped(width: cropWidth, height: cropHeight, strategy: crop == .entropy ? .entropy : .attention)
            }
        case .orient:
            return try image.autoOriented()
        case .warp(let map, let edges, let name):
            let size = map.outputSize(inputWidth: width, inputHeight: height)
            let (outWidth, outHeight) = try checkedSize(size, of: name, maxPixels: maxPixels)
            let index = try VipsImage.constant(width: outWidth, height: outHeight, values: [0, 0])
                .mapRows(WarpIndexKernel(map: map, edges: edges, outputHeight: outHeight,
                                         inputWidth: image.width, inputHeight: image.height))
            return try image.mapped(by: index)
        case .extent(let outWidth, let outHeight):
            _ = try checkedSize((Double(outWidth), Double(outHeight)), of: "a generator", maxPixels: maxPixels)
            if outWidth == image.width && outHeight == image.height { return image }
            // Anchored at the bottom-left: crop what lies above or right of the box, pad the rest.
            let kept = try image.cropped(left: 0, top: max(0, image.height - outHeight),
                                         width: min(image.width, outWidth), height: min(image.height, outHeight))
            return try kept.embedded(x: 0, y: outHeight - kept.height, width: outWidth, height: outHeight)
        }
    }

    /// The part of `image` at most width × height that lies at `anchor` of the spare room (0: left or
    /// top, 1: right or bottom; a gravity of `resize`'s `crop`).
    static func cropped(_ image: VipsImage, toWidth width: Int, height: Int, anchor: (x: Double, y: Double)) throws -> VipsImage {
        let w = min(width, image.width), h = min(height, image.height)
        guard w < image.width || h < image.height else { return image }
        let left = Int((Double(image.width - w) * anchor.x).rounded(.down))
        let top = Int((Double(image.height - h) * anchor.y).rounded(.down))
        return try image.cropped(left: left, top: top, width: w, height: h)
    }

    /// What `resize` makes of a width × height picture: the scaled picture, and the output (the
    /// scaled picture cropped to the box for aspectFill), before rounding. Side 0 of a box is unbounded.
    /// libvips makes at least one pixel of a side.
    /// Without `enlarge`, no side is scaled up (the picture stays as it is where the box is bigger).
    static func resizedSize(width: Double, height: Double, boxWidth: Int, boxHeight: Int, mode: ResizeMode,
                            enlarge: Bool = true) -> (scaled: (Double, Double), output: (Double, Double)) {
        let size = exactResizedSize(width: width, height: height, boxWidth: boxWidth, boxHeight: boxHeight, mode: mode,
                                    enlarge: enlarge)
        return ((max(1, size.scaled.0), max(1, size.scaled.1)), (max(1, size.output.0), max(1, size.output.1)))
    }

    private static func exactResizedSize(width: Double, height: Double, boxWidth: Int, boxHeight: Int, mode: ResizeMode,
                                         enlarge: Bool) -> (scaled: (Double, Double), output: (Double, Double)) {
        let w = Double(boxWidth), h = Double(boxHeight)
        let cap = enlarge ? Double.infinity : 1
        switch mode {
        case .none:
            return ((width, height), (width, height))
        case .fill:
            let size = (boxWidth > 0 ? width * min(w / width, cap) : width, boxHeight > 0 ? height * min(h / height, cap) : height)
            return (size, size)
        case .aspectFit:
            let s = min(boxWidth > 0 ? w / width : .infinity, boxHeight > 0 ? h / height : .infinity, cap)
            return ((width * s, height * s), (width * s, height * s))
        case .aspectFill:
            let s = min(max(boxWidth > 0 ? w / width : 0, boxHeight > 0 ? h / height : 0), cap)
            let scaled = (width * s, height * s)
            return (scaled, (boxWidth > 0 ? min(scaled.0, w) : scaled.0, boxHeight > 0 ? min(scaled.1, h) : scaled.1))
        }
    }

    /// A size worked out in Double as whole pixels, or an item failure when it is no image libvips
    /// could make (a side under 1 or over its 10,000,000 limit) or has more than `maxPixels` pixels.
    static func checkedSize(_ size: (Double, Double), of operation: String, maxPixels: Int) throws -> (Int, Int) {
        let (width, height) = (size.0.rounded(.up), size.1.rounded(.up))
        let longest = ParameterLimit.imageSide.maximum
        guard width >= 1, height >= 1, width <= longest, height <= longest, width * height <= Double(maxPixels) else {
            let reason = !(width >= 1 && height >= 1) ? "an empty image"
                : width > longest || height > longest ? "longer than libvips' limit of 10,000,000 pixels a side"
                : String(format: "%.0f MP, over the %.0f MP limit (limits.maxPixels)", width * height / 1e6, Double(maxPixels) / 1e6)
            throw ItemFailure(.limit, "\(operation): the result would be \(pixels(width)) × \(pixels(height)) pixels, \(reason)")
        }
        return (Int(width), Int(height))
    }

    /// A pixel count for a message: "1920", or "1e+303" when it is beyond whole numbers.
    private static func pixels(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? String(format: "%.0f", value) : String(format: "%g", value)
    }

    /// Quarter turns clockwise (libvips) for a rotation matrix of a multiple of 90°, else nil.
    /// Core Image's y axis points up, so its counter-clockwise is counter-clockwise on screen.
    static func quarterTurns(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Int? {
        switch (a, b, c, d) {
        case (1, 0, 0, 1): return 0
        case (0, 1, -1, 0): return 3   // +90° (counter-clockwise)
        case (-1, 0, 0, -1): return 2
        case (0, -1, 1, 0): return 1   // −90° (clockwise)
        default: return nil
        }
    }

    /// The foreground on the background's canvas, both anchored at Core Image's origin (the
    /// bottom-left corner); outside the foreground is transparent.
    static func align(_ foreground: VipsImage, toExtentOf background: VipsImage) throws -> VipsImage {
        if foreground.width == background.width && foreground.height == background.height { return foreground }
        return try foreground.embedded(x: 0, y: background.height - foreground.height,
                                       width: background.width, height: background.height)
    }
}
