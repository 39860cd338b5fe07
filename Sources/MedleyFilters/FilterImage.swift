import MedleyKernels

/// A recipe for an image, as a `CIImage` is: nothing is computed when a filter produces one.
/// The renderer first optimises the recipe (see `RenderPlan`), then runs kernels over pixels.
public indirect enum FilterImage: Sendable {
    /// An image that comes from outside the graph; `"input"` is the ingested item.
    case source(String)
    /// A point-wise affine colour change, in the working colour space.
    case colorMatrix(ColorMatrix, of: FilterImage)
    /// Any other per-pixel change (it may depend on the pixel's position, as a vignette does).
    case point(PointOperation, of: FilterImage)
    /// A neighbourhood operation (blur, sharpen, pixellate), run strip by strip with a margin.
    case region(RegionKernel, of: FilterImage)
    /// Resampling, cropping, rotating: done by libvips.
    case geometry(GeometryOperation, of: FilterImage)
    /// Two images combined pixel by pixel: `foreground` over `background`, with the background's
    /// extent (Core Image aligns both at the origin).
    case composite(RowKernel2, foreground: FilterImage, background: FilterImage)
    /// A point-wise change made from pixels at render time: those of `table` (CIColorMap's gradient,
    /// CIPalettize's palette) or, with no table, the input's histogram (CIColorThresholdOtsu).
    case measured(MeasuredOperation, of: FilterImage, table: FilterImage?)
    /// One colour everywhere (Core Image's generators are infinite; Medley gives them the extent
    /// of the graph's input image).
    case constant(SIMD4<Float>)
}

/// Geometry, in Core Image's coordinates: pixels, origin at the bottom-left, y up.
public enum GeometryOperation: Sendable {
    /// Keep the part inside a rectangle.
    case crop(x: Double, y: Double, width: Double, height: Double)
    /// A CGAffineTransform (a b c d tx ty): x' = a·x + c·y + tx, y' = b·x + d·y + ty. The result is
    /// the transformed image's bounding box.
    case affine(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double)
    /// Lanczos scaling: height × scale, width × scale × aspectRatio.
    case scale(scale: Double, aspectRatio: Double)
    /// Mitchell–Netravali cubic scaling with parameters B and C: height × scale, width × scale × aspectRatio.
    case bicubicScale(scale: Double, aspectRatio: Double, b: Double, c: Double)
    /// Medley's `resize`: fit into width × height the way a movie player scales; without
    /// `enlarge`, a picture smaller than the box keeps its size.
    /// `crop`: which part `aspectFill` keeps.
    case resize(width: Int, height: Int, mode: ResizeMode, enlarge: Bool = true, crop: ResizeCrop = .centre)
    /// Apply the EXIF orientation and reset it.
    case orient
    /// Each output pixel shows the input where `map` says (bilinear sampling); `edges` says what
    /// shows beyond the input. `name` is the filter's, for messages.
    case warp(WarpMap, edges: WarpEdges, name: String)
    /// The image cut or padded with transparency to width × height, anchored at the origin (the
    /// bottom-left corner): generators that have a size of their own (barcodes) use it.
    case extent(width: Int, height: Int)

    /// Whether the result can have transparent parts an opaque input lacks.
    public var makesTransparency: Bool {
        switch self {
        case .warp(_, let edges, _): return edges == .transparent
        case .extent: return true
        default: return false
        }
    }
}

/// Which part of the picture `resize` with `aspectFill` keeps (`crop:`): a gravity, as sharp names
/// them (ImageMagick's `-gravity`), or what libvips' `vips_smartcrop` finds most interesting —
/// `attention` (skin tones, saturated colour and edges: `vipsthumbnail --smartcrop attention`) or
/// `entropy` (the busiest part).
public enum ResizeCrop: String, Sendable, CaseIterable {
    case centre, attention, entropy, north, northeast, east, southeast, south, southwest, west, northwest

    /// The names `crop:` takes: these and `center`, as sharp and CSS spell it.
    public static let names: [String] = allCases.map(\.rawValue) + ["center"]

    public init?(name: String) {
        self.init(rawValue: name == "center" ? "centre" : name)
    }

    /// Where the kept box lies in the spare room, as a fraction of it across and down (0: the left
    /// or top edge, 1: the right or bottom edge); nil for the strategies that look at the picture.
    public var anchor: (x: Double, y: Double)? {
        switch self {
        case .centre: return (0.5, 0.5)
        case .north: return (0.5, 0)
        case .northeast: return (1, 0)
        case .east: return (1, 0.5)
        case .southeast: return (1, 1)
        case .south: return (0.5, 1)
        case .southwest: return (0, 1)
        case .west: return (0, 0.5)
        case .northwest: return (0, 0)
        case .attention, .entropy: return nil
        }
    }
}

/// The movie player's scaling modes (`MPMovieScalingMode`), used by `resize`.
public enum ResizeMode: String, Sendable, CaseIterable {
    /// Fit inside the box, keeping the aspect ratio (`aspectFit`).
    case aspectFit
    /// Fill the box, keeping the aspect ratio, cropping the centre (`aspectFill`).
    case aspectFill
    /// Stretch to the box exactly (`fill`).
    case fill
    /// Leave the size alone (`none`).
    case none
}
