import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

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

    /// The rendered (still lazy) image of one file, ready to save.
    func render(_ path: String, header: VipsImage) throws -> VipsImage {
        var shrunkOnLoad = false
        var source: VipsImage
        if case .resize(let width, let height, let mode)? = plan?.root.firstGeometry, mode != .none {
            // Shrink while decoding (JPEG DCT scaling, WebP/HEIF subsampling): far less to decode.
            // An unbounded side (0) must not constrain: libvips reads a missing height as "square".
            let unbounded = 10_000_000
            source = try VipsImage.thumbnail(path, width: width > 0 ? width : unbounded,
                                             height: height > 0 ? height : unbounded,
                                             crop: mode == .aspectFill, force: mode == .fill)
            shrunkOnLoad = true
        } else {
            // Rotation reads rows out of order, so it needs random access; everything else streams.
            let rotate = autoOrient && header.orientation != 1
            source = rotate ? try VipsImage.open(path, access: .random).autoOriented() : header
        }
        let profile = source.iccProfile
        if !profile.isEmpty && !ICCProfile.isSRGB(profile) && source.bands >= 3 {
            source = try source.importingICCProfile()
        }
        guard let plan else { return source }

        if plan.root.isPointOnly {
            var image = source
            let steps = plan.steps
            if !steps.isEmpty { image = try image.rgb(deep: image.sampleBytes > 1) }
            for step in steps {
                image = try image.mapRows(step.kernel(transfer: workingSpace, imageWidth: image.width,
                                                      imageHeight: image.height))
            }
            return image
        }
        if shrunkOnLoad, case .geometry(_, .source) = plan.root { return source }

        let deep = source.sampleBytes > 1
        // Alpha only when the image has one or the plan composites: blurs of opaque images run on
        // three bands.
        let addAlpha = !source.hasAlpha && plan.root.needsAlpha
        var rgb = try source.rgb(deep: deep)
        if addAlpha { rgb = try rgb.appendingBand(deep ? 65535 : 255) }
        let input = try rgb.mapRows(DecodeKernel(transfer: workingSpace), to: .float)
        var result = try evaluate(plan.root, input: input, skipFirstResize: shrunkOnLoad)
        if addAlpha { result = try result.bands(0, count: 3) }
        return try result.mapRows(EncodeKernel(transfer: workingSpace), to: deep ? .ushort : .uchar)
    }

    /// One node on float RGBA images.
    private func evaluate(_ node: RenderNode, input: VipsImage, skipFirstResize: Bool) throws -> VipsImage {
        func below(_ next: RenderNode) throws -> VipsImage {
            try evaluate(next, input: input, skipFirstResize: skipFirstResize)
        }
        switch node {
        case .source:
            return input
        case .points(let step, let next):
            let image = try below(next)
            return try image.mapRows(PointChainKernel(operations: step.operations, transfer: .none,
                                                      imageWidth: image.width, imageHeight: image.height))
        case .region(let kernel, let next):
            // Each tile is read with the kernel's margin all round: past this, a tile's input alone would be
            // gigabytes (the sizes a pipeline's radius or scale can ask for are unbounded).
            guard kernel.margin <= Self.maximumMargin else {
                throw ItemFailure("a neighbourhood filter (blur, sharpen, pixellate) here reaches \(kernel.margin) pixels "
                                  + "around each pixel, more than the \(Self.maximumMargin) Medley renders; lower its radius or scale")
            }
            return try below(next).mapRegions(kernel)
        case .geometry(let operation, let next):
            if skipFirstResize, case .source = next, case .resize = operation { return input }
            return try Geometry.apply(operation, to: try below(next))
        case .composite(let kernel, let foreground, let background):
            let back = try below(background)
            let front = try Geometry.align(try below(foreground), toExtentOf: back)
            // The blend kernels take RGBA; `render` made the input so, and nothing below changes the bands.
            guard front.bands == 4, back.bands == 4 else {
                throw ItemFailure("compositing needs RGBA images; here its two sides have \(front.bands) and \(back.bands) bands")
            }
            return try front.mapRows(with: back, kernel)
        case .constant(let colour):
            // Already in the working space (FilterInputs.color converts CIColor values).
            return try VipsImage.constant(width: input.width, height: input.height,
                                          values: [colour.x, colour.y, colour.z, colour.w].prefix(input.bands).map(Double.init))
        }
    }
}

extension ImageRenderer {
    /// The widest margin a neighbourhood kernel may have (a Gaussian of σ ≈ 1365, a 4096-pixel pixellate cell).
    static let maximumMargin = 4096
}

/// Geometry in Core Image's coordinates (origin bottom-left, y up) on libvips images (y down).
enum Geometry {
    /// Coordinates a pipeline gives, as whole pixels: far enough out to mean "beyond any image", never a trap.
    static let coordinates = -(1 << 40)...(1 << 40)

    static func apply(_ operation: GeometryOperation, to image: VipsImage) throws -> VipsImage {
        let width = Double(image.width), height = Double(image.height)
        switch operation {
        case .crop(let x, let y, let w, let h):
            let left = max(0, Int(saturating: x, in: coordinates, rounding: .down))
            let right = min(image.width, Int(saturating: x + w, in: coordinates, rounding: .up))
            let bottom = max(0, Int(saturating: y, in: coordinates, rounding: .down))
            let top = min(image.height, Int(saturating: y + h, in: coordinates, rounding: .up))
            guard right > left, top > bottom else {
                throw ItemFailure("CICrop: the rectangle [\(x) \(y) \(w) \(h)] lies outside the \(image.width)×\(image.height) image")
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
            let minX = xs.min() ?? 0, maxX = xs.max() ?? 0, minY = ys.min() ?? 0, maxY = ys.max() ?? 0
            // Sides beyond 2³¹ (or ∞, NaN from extreme matrices) fail the size check below, never convert.
            let outWidth = Int(saturating: maxX - minX, in: 0...(1 << 31), rounding: .up)
            let outHeight = Int(saturating: maxY - minY, in: 0...(1 << 31), rounding: .up)
            guard outWidth > 0, outHeight > 0, outWidth * outHeight <= ImageStage.defaultMaxPixels,
                  [minX, maxX, minY, maxY].allSatisfy(\.isFinite) else {
                throw ItemFailure("CIAffineTransform: the result would be \(outWidth)×\(outHeight) pixels")
            }
            // Pixel coordinates flip y: X = a·x − c·y + (c·H + tx − minX), Y = −b·x + d·y + (maxY − d·H − ty).
            return try image.affine(a: a, b: -c, c: -b, d: d, dx: c * height + tx - minX, dy: maxY - d * height - ty,
                                    width: outWidth, height: outHeight)
        case .scale(let scale, let aspectRatio):
            return try image.resized(horizontal: scale * aspectRatio, vertical: scale)
        case .resize(let boxWidth, let boxHeight, let mode):
            let w = Double(boxWidth > 0 ? boxWidth : Int.max), h = Double(boxHeight > 0 ? boxHeight : Int.max)
            switch mode {
            case .none:
                return image
            case .fill:
                return try image.resized(horizontal: Double(boxWidth > 0 ? boxWidth : image.width) / width,
                                         vertical: Double(boxHeight > 0 ? boxHeight : image.height) / height)
            case .aspectFit:
                let s = min(w / width, h / height)
                return try image.resized(horizontal: s, vertical: s)
            case .aspectFill:
                let s = max(boxWidth > 0 ? w / width : 0, boxHeight > 0 ? h / height : 0)
                let scaled = try image.resized(horizontal: s, vertical: s)
                let cropWidth = min(scaled.width, boxWidth > 0 ? boxWidth : scaled.width)
                let cropHeight = min(scaled.height, boxHeight > 0 ? boxHeight : scaled.height)
                return try scaled.cropped(left: (scaled.width - cropWidth) / 2, top: (scaled.height - cropHeight) / 2,
                                          width: cropWidth, height: cropHeight)
            }
        case .orient:
            return try image.autoOriented()
        }
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
